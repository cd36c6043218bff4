#!/usr/bin/env bash
# up.sh STATE_DIR: bring up a private Slurm cluster on this host for tests.
#
# Starts a private munged, optionally MariaDB + slurmdbd, slurmctld and one
# slurmd per emulated node, all without systemd and without touching
# /etc/slurm. Clients find the cluster through SLURM_CONF:
#
#     tests/slurm/up.sh "$dir" && . "$dir/env"     # sets SLURM_CONF
#     tests/slurm/down.sh "$dir"
#
# Settings (environment):
#   SLURM_CI_NODES=1            emulated nodes; >1 starts one slurmd per node
#   SLURM_CI_GPUS_PER_NODE=0    fake GPUs per node (gres gpu, /dev/null files)
#   SLURM_CI_CPUS               CPUs per node (default: nproc, 64 if NODES>1)
#   SLURM_CI_MEM_MB             RealMemory per node
#   SLURM_CI_PARTITION=debug    default partition (all nodes)
#   SLURM_CI_CPU_PARTITION=cpu  second partition over the same nodes
#   SLURM_CI_MIN_JOB_AGE=300    MinJobAge
#   SLURM_CI_KILL_WAIT=5        KillWait
#   SLURM_CI_EXTRA_CONF         extra slurm.conf lines (newline-separated)
#   SLURM_CI_CGROUP=0           1: proctrack/cgroup + task/cgroup, memory enforced
#                               (cgroup v1; --mem becomes a hard limit: OUT_OF_MEMORY)
#   SLURM_CI_CRED_EXPIRE        AuthInfo cred_expire (default 120); a job requeued
#                               after a node failure is eligible again this much later
#   SLURM_CI_ACCOUNTING=1       also start MariaDB and slurmdbd (sacct)
#   SLURM_CI_CTLD_PORT=6817 SLURM_CI_SLURMD_PORT=6818 (17001 if NODES>1)
#   SLURM_CI_DBD_PORT=6819
#   SLURM_CI_FIRST_JOB_ID=1     the cluster's first job id (FirstJobId)
#   SLURM_CI_TIMEOUT=60         seconds to wait for every node to be idle
#
# Deliberately not set: DependencyParameters=kill_invalid_depend. A job whose
# dependency failed stays PENDING (DependencyNeverSatisfied); the caller must
# cancel it, as it would have to on a production cluster.
set -eu

die() { echo "up.sh: $*" >&2; exit 1; }
[ $# -eq 1 ] || die "usage: up.sh STATE_DIR"
[ "$(id -u)" = 0 ] || die "must run as root (daemons run as root, munged as munge)"
for b in munged slurmctld slurmd sbatch setpriv setsid; do
	command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || die "'$b' not installed"
done
export PATH=$PATH:/usr/sbin:/sbin

mkdir -p "$1"
S=$(cd "$1" && pwd)
case $S in *[[:space:]]*) die "state dir must not contain white space: '$S'";; esac
NODES=${SLURM_CI_NODES:-1}
GPUS=${SLURM_CI_GPUS_PER_NODE:-0}
ACCT=${SLURM_CI_ACCOUNTING:-0}
CTLD_PORT=${SLURM_CI_CTLD_PORT:-6817}
DBD_PORT=${SLURM_CI_DBD_PORT:-6819}
MIN_JOB_AGE=${SLURM_CI_MIN_JOB_AGE:-300}
KILL_WAIT=${SLURM_CI_KILL_WAIT:-5}
PART=${SLURM_CI_PARTITION:-debug}
CPU_PART=${SLURM_CI_CPU_PARTITION:-cpu}
TIMEOUT=${SLURM_CI_TIMEOUT:-60}
CGROUP=${SLURM_CI_CGROUP:-0}
CRED_EXPIRE=${SLURM_CI_CRED_EXPIRE:-}
FIRST_JOB_ID=${SLURM_CI_FIRST_JOB_ID:-1}
HOST=$(hostname -s)
NCPU=$(nproc)
MEM_TOTAL=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
if [ "$NODES" -gt 1 ]; then
	CPUS=${SLURM_CI_CPUS:-64}
	MEM=${SLURM_CI_MEM_MB:-512000}
	SLURMD_PORT=${SLURM_CI_SLURMD_PORT:-17001}
