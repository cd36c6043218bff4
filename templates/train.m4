m4_include(common.m4)m4_dnl
LLMB_PRELUDE
LLMB_LAUNCHER
LLMB_PROBE
mkdir -p LLMB_WORKDIR
cd LLMB_WORKDIR
m4_ifelse(LLMB_NODE_SETUP_ON, 1, [[# Node setup (train.node_setup): the training command, run with
# LLMB_NODE_SETUP set, writes there the host commands its framework runs on
# every node before training (NeMo's PerfEnvPlugin: vboost) and exits;
# node-setup.sh runs them once per node, on the host, and leaves the
# outcome in the run's note. A command that fails never fails the job.
llmb_setup="$llmb_state/LLMB_NAME_NODE_SETUP.$LLMB_JOB_ID"
LLMB_NODE_SETUP=$llmb_setup llmb_launch LLMB_CMD
bash LLMB_NODE_SETUP_SCRIPT "$llmb_setup" "$llmb_state/LLMB_NAME_NOTE.$LLMB_JOB_ID" &
wait "$!"
]])m4_dnl
# The rank-0 task's environment, as upstream's --dump-env: llmb_launch
# starts each task of the training through llmb_envdump, whose rank 0
# writes its environment to the state directory (NAME=value entries ended
# by NUL), each secret's value (by name) replaced, then becomes the
# training (exec); provenance.json takes it from there. A dump that fails
# fails nothing.
# shellcheck disable=SC2016 # the task's own program, expanded there
llmb_envdump='if [ "${SLURM_PROCID:-${RANK:-0}}" = 0 ]; then
	for n in $(compgen -e); do
		case $n in
		LLMB_REDACT) printf "%s=%s\0" "$n" "LLMB_REDACTED" ;;
		*) printf "%s=%s\0" "$n" "${!n}" ;;
		esac
	done >"$0.tmp.$$" 2>/dev/null && mv -f "$0.tmp.$$" "$0" || :
fi
exec "$@"'
llmb_dump_env="$llmb_state/LLMB_NAME_ENV.$LLMB_JOB_ID"
llmb_launch LLMB_CMD
echo "llmb: training finished"
LLMB_PROBE_AFTER
