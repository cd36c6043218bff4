#!/bin/bash
# probe-node.sh OUTDIR JOB [after]: the per-node facts of provenance.json. A
# train job runs it once per node before training (srun --ntasks-per-node=1
# on Slurm, directly for the local executor). It writes one JSON line to
# OUTDIR/probe.JOB.NODE.json atomically: kernel, driver, CUDA, GPUs (model,
# UUID, serial, clocks, application clocks, power limit, persistence and MIG
# mode, ECC errors, retired and remapped pages, active clock throttle
# reasons), the hash of the `nvidia-smi topo -m` matrix, the CPU governor,
# the NCCL library version, the node's RDMA ports (InfiniBand, RoCE, EFA:
# /sys/class/infiniband) and the count of NVIDIA XID events in the kernel
# log. With `after`, at the end of training, only what can change during a
# run (GPUs, XID count) goes to OUTDIR/probe-after.JOB.NODE.json: the run's
# validity compares the two (validity.c).
# The gathering is bounded (LLMB_PROBE_TIMEOUT, 30 s); one that hangs or
# fails is recorded as failed. The script always exits 0: a probe never
# stops a benchmark.
set -u
out=${1:?usage: probe-node.sh OUTDIR JOB [after]} job=${2:?usage: probe-node.sh OUTDIR JOB [after]}
phase=${3:-before}
node=$(hostname -s 2>/dev/null || hostname)
node=${SLURMD_NODENAME:-$node}