else
	CPUS=${SLURM_CI_CPUS:-$NCPU}
	MEM=${SLURM_CI_MEM_MB:-$((MEM_TOTAL * 95 / 100))}
	SLURMD_PORT=${SLURM_CI_SLURMD_PORT:-6818}
fi
for v in NODES GPUS CTLD_PORT DBD_PORT MIN_JOB_AGE KILL_WAIT CPUS MEM SLURMD_PORT TIMEOUT CGROUP FIRST_JOB_ID ${CRED_EXPIRE:+CRED_EXPIRE}; do
	case ${!v} in ''|*[!0-9]*) die "$v must be a number, not '${!v}'";; esac
done
[ "$NODES" -ge 1 ] || die "SLURM_CI_NODES must be at least 1"

PIDS=$S/run/pids
# pid_alive PID NAME: PID runs and is still the daemon we started.
pid_alive() {
	local comm
	comm=$(cat "/proc/$1/comm" 2>/dev/null) || return 1
	[ "$comm" = "$2" ] || return 1
	! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}
if [ -f "$PIDS" ]; then
	while read -r name pid _; do
		if pid_alive "$pid" "$name"; then
			die "a cluster already runs on '$S' ($name pid $pid); run tests/slurm/down.sh first"
		fi
	done <"$PIDS"
fi
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
busy=
for p in "$CTLD_PORT" $(seq "$SLURMD_PORT" $((SLURMD_PORT + NODES - 1))); do
	if port_busy "$p"; then busy="$busy $p"; fi
done
if [ "$ACCT" = 1 ] && port_busy "$DBD_PORT"; then busy="$busy $DBD_PORT"; fi
[ -z "$busy" ] || die "port(s) in use:$busy (set SLURM_CI_CTLD_PORT, SLURM_CI_SLURMD_PORT, SLURM_CI_DBD_PORT)"

mkdir -p "$S/run" "$S/log" "$S/ctld" "$S/spool" "$S/munge" "$S/dev"
: >"$PIDS"
chmod 755 "$S" "$S/munge"
chown munge:munge "$S/munge"
# munged refuses sockets its user cannot reach: every parent must be traversable.
if ! setpriv --reuid=munge --regid=munge --clear-groups test -x "$S/munge"; then
	die "user munge cannot reach '$S/munge': every parent directory needs o+x (use a directory under /tmp)"
fi

