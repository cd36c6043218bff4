m4_divert(-1)
# common.m4: the pieces every job script shares. llmb defines the LLMB_*
# macros (values already shell-quoted) before this file is read; quotes
# are [[ and ]] so that shell text passes through untouched.
m4_changequote()m4_changequote([[, ]])m4_changecom()

# The prelude: strict bash, the job's identity, the exit record written
# atomically by a trap (the result survives accounting purges), and the
# started marker that lets a new `llmb run` find a job whose submission
# it did not see complete. No command substitution here: bash 5.2 fails
# to parse a trap that fires while one runs ("unexpected EOF while
# looking for matching `)'"), so a cancel would lose its SIGTERM line and
# let the script run on; printf's %(...)T and $HOSTNAME need no child.
# A SIGTERM or SIGINT that comes while the exit trap runs (the step ended
# first, and set -e began the exit; then the time limit's or a cancel's
# signal) only sets the status: the other traps' exit stopped this one
# before its record was written, and the job left none (seen in the test
# suite: a job at its time limit whose srun ended before the signal).
m4_define([[LLMB_PRELUDE]], [[#!/bin/bash
# llmb job script for stage LLMB_ID (LLMB_LABEL), from templates/LLMB_TEMPLATE.m4.
# Generated, do not edit. Secrets are passed by name, never written here.
LLMB_SBATCH[[]]set -euo pipefail
export LLMB_STAGE=LLMB_QID
export LLMB_INSTALL=LLMB_INSTALL_DIR
export LLMB_JOB_ID="${SLURM_JOB_ID:-${LLMB_JOB_ID:-unknown}}"
llmb_state=LLMB_STATE_DIR
llmb_exit_record() {
	local rc=$? tmp now
	trap 'rc=143; echo "llmb: job $LLMB_JOB_ID got SIGTERM" >&2' TERM
	trap 'rc=130; echo "llmb: job $LLMB_JOB_ID got SIGINT" >&2' INT
	tmp="$llmb_state/LLMB_NAME_EXIT.$LLMB_JOB_ID.tmp.$$"
	printf -v now '%(%s)T' -1
	printf 'status=%s\nend=%s\njob=%s\n' "$rc" "$now" "$LLMB_JOB_ID" >"$tmp" &&
		mv -f "$tmp" "$llmb_state/LLMB_NAME_EXIT.$LLMB_JOB_ID"
	exit "$rc"
}
trap llmb_exit_record EXIT
trap 'echo "llmb: job $LLMB_JOB_ID got SIGTERM" >&2; exit 143' TERM
trap 'echo "llmb: job $LLMB_JOB_ID got SIGINT" >&2; exit 130' INT
printf '%s\n' "$LLMB_JOB_ID" >"$llmb_state/LLMB_NAME_STARTED.LLMB_TOKEN.tmp.$$"
mv -f "$llmb_state/LLMB_NAME_STARTED.LLMB_TOKEN.tmp.$$" "$llmb_state/LLMB_NAME_STARTED.LLMB_TOKEN"
TZ=UTC0 printf -v llmb_start '%(%Y-%m-%dT%H:%M:%SZ)T' -1
echo "llmb: job $LLMB_JOB_ID stage $LLMB_STAGE on $HOSTNAME at $llmb_start"
LLMB_SECRETS
LLMB_ENV
]])