# JSON string of $2 (backslash, quote and control characters escaped),
# into the variable named $1: no subshell, as the GPU loop asks it 320
# times on an 8-GPU node.
jsv() {
	local s=${2//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	s=${s//$'\r'/}
	printf -v "$1" '"%s"' "${s//$'\n'/\\n}"
}
# The same, printed.
js() {
	local out
	jsv out "$1"
	printf '%s' "$out"
}
missing() { printf '{"status":"missing","why":%s}' "$(js "$1")"; }

# The nvidia-smi query fields, in order (names from nvidia-smi --help-query-gpu).
gpu_fields=index,name,uuid,serial,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,clocks.applications.memory,power.limit,persistence_mode,mig.mode.current,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,retired_pages.pending,remapped_rows.uncorrectable,remapped_rows.pending,clocks_throttle_reasons.active

gpus() {
	command -v nvidia-smi >/dev/null || { missing "nvidia-smi is not on PATH"; return; }
	local csv
	csv=$(nvidia-smi --query-gpu="$gpu_fields" --format=csv,noheader,nounits 2>&1) ||
		{ missing "nvidia-smi failed: ${csv:0:200}"; return; }
	local IFS=, first=1 line i f v jf jv
	local -a names vals
	read -ra names <<<"$gpu_fields"
	printf '['
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		IFS=, read -ra vals <<<"$line"
		[ "$first" = 1 ] || printf ','
		first=0
		printf '{'
		for i in "${!names[@]}"; do
			f=${names[$i]} v=${vals[$i]:-}
			v=${v# } v=${v% }
			jsv jf "$f"
			jsv jv "$v"
			[ "$i" = 0 ] || printf ','
			printf '%s:%s' "$jf" "$jv"
		done
		printf '}'
	done <<<"$csv"
	printf ']'
}

cuda_version() {
	local v
	v=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1)
	if [ -n "$v" ]; then js "$v"; else missing "nvidia-smi does not name a CUDA version"; fi
}

topo_hash() {
	local t
	if t=$(nvidia-smi topo -m 2>/dev/null) && [ -n "$t" ]; then
		js "$(printf '%s\n' "$t" | sha256sum | cut -c1-64)"
	else
		missing "nvidia-smi topo -m failed"
	fi
}

governor() {
	local f=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
	if [ -r "$f" ]; then js "$(cat "$f")"; else missing "no cpufreq governor on this node"; fi
}

# The NCCL library the node's loader knows (the image may carry its own):
# the version is in the name the libnccl.so.2 link resolves to.
nccl_version() {
	local p v
	p=$(ldconfig -p 2>/dev/null | sed -n 's/.*libnccl\.so\.[0-9]* .*=> *//p' | head -n 1)
	[ -n "$p" ] || { missing "no libnccl.so in the loader cache"; return; }
	v=$(readlink -f "$p" 2>/dev/null | sed -n 's/.*libnccl\.so\.\([0-9]*\.[0-9.]*\)$/\1/p')
	if [ -n "$v" ]; then js "$v"; else missing "$p: its file name carries no full version"; fi
}

# The host: CPU model, logical CPUs, memory (for the system description).
cpu_model() {
	local m
	m=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
	if [ -n "$m" ]; then js "$m"; else missing "no model name in /proc/cpuinfo"; fi
}
mem_total() {
	local k
	k=$(sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p' /proc/meminfo 2>/dev/null)
	if [ -n "$k" ]; then js "$k"; else missing "no MemTotal in /proc/meminfo"; fi
}

# The RDMA ports NCCL could use, from sysfs (what ibstat reads, no root
# needed): device, port, link layer (InfiniBand or Ethernet for RoCE),
# state and the device's driver (efa for AWS EFA). None: an empty list.
# LLMB_PROBE_SYSFS roots the tree elsewhere (a node image mounted for a
# check, the tests' fake tree).
fabric() {
	local root=${LLMB_PROBE_SYSFS:-/sys} d p first=1 ll st drv
	printf '['
	for d in "$root"/class/infiniband/*; do
		[ -d "$d" ] || continue
		drv=$(readlink "$d/device/driver" 2>/dev/null)
		for p in "$d"/ports/*; do
			[ -d "$p" ] || continue
			ll=$(cat "$p/link_layer" 2>/dev/null) st=$(cat "$p/state" 2>/dev/null)
			[ "$first" = 1 ] || printf ','
			first=0
			printf '{"device":%s,"port":%s,"link_layer":%s,"state":%s,"driver":%s}' "$(js "${d##*/}")" \
				"$(js "${p##*/}")" "$(js "$ll")" "$(js "$st")" "$(js "${drv##*/}")"
		done
	done
	printf ']'
}

# NVIDIA XID events in the kernel log ("NVRM: Xid (PCI:...): N, ..."):
# their count, compared before and after training. Missing where the
# kernel log is closed to users (kernel.dmesg_restrict).
xid_events() {
	local log
	log=$(timeout 10 dmesg 2>/dev/null) || { missing "dmesg is not readable here"; return; }
	js "$(grep -c 'NVRM: Xid' <<<"$log")"
}

gather_after() {
	printf '{"node":%s,"status":"ok","gpus":%s,"xid_events":%s}\n' "$(js "$node")" "$(gpus)" "$(xid_events)"
}

gather() {
	printf '{"node":%s,"status":"ok","kernel":%s,"gpus":%s,"cuda_version":%s,"topo_sha256":%s,"cpu_governor":%s,"nccl_version":%s,"cpu_model":%s,"cpus":%s,"mem_total_kib":%s,"fabric":%s,"xid_events":%s}\n' \
		"$(js "$node")" "$(js "$(uname -r)")" "$(gpus)" "$(cuda_version)" "$(topo_hash)" "$(governor)" "$(nccl_version)" \
		"$(cpu_model)" "$(js "$(nproc 2>/dev/null || echo 0)")" "$(mem_total)" "$(fabric)" "$(xid_events)"
}

if [ "${LLMB_PROBE_GATHER:-}" = 1 ]; then
	if [ "$phase" = after ]; then gather_after; else gather; fi
	exit 0
fi
bound=${LLMB_PROBE_TIMEOUT:-30}
line=$(LLMB_PROBE_GATHER=1 timeout -k 2 "$bound" bash "$0" "$out" "$job" "$phase")
rc=$?
if [ "$rc" != 0 ] || [ -z "$line" ]; then
	why="probe failed (exit $rc)"
	[ "$rc" = 124 ] && why="probe killed after $bound s"
	line=$(printf '{"node":%s,"status":"failed","why":%s}' "$(js "$node")" "$(js "$why")")
	echo "llmb: node $node: $why; the run goes on" >&2
fi
name=probe
[ "$phase" = after ] && name=probe-after
tmp="$out/$name.$job.$node.json.tmp.$$"
printf '%s\n' "$line" >"$tmp" && mv -f "$tmp" "$out/$name.$job.$node.json"
exit 0