started=()
cleanup_fail() {
	trap - EXIT
	echo "up.sh: start failed; log tails follow" >&2
	for f in "$S"/log/*.log "$S"/munge/munged.log; do
		[ -s "$f" ] || continue
		echo "--- $f" >&2
		tail -n 15 "$f" >&2
	done
	for ((i = ${#started[@]} - 1; i >= 0; i--)); do
		kill -TERM "${started[i]}" 2>/dev/null || true
	done
	sleep 1
	for pid in "${started[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
	done
	rm -f "$PIDS"
	exit 1
}
trap cleanup_fail EXIT

# record NAME PID [NODE]
record() { echo "$*" >>"$PIDS"; started+=("$2"); }

# wait_for DESC SECONDS CMD...: poll CMD until it succeeds.
wait_for() {
	local d=$1 t=$2 i; shift 2
	for ((i = 0; i < t * 10; i++)); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.1
	done
	echo "up.sh: timed out after ${t}s waiting for $d" >&2
	return 1
}

# ---- munge ----------------------------------------------------------------
MSOCK=$S/munge/munge.socket.2
if [ ! -s "$S/munge/munge.key" ]; then
	dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 status=none
fi
chown munge:munge "$S/munge/munge.key"
chmod 400 "$S/munge/munge.key"
setsid setpriv --reuid=munge --regid=munge --clear-groups /usr/sbin/munged -F \
	--socket="$MSOCK" --key-file="$S/munge/munge.key" --pid-file="$S/munge/munged.pid" \
	--log-file="$S/munge/munged.log" --seed-file="$S/munge/munged.seed" --num-threads=4 \
	</dev/null >>"$S/log/munged.out" 2>&1 &
record munged $!
wait_for "munged socket" 10 test -S "$MSOCK"

# ---- configuration ----------------------------------------------------------
if [ "$NODES" -gt 1 ]; then
	NODE_LIST="n[1-$NODES]"
	NODE_LINE="NodeName=$NODE_LIST NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$SLURMD_PORT-$((SLURMD_PORT + NODES - 1))"
else
	NODE_LIST=$HOST
	NODE_LINE="NodeName=$HOST NodeAddr=127.0.0.1 Port=$SLURMD_PORT"
fi
NODE_LINE="$NODE_LINE CPUs=$CPUS RealMemory=$MEM State=UNKNOWN"
if [ "$GPUS" -gt 0 ]; then
	NODE_LINE="$NODE_LINE Gres=gpu:$GPUS"
	for ((g = 0; g < GPUS; g++)); do ln -sfn /dev/null "$S/dev/gpu$g"; done
	echo "NodeName=$NODE_LIST Name=gpu File=$S/dev/gpu[0-$((GPUS - 1))]" >"$S/gres.conf"
else
	rm -f "$S/gres.conf"
fi
if [ "$ACCT" = 1 ]; then
	ACCT_CONF="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
# The slurmctld -> slurmdbd path ignores AuthInfo; this names the munge socket.
AccountingStoragePass=$MSOCK"
else
	ACCT_CONF="AccountingStorageType=accounting_storage/none"
fi
PROCTRACK=proctrack/linuxproc TASK_PLUGIN=task/none SELECT_PARAMS=CR_CPU
if [ "$CGROUP" = 1 ]; then
	[ -d /sys/fs/cgroup/memory ] || die "SLURM_CI_CGROUP=1 needs the cgroup v1 memory controller at /sys/fs/cgroup/memory"
	PROCTRACK=proctrack/cgroup TASK_PLUGIN=task/cgroup # no task/affinity: it refuses fake CPUs
	# Memory must be a consumable resource for --mem to reach the cgroup;
	# DefMemPerCPU keeps a job that asks for none from taking the node's all.
	SELECT_PARAMS="CR_CPU_Memory
DefMemPerCPU=$((MEM / CPUS))"
	# Devices stay unconstrained: the fake GPUs are /dev/null.
	cat >"$S/cgroup.conf" <<EOF
# Written by tests/slurm/up.sh.
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
ConstrainCores=no
ConstrainDevices=no
ConstrainRAMSpace=yes
ConstrainSwapSpace=no
EOF
else
	rm -f "$S/cgroup.conf"
fi
{
	cat <<EOF
# Written by tests/slurm/up.sh; regenerated on every start.
ClusterName=llmbci
FirstJobId=$FIRST_JOB_ID
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MSOCK${CRED_EXPIRE:+,cred_expire=$CRED_EXPIRE}
CryptoType=crypto/munge
StateSaveLocation=$S/ctld
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd-%n.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd-%n.log
ProctrackType=$PROCTRACK
TaskPlugin=$TASK_PLUGIN
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=$SELECT_PARAMS
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
MinJobAge=$MIN_JOB_AGE
KillWait=$KILL_WAIT
MailProg=/bin/true
JobCompType=jobcomp/filetxt
JobCompLoc=$S/log/jobcomp.txt
$ACCT_CONF
EOF
	if [ "$CPUS" -gt "$NCPU" ] || [ "$NODES" -gt 1 ]; then echo "SlurmdParameters=config_overrides"; fi
	if [ "$GPUS" -gt 0 ]; then echo "GresTypes=gpu"; fi
	echo "$NODE_LINE"
	echo "PartitionName=$PART Nodes=$NODE_LIST Default=YES MaxTime=INFINITE State=UP"
	if [ "$CPU_PART" != "$PART" ]; then
		echo "PartitionName=$CPU_PART Nodes=$NODE_LIST MaxTime=INFINITE State=UP"
	fi
	if [ -n "${SLURM_CI_EXTRA_CONF:-}" ]; then printf '%s\n' "$SLURM_CI_EXTRA_CONF"; fi
} >"$S/slurm.conf"
export SLURM_CONF=$S/slurm.conf
printf 'export SLURM_CONF=%q\n' "$SLURM_CONF" >"$S/env"

# ---- accounting: MariaDB on a private socket, then slurmdbd ------------------
if [ "$ACCT" = 1 ]; then
	for b in mariadbd mariadb-install-db slurmdbd sacctmgr; do
		command -v "$b" >/dev/null 2>&1 || die "'$b' not installed (SLURM_CI_ACCOUNTING=1)"
	done
	DB=$S/mysql
	mkdir -p "$DB"
	chown mysql:mysql "$DB"
	chmod 755 "$DB"
	if [ ! -d "$DB/data/mysql" ]; then
		mariadb-install-db --no-defaults --user=mysql --datadir="$DB/data" \
			--auth-root-authentication-method=socket --skip-test-db \
			>"$S/log/mariadb-install.log" 2>&1 || die "mariadb-install-db failed (see $S/log/mariadb-install.log)"
	fi
	setsid mariadbd --no-defaults --user=mysql --datadir="$DB/data" --socket="$DB/mysqld.sock" \
		--pid-file="$DB/mysqld.pid" --skip-networking --innodb-buffer-pool-size=64M \
		--log-error="$S/log/mariadb.log" </dev/null >>"$S/log/mariadb.out" 2>&1 &
	record mariadbd $!
	wait_for "mariadb socket" 30 test -S "$DB/mysqld.sock"
	cat >"$S/slurmdbd.conf" <<EOF
# Written by tests/slurm/up.sh.
AuthType=auth/munge
AuthInfo=socket=$MSOCK
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=root
LogFile=$S/log/slurmdbd.log
PidFile=$S/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=slurm_acct_db
EOF
	chmod 600 "$S/slurmdbd.conf"
	# slurmdbd.conf has no socket option; the client library reads this.
	MYSQL_UNIX_PORT=$DB/mysqld.sock setsid slurmdbd -D </dev/null >>"$S/log/slurmdbd.out" 2>&1 &
	record slurmdbd $!
	wait_for "slurmdbd" 30 sacctmgr -n list cluster
	sacctmgr -i add cluster llmbci >/dev/null 2>&1 || true
	sacctmgr -i add account llmb Description=llmb Organization=llmb >/dev/null 2>&1 || true
	sacctmgr -i add user root Account=llmb >/dev/null 2>&1 || true
fi

# ---- slurmctld and slurmd ---------------------------------------------------
setsid slurmctld -D -i </dev/null >>"$S/log/slurmctld.out" 2>&1 &
record slurmctld $!
wait_for "slurmctld" 30 scontrol ping
if [ "$NODES" -gt 1 ]; then
	for ((k = 1; k <= NODES; k++)); do
		setsid slurmd -D -N "n$k" </dev/null >>"$S/log/slurmd-n$k.out" 2>&1 &
		record slurmd $! "n$k"
	done
else
	setsid slurmd -D </dev/null >>"$S/log/slurmd.out" 2>&1 &
	record slurmd $! "$HOST"
fi
all_idle() {
	local states
	states=$(sinfo -h -N -p "$PART" -o '%t' 2>/dev/null) || return 1
	[ "$(grep -c '^idle$' <<<"$states")" = "$NODES" ]
}
if ! wait_for "$NODES node(s) idle" "$TIMEOUT" all_idle; then
	sinfo -N >&2 || true
	exit 1
fi

trap - EXIT
echo "export SLURM_CONF=$SLURM_CONF"
