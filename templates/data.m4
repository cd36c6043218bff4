m4_include(common.m4)m4_dnl
LLMB_PRELUDE
LLMB_LAUNCHER
llmb_ntasks=1
# Upstream's task environment: the workload directory, and the venv when
# the workload has one.
export LLMB_WORKLOAD=LLMB_WORKDIR MANUAL_INSTALL=false
llmb_venv=LLMB_TASK_VENV
if [ -n "$llmb_venv" ]; then
	export VIRTUAL_ENV="$llmb_venv" PATH="$llmb_venv/bin:$PATH"
	unset PYTHONHOME
fi
mkdir -p LLMB_WORKDIR
cd LLMB_WORKDIR
LLMB_SPACE_CHECK
for f in LLMB_PROVES; do mkdir -p "$(dirname "$f")"; done
llmb_launch LLMB_CMD
# Done means every file that proves the task exists and is not empty; llmb
# checks them again before it writes the stamp.
for f in LLMB_PROVES; do
	if [ ! -s "$f" ]; then
		echo "llmb: task finished but $f is missing or empty" >&2
		exit 3
	fi
done
echo "llmb: task complete"
