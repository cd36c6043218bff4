# testlib.sh: sourced by tests that need a real Slurm cluster (after
# tests/lib.sh). Usage:
#
#     . "$TESTS_DIR/slurm/testlib.sh"
#     slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
#     slurm_test_up || ...            # sets SLURM_TEST_STATE, exports SLURM_CONF
#     ...
#     (an EXIT trap calls slurm_test_down)
#
# With LLMB_TEST_SLURM_STATE=DIR pointing at a cluster that tests/slurm/up.sh
# started (and is still running), that cluster is reused and left running.
# Otherwise a fresh one is started on free ports in a directory the munge
# user can reach, and stopped again on exit. SLURM_CI_* settings pass through.
# shellcheck shell=bash

SLURM_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SLURM_TEST_STATE=
SLURM_TEST_OWNED=0

# slurm_need_packages: 0 if the Slurm daemons can run here, else 1 with
# SLURM_SKIP_REASON set.
slurm_need_packages() {
	local b
	export SLURM_SKIP_REASON=
	for b in slurmctld slurmd sbatch squeue munged setpriv; do
		if ! PATH=$PATH:/usr/sbin command -v "$b" >/dev/null 2>&1; then
			SLURM_SKIP_REASON="Slurm packages not installed ($b missing; scripts/deps.sh installs them as root)"
			return 1
		fi
	done
	if [ "$(id -u)" != 0 ]; then
		SLURM_SKIP_REASON="a private Slurm cluster needs root"
		return 1
	fi
	if ! getent passwd munge >/dev/null; then
		SLURM_SKIP_REASON="no munge user (munge package incomplete)"
		return 1
	fi
}

# slurm_port_free PORT
slurm_port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# slurm_claim_slot BASE: a lock on the port slot at BASE, held through an
# fd that this shell and the daemons it starts inherit, so as long as the
# cluster lives. Two tests that start side by side could otherwise both
# find a slot's ports free (nothing binds them until the daemons start,
# seconds later) and both take it: one cluster's slurmdbd then fails with
# "Address already in use". 0 if claimed, 1 if another test holds it.
slurm_claim_slot() {
	exec {SLURM_SLOT_FD}>>"/tmp/llmb-slurm-slot.$1.lock" || return 1
	flock -n "$SLURM_SLOT_FD" && return 0
	exec {SLURM_SLOT_FD}>&-
	return 1
}

# slurm_pick_ports N: sets SLURM_CI_{CTLD,DBD,SLURMD}_PORT to N+2 free ports.
slurm_pick_ports() {
	local n=$1 base try p ok lo slots
	# Below the ephemeral range: a port handed to an outgoing connection
	# between this check and a slurmd's bind would make that node fail.
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
	# From 26000, in slots of 100: below it, 20000 to 25999, are the
	# rendezvous ports of tinygpt's ranks (20000 plus the job id). Each
	# cluster numbers its jobs from a first id of its slot's own (80 ids a
	# slot), so clusters side by side never share a job id, nor a port.
	slots=$(((lo - 26000 - n - 2) / 100))
	[ "$slots" -ge 1 ] || slots=60
	for ((try = 0; try < 10; try++)); do
		base=$((26000 + (RANDOM % slots) * 100))
		slurm_claim_slot "$base" || continue
		ok=1
		for ((p = base; p < base + n + 2; p++)); do
			slurm_port_free "$p" || { ok=0; break; }
		done
		if [ "$ok" = 1 ]; then
			export SLURM_CI_CTLD_PORT=$base SLURM_CI_DBD_PORT=$((base + 1)) SLURM_CI_SLURMD_PORT=$((base + 2))
			export SLURM_CI_FIRST_JOB_ID=$((1 + (base - 26000) * 4 / 5))
			return 0
		fi
		exec {SLURM_SLOT_FD}>&-
	done
	return 1
}

# slurm_state_dir: a new directory for the cluster. $TRASH if the munge user
# can traverse it, else a fresh one under /tmp.
slurm_state_dir() {
	local d=$TRASH/slurm
	mkdir -p "$d" && chmod 755 "$d"
	if setpriv --reuid=munge --regid=munge --clear-groups test -x "$d" 2>/dev/null; then
		echo "$d"
	else
		rm -rf "$d"
		d=$(mktemp -d /tmp/llmb-slurm.XXXXXX) && chmod 755 "$d" && echo "$d"
	fi
}

slurm_test_up() {
	if [ -n "${LLMB_TEST_SLURM_STATE:-}" ]; then
		SLURM_TEST_STATE=$LLMB_TEST_SLURM_STATE
		# shellcheck disable=SC1091
		. "$SLURM_TEST_STATE/env" || return 1
		export SLURM_CONF
		scontrol ping >/dev/null 2>&1 || { echo "# cluster in $SLURM_TEST_STATE is not running" >&2; return 1; }
		return 0
	fi
	SLURM_TEST_STATE=$(slurm_state_dir) || return 1
	slurm_pick_ports "${SLURM_CI_NODES:-1}" || { echo "# no free ports" >&2; return 1; }
	SLURM_TEST_OWNED=1
	trap slurm_test_down EXIT
	"$SLURM_SCRIPTS/up.sh" "$SLURM_TEST_STATE" >"$TRASH/slurm-up.log" 2>&1 || {
		sed 's/^/# /' "$TRASH/slurm-up.log" | tail -n 40
		return 1
	}
	# shellcheck disable=SC1091
	. "$SLURM_TEST_STATE/env"
	export SLURM_CONF
}

# slurm_test_down: stop the cluster if this test started it.
slurm_test_down() {
	[ "$SLURM_TEST_OWNED" = 1 ] || return 0
	SLURM_TEST_OWNED=0
	"$SLURM_SCRIPTS/down.sh" "$SLURM_TEST_STATE" >/dev/null 2>&1
	case $SLURM_TEST_STATE in /tmp/llmb-slurm.*) rm -rf "$SLURM_TEST_STATE";; esac
}