# llmb_launch CMD...: runs CMD once per task. Under Slurm, srun starts the
# tasks (in the container through pyxis when there is an image), with the
# recipe's srun flags (train.srun) as literal words; the local executor
# starts them itself with torchrun-style variables. With llmb_dump_env set
# (the training, train.m4), each task starts through llmb_envdump, whose
# rank 0 writes its environment there.
m4_define([[LLMB_LAUNCHER]], [[llmb_ntasks=LLMB_NTASKS
llmb_image=LLMB_IMAGE
llmb_mounts=LLMB_MOUNTS
llmb_launch() {
	local w=()
	[ -z "${llmb_dump_env:-}" ] || w=(bash -c "$llmb_envdump" "$llmb_dump_env")
	if [ -n "${SLURM_JOB_ID:-}" ]; then
		local c=()
		if [ -n "$llmb_image" ]; then
			c+=("--container-image=$llmb_image" "--no-container-mount-home"LLMB_CONTAINER_FLAGS)
			[ -z "$llmb_mounts" ] || c+=("--container-mounts=$llmb_mounts")
		fi
		# In the background: bash runs a trap only between commands, and
		# the exit record must be written before Slurm's KillWait runs out.
		srun --kill-on-bad-exit=1 LLMB_SRUN_FLAGS"${c[@]}" "${w[@]}" "${@}" &
		wait "$!" || return
		# srun exits 0 when its step was aborted with the job (a time
		# limit, a cancel: "Job step aborted"), and this script's own
		# SIGTERM may come only after it went on and exited 0 (seen in
		# the test suite: a training at its time limit, recorded as
		# status 0). A job Slurm no longer has RUNNING was cut short.
		squeue -h -j "$SLURM_JOB_ID" -o %T 2>/dev/null | grep -qvx RUNNING &
		if wait "$!"; then
			echo "llmb: job $LLMB_JOB_ID is ending: its step was aborted, whatever srun's exit status said" >&2
			return 143
		fi
		return 0
	fi
	if [ -n "$llmb_image" ]; then
		echo "llmb: stage needs container image $llmb_image: run it with EXECUTOR=slurm on a cluster with pyxis" >&2
		return 2
	fi
	local pids=() i rc=0 port=$((20000 + $$ % 20000))
	# The first port from there that nothing listens on: another job or
	# service of this machine may hold the one the pid gives.
	while (: <>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
	export MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=$llmb_ntasks
	for ((i = 0; i < llmb_ntasks; i++)); do
		RANK=$i LOCAL_RANK=$i "${w[@]}" "${@}" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=$?; done
	return "$rc"
}
]])
# The per-node probe before training (templates/probe-node.sh): one task
# per node, each bounded in time and always exiting 0; what it writes to
# the state directory goes into the run's provenance.json. LLMB_PROBE_AFTER
# runs it again when training has finished (its `after` sample: throttle
# reasons, ECC and XID counts), from which the run's validity is judged.
# In the background as llmb_launch's step: timeout runs in a process group
# of its own, which a cancel's SIGTERM does not reach, and a trap waits for
# a foreground command, so a job cancelled during its probe lost its
# SIGTERM line (and was killed after KillWait).
m4_define([[LLMB_PROBE_STEP]], [[if [ -n "${SLURM_JOB_ID:-}" ]; then
	timeout -k 5 60 srun --ntasks-per-node=1 --ntasks="${SLURM_JOB_NUM_NODES:-1}" bash LLMB_PROBE_SCRIPT "$llmb_state" "$LLMB_JOB_ID"$1 &
	wait "$!" || echo "llmb: the node probe step failed; the run goes on" >&2
else
	bash LLMB_PROBE_SCRIPT "$llmb_state" "$LLMB_JOB_ID"$1 || true
fi]])
# The pre-flight policy (LLMB_PREFLIGHT_POLICY): warn, the default, is the
# probe's own (its findings are recorded and flag the run), so the script
# says nothing of it; off reaches the probe by the environment; fail and
# exclude stop the job here, before any training step, when a node's
# probe found a failing check. The findings (NODE, CHECK, WHY) go to
# preflight-failed.JOB, which llmb run reads: the job's state PREFLIGHT.
m4_define([[LLMB_PROBE]], [[m4_ifelse(LLMB_PREFLIGHT_POLICY, [[warn]], [[]], [[export LLMB_PREFLIGHT=LLMB_PREFLIGHT_POLICY
]])LLMB_PROBE_STEP()[[]]m4_ifelse(LLMB_PREFLIGHT_POLICY, [[fail]], [[LLMB_PREFLIGHT_STOP]],
LLMB_PREFLIGHT_POLICY, [[exclude]], [[LLMB_PREFLIGHT_STOP]])]])
m4_define([[LLMB_PREFLIGHT_STOP]], [[
llmb_pf_bad=
for llmb_f in "$llmb_state/LLMB_NAME_PREFLIGHT.$LLMB_JOB_ID".*; do
	case $llmb_f in *.tmp.*) continue ;; esac
	[ -f "$llmb_f" ] || continue
	llmb_n=${llmb_f##*/LLMB_NAME_PREFLIGHT."$LLMB_JOB_ID".}
	while IFS=$'\t' read -r llmb_v llmb_c llmb_w; do
		[ "$llmb_v" = fail ] || continue
		echo "llmb: pre-flight failed on node $llmb_n: $llmb_w ($llmb_c)" >&2
		llmb_pf_bad+="$llmb_n"$'\t'"$llmb_c"$'\t'"$llmb_w"$'\n'
	done <"$llmb_f"
done
if [ -n "$llmb_pf_bad" ]; then
	printf '%s' "$llmb_pf_bad" >"$llmb_state/LLMB_NAME_PREFLIGHT_FAILED.$LLMB_JOB_ID.tmp.$$"
	mv -f "$llmb_state/LLMB_NAME_PREFLIGHT_FAILED.$LLMB_JOB_ID.tmp.$$" "$llmb_state/LLMB_NAME_PREFLIGHT_FAILED.$LLMB_JOB_ID"
	echo "llmb: pre-flight failed (LLMB_PREFLIGHT=LLMB_PREFLIGHT_POLICY): the job stops before training" >&2
	exit 3
fi]])
# LLMB_SKIP_AFTER_PROBE=1 in the submitting environment skips the after sample
# (the run's validity then says the after checks were not made): it is one
# more step on every node, which an emulated cluster of hundreds of nodes on
# one machine pays in full.
m4_define([[LLMB_PROBE_AFTER]], [[if [ "${LLMB_SKIP_AFTER_PROBE:-0}" != 1 ]; then
LLMB_PROBE_STEP([[ after]])
fi]])
m4_divert(0)m4_dnl
