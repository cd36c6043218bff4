#!/usr/bin/env bash
# down.sh STATE_DIR: stop the cluster tests/slurm/up.sh started there.
#
# Cancels every job, then stops only the daemons whose PIDs up.sh saved,
# checking /proc/PID/comm first so a reused PID is never signalled: SIGTERM
# in reverse start order, SIGKILL after DOWN_WAIT seconds (default 10).
# Leftover slurmstepd processes of this cluster (found by their SLURM_CONF)
# are killed too. SLURM_CI_PURGE=1 also removes STATE_DIR.
set -u

[ $# -eq 1 ] || { echo "usage: down.sh STATE_DIR" >&2; exit 2; }
[ -d "$1" ] || { echo "down.sh: no state directory '$1'" >&2; exit 0; }
S=$(cd "$1" && pwd)
PIDS=$S/run/pids
WAIT=${DOWN_WAIT:-10}
export PATH=$PATH:/usr/sbin:/sbin
export SLURM_CONF=$S/slurm.conf

# alive PID NAME: PID runs (not a zombie) and is still NAME.
# alive PID NAME (builtins only: it runs for every daemon of a 256-node cluster)
alive() {
	local comm st
	{ read -r comm <"/proc/$1/comm"; } 2>/dev/null || return 1
	[ "$comm" = "$2" ] || return 1
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

[ -f "$PIDS" ] || { echo "down.sh: nothing recorded in '$S'"; exit 0; }
names=() pids=()
while read -r name pid _; do
	names+=("$name")
	pids+=("$pid")
done <"$PIDS"

ctld_up=0
for i in "${!pids[@]}"; do
	if [ "${names[i]}" = slurmctld ] && alive "${pids[i]}" slurmctld; then ctld_up=1; fi
done
if [ "$ctld_up" = 1 ] && [ -f "$SLURM_CONF" ]; then
	jobs=$(squeue -h -o '%A' 2>/dev/null | sort -u | tr '\n' ' ')
	if [ -n "$jobs" ]; then
		# shellcheck disable=SC2086 # job ids are plain numbers
		scancel $jobs 2>/dev/null
		for ((i = 0; i < 10 * (WAIT + 5); i++)); do
			[ -z "$(squeue -h -o '%A' 2>/dev/null)" ] && break
			sleep 0.1
		done
	fi
fi

for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
	if alive "${pids[i]}" "${names[i]}"; then kill -TERM "${pids[i]}" 2>/dev/null; fi
done
for ((t = 0; t < WAIT * 10; t++)); do
	left=0
	for i in "${!pids[@]}"; do
		if alive "${pids[i]}" "${names[i]}"; then left=1; fi
	done
	[ "$left" = 0 ] && break
	sleep 0.1
done
rc=0
for i in "${!pids[@]}"; do
	if alive "${pids[i]}" "${names[i]}"; then
		echo "down.sh: ${names[i]} (pid ${pids[i]}) ignored SIGTERM; sending SIGKILL" >&2
		kill -KILL "${pids[i]}" 2>/dev/null
	fi
done
sleep 0.2
for i in "${!pids[@]}"; do
	if alive "${pids[i]}" "${names[i]}"; then
		echo "down.sh: ${names[i]} (pid ${pids[i]}) still alive" >&2
		rc=1
	fi
done

# Steps whose slurmd is gone: they carry this cluster's SLURM_CONF.
for d in /proc/[0-9]*; do
	[ "$(cat "$d/comm" 2>/dev/null)" = slurmstepd ] || continue
	if tr '\0' '\n' <"$d/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF"; then
		kill -KILL "${d#/proc/}" 2>/dev/null
	fi
done

rm -f "$PIDS"
if [ "${SLURM_CI_PURGE:-0}" = 1 ]; then rm -rf "$S"; fi
exit "$rc"
