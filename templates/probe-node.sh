#!/bin/bash
# probe-node.sh OUTDIR JOB: the per-node facts of provenance.json. A train
# job runs it once per node before training (srun --ntasks-per-node=1 on
# Slurm, directly for the local executor). It writes one JSON line to
# OUTDIR/probe.JOB.NODE.json atomically: kernel, driver, CUDA, GPUs (model,
# UUID, serial, clocks, application clocks, power limit, persistence and MIG
# mode, ECC errors, retired and remapped pages), the hash of the
# `nvidia-smi topo -m` matrix, the CPU governor and the NCCL library version.
# The gathering is bounded (LLMB_PROBE_TIMEOUT, 30 s); one that hangs or
# fails is recorded as failed. The script always exits 0: a probe never
# stops a benchmark.
set -u
out=${1:?usage: probe-node.sh OUTDIR JOB} job=${2:?usage: probe-node.sh OUTDIR JOB}
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
gpu_fields=index,name,uuid,serial,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,clocks.applications.memory,power.limit,persistence_mode,mig.mode.current,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,retired_pages.pending,remapped_rows.uncorrectable,remapped_rows.pending

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

gather() {
	printf '{"node":%s,"status":"ok","kernel":%s,"gpus":%s,"cuda_version":%s,"topo_sha256":%s,"cpu_governor":%s,"nccl_version":%s,"cpu_model":%s,"cpus":%s,"mem_total_kib":%s}\n' \
		"$(js "$node")" "$(js "$(uname -r)")" "$(gpus)" "$(cuda_version)" "$(topo_hash)" "$(governor)" "$(nccl_version)" \
		"$(cpu_model)" "$(js "$(nproc 2>/dev/null || echo 0)")" "$(mem_total)"
}

if [ "${LLMB_PROBE_GATHER:-}" = 1 ]; then
	gather
	exit 0
fi
bound=${LLMB_PROBE_TIMEOUT:-30}
line=$(LLMB_PROBE_GATHER=1 timeout -k 2 "$bound" bash "$0" "$out" "$job")
rc=$?
if [ "$rc" != 0 ] || [ -z "$line" ]; then
	why="probe failed (exit $rc)"
	[ "$rc" = 124 ] && why="probe killed after $bound s"
	line=$(printf '{"node":%s,"status":"failed","why":%s}' "$(js "$node")" "$(js "$why")")
	echo "llmb: node $node: $why; the run goes on" >&2
fi
tmp="$out/probe.$job.$node.json.tmp.$$"
printf '%s\n' "$line" >"$tmp" && mv -f "$tmp" "$out/probe.$job.$node.json"
exit 0
