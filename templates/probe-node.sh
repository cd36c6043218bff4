#!/bin/bash
# probe-node.sh OUTDIR JOB [after]: the per-node facts of provenance.json and
# the node's pre-flight verdict. A train job runs it once per node before
# training (srun --ntasks-per-node=1 on Slurm, directly for the local
# executor). It writes one JSON line to OUTDIR/probe.JOB.NODE.json
# atomically: kernel, driver, CUDA, GPUs (model, UUID, PCI bus id, serial, clocks,
# application clocks, power limit, persistence and MIG mode, ECC errors,
# retired and remapped pages, active clock throttle reasons), the hash of
# the `nvidia-smi topo -m` matrix, the CPU governor, the NCCL library
# version, the node's RDMA ports (InfiniBand, RoCE, EFA:
# /sys/class/infiniband), the count of NVIDIA XID events in the kernel log
# and, unless LLMB_PREFLIGHT=off, the pre-flight checks of those facts
# (the table below: pass, warn or fail, each with its reason), whose
# findings also go to OUTDIR/preflight.JOB.NODE, one "VERDICT<TAB>CHECK<TAB>
# WHY" line each, for the job script to read without a JSON parser. With
# `after`, at the end of training, only what can change during a run (GPUs,
# XID count) goes to OUTDIR/probe-after.JOB.NODE.json: the run's validity
# compares the two (validity.c).
# The gathering is bounded (LLMB_PROBE_TIMEOUT, 30 s); one that hangs or
# fails is recorded as failed (a pre-flight warning). The script always
# exits 0: whether a finding stops the job is the job script's decision.
# Few processes: on an emulated cluster hundreds of probes share a core,
# so values are read with bash's own redirections, not cat, sed or uname,
# and a command substitution's redirections stand outside it: bash forks
# twice for $(cmd 2>/dev/null), once for { v=$(cmd); } 2>/dev/null.
set -u
out=${1:?usage: probe-node.sh OUTDIR JOB [after]} job=${2:?usage: probe-node.sh OUTDIR JOB [after]}
phase=${3:-before}
node=${HOSTNAME%%.*}
node=${SLURMD_NODENAME:-$node}
policy=${LLMB_PREFLIGHT:-warn}
# LLMB_PROBE_SYSFS roots /sys elsewhere (a node image mounted for a check,
# the tests' fake trees); %n in it stands for the node's name.
sysfs=${LLMB_PROBE_SYSFS:-/sys}
sysfs=${sysfs//%n/$node}
devfs=${LLMB_PROBE_DEVFS:-/dev}
devfs=${devfs//%n/$node}

# A node's words are not trusted to be text: sysfs files and nvidia-smi
# may hold any bytes. esc VAR TEXT MODE: TEXT as valid UTF-8 into VAR, a
# byte outside a well-formed UTF-8 sequence replaced by U+FFFD (one for
# each maximal ill-formed part, as Unicode recommends), a control
# character (C0 or DEL) escaped as JSON does (\n, \t, \u001b); MODE json
# also escapes backslash and quote and drops CR, MODE line is for the
# TAB-separated findings file (no TAB, no newline survives). A byte walk
# (bash in the C locale counts bytes), only for text that is not all
# printable ASCII.
esc() {
	local LC_ALL=C
	local _s=$2 _o='' _c _e _n _b _i=0 _k _need _lo _hi _len
	_len=${#_s}
	while ((_i < _len)); do
		_c=${_s:_i:1}
		printf -v _n %d "'$_c"
		if ((_n >= 0x20 && _n < 0x7f)); then
			[ "$3" = json ] && [[ $_c == [\\\"] ]] && _o+=\\
			_o+=$_c _i=$((_i + 1))
			continue
		fi
		if ((_n < 0x80)); then
			case $_n in 10) _e='\n' ;; 9) _e='\t' ;; 13) _e='\r' ;; *) printf -v _e '\\u%04x' "$_n" ;; esac
			[ "$3:$_n" = json:13 ] && _e=
			_o+=$_e _i=$((_i + 1))
			continue
		fi
		# a lead byte: how many continuation bytes, the second one's range
		_need=0 _lo=0x80 _hi=0xbf
		if ((_n >= 0xc2 && _n <= 0xdf)); then _need=1
		elif ((_n == 0xe0)); then _need=2 _lo=0xa0
		elif ((_n == 0xed)); then _need=2 _hi=0x9f
		elif ((_n >= 0xe1 && _n <= 0xef)); then _need=2
		elif ((_n == 0xf0)); then _need=3 _lo=0x90
		elif ((_n >= 0xf1 && _n <= 0xf3)); then _need=3
		elif ((_n == 0xf4)); then _need=3 _hi=0x8f
		fi
		_k=1
		while ((_k <= _need && _i + _k < _len)); do
			printf -v _b %d "'${_s:_i+_k:1}"
			((_b >= _lo && _b <= _hi)) || break
			_lo=0x80 _hi=0xbf _k=$((_k + 1))
		done
		if ((_need && _k > _need)); then _o+=${_s:_i:_k}; else _o+=$'\xef\xbf\xbd'; fi
		_i=$((_i + _k))
	done
	printf -v "$1" '%s' "$_o"
}
# JSON string of $2 into the variable named $1: no subshell, as the GPU
# loop asks it 320 times on an 8-GPU node; printable ASCII (the common
# case) without the byte walk.
jsv() {
	local LC_ALL=C
	local s=$2
	if [[ $s == *[![:print:]]* ]]; then
		esc s "$s" json
	else
		s=${s//\\/\\\\}
		s=${s//\"/\\\"}
	fi
	printf -v "$1" '"%s"' "$s"
}
# missing VAR WHY: a fact that could not be gathered, into VAR.
missing() {
	local w
	jsv w "$2"
	printf -v "$1" '{"status":"missing","why":%s}' "$w"
}
# first VAR FILE: FILE's first line into VAR; fails when unreadable.
first() {
	[ -r "$2" ] || return 1
	{ IFS= read -r "$1" || [ -n "${!1}" ]; } <"$2" 2>/dev/null
}

# ---- the facts: each function sets J_<name> (its JSON) and the raw values
# the pre-flight checks read.
J_gpus='' J_cuda='' J_topo='' J_governor='' J_nccl='' J_cpu_model='' J_mem='' J_fabric='' J_xid='' J_preflight=''

# The nvidia-smi query fields, in order (names from nvidia-smi --help-query-gpu).
gpu_fields=index,name,uuid,serial,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,clocks.applications.memory,power.limit,persistence_mode,mig.mode.current,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,retired_pages.pending,remapped_rows.uncorrectable,remapped_rows.pending,clocks_throttle_reasons.active,pci.bus_id
IFS=, read -ra gpu_names <<<"$gpu_fields"
declare -A gpu_col=()
for i in "${!gpu_names[@]}"; do gpu_col[${gpu_names[$i]}]=$i; done
gpu_rows=() # the GPUs' rows as nvidia-smi printed them; none when missing
gpu_seen=0  # the rows, with those that cannot be read
gpu_bad=()  # the rows that cannot be read: more or fewer values than asked
gpu_why=    # why nvidia-smi could not be asked: then it is not asked again
gpus() {
	command -v nvidia-smi >/dev/null || { gpu_why="nvidia-smi is not on PATH"; missing J_gpus "$gpu_why"; return; }
	local csv
	csv=$(exec 2>&1; nvidia-smi --query-gpu="$gpu_fields" --format=csv,noheader,nounits) ||
		{ gpu_why="nvidia-smi failed: ${csv:0:200}"; missing J_gpus "$gpu_why"; return; }
	local line i v jf jv o='[' IFS=,
	local -a vals
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		gpu_seen=$((gpu_seen + 1))
		read -ra vals <<<"$line"
		[ "$o" = '[' ] || o+=,
		# CSV without quotes: a value holding a comma (a GPU name) moves
		# every value after it, and an ECC count would be read from
		# another column. Such a row is kept as it was printed, not read.
		if [ ${#vals[@]} != ${#gpu_names[@]} ]; then
			gpu_bad+=("${vals[0]# }")
			jsv jv "$line"
			jsv jf "nvidia-smi printed ${#vals[@]} values for ${#gpu_names[@]} fields"
			o+="{\"status\":\"unreadable\",\"why\":$jf,\"row\":$jv}"
			continue
		fi
		gpu_rows+=("$line")
		o+='{'
		for i in "${!gpu_names[@]}"; do
			v=${vals[$i]:-}
			v=${v# } v=${v% }
			jsv jf "${gpu_names[$i]}"
			jsv jv "$v"
			[ "$i" = 0 ] || o+=,
			o+="$jf:$jv"
		done
		o+='}'
	done <<<"$csv"
	J_gpus="$o]"
}

cuda_version() {
	local t
	[ -z "$gpu_why" ] || { missing J_cuda "$gpu_why"; return; }
	{ t=$(nvidia-smi); } 2>/dev/null
	local re='CUDA Version: *([0-9.]*)'
	if [[ $t =~ $re ]] && [ -n "${BASH_REMATCH[1]}" ]; then
		jsv J_cuda "${BASH_REMATCH[1]}"
	else
		missing J_cuda "nvidia-smi does not name a CUDA version"
	fi
}

topo_hash() {
	local t h
	[ -z "$gpu_why" ] || { missing J_topo "$gpu_why"; return; }
	if { t=$(nvidia-smi topo -m); } 2>/dev/null && [ -n "$t" ]; then
		h=$(printf '%s\n' "$t" | sha256sum)
		jsv J_topo "${h:0:64}"
	else
		missing J_topo "nvidia-smi topo -m failed"
	fi
}

governor_raw=
governor() {
	if first governor_raw "$sysfs/devices/system/cpu/cpu0/cpufreq/scaling_governor"; then
		jsv J_governor "$governor_raw"
	else
		governor_raw=
		missing J_governor "no cpufreq governor on this node"
	fi
}

# The NCCL library the node's loader knows (the image may carry its own):
# the version is in the name the libnccl.so.2 link resolves to.
nccl_version() {
	local all p='' v rv='libnccl\.so\.([0-9]+\.[0-9.]*)$'
	local re=$'libnccl\\.so\\.[0-9][^\n]* =>[ ]*([^\n]*)'
	# the first "libnccl.so.N (...) => PATH" line of the cache, by one
	# regex match: a read loop over a pipe reads a byte at a time, and a
	# ${all#*libnccl...} strip is quadratic in bash (0.7 s of CPU on a
	# cache of 900 libraries, per node)
	{ all=$(ldconfig -p); } 2>/dev/null
	[[ $all =~ $re ]] && p=${BASH_REMATCH[1]}
	[ -n "$p" ] || { missing J_nccl "no libnccl.so in the loader cache"; return; }
	{ v=$(readlink -f "$p"); } 2>/dev/null
	if [[ $v =~ $rv ]]; then
		jsv J_nccl "${BASH_REMATCH[1]}"
	else
		missing J_nccl "$p: its file name carries no full version"
	fi
}

# The host: CPU model, logical CPUs, memory (for the system description).
cpu_model() {
	local l re='^model name[[:space:]]*: *(.*)$'
	while IFS= read -r l; do
		[[ $l =~ $re ]] && { jsv J_cpu_model "${BASH_REMATCH[1]}"; return; }
	done </proc/cpuinfo 2>/dev/null
	missing J_cpu_model "no model name in /proc/cpuinfo"
}
mem_total() {
	local l re='^MemTotal: *([0-9]*) kB$'
	while IFS= read -r l; do
		[[ $l =~ $re ]] && { jsv J_mem "${BASH_REMATCH[1]}"; return; }
	done </proc/meminfo 2>/dev/null
	missing J_mem "no MemTotal in /proc/meminfo"
}

# The RDMA ports NCCL could use, from sysfs (what ibstat reads, no root
# needed): device, port, link layer (InfiniBand or Ethernet for RoCE),
# state and the device's driver (efa for AWS EFA). None: an empty list.
ports_up=0 ports_down=() # the pre-flight's view: ACTIVE ports, the others
fabric() {
	local d p ll st drv jd jp jl jst jr o='['
	for d in "$sysfs"/class/infiniband/*; do
		[ -d "$d" ] || continue
		{ drv=$(readlink "$d/device/driver"); } 2>/dev/null
		for p in "$d"/ports/*; do
			[ -d "$p" ] || continue
			first ll "$p/link_layer" || ll=
			first st "$p/state" || st=
			case $st in *ACTIVE*) ports_up=$((ports_up + 1)) ;; *) ports_down+=("${d##*/}/${p##*/} (${st:-no state})") ;; esac
			[ "$o" = '[' ] || o+=,
			jsv jd "${d##*/}"
			jsv jp "${p##*/}"
			jsv jl "$ll"
			jsv jst "$st"
			jsv jr "${drv##*/}"
			o+="{\"device\":$jd,\"port\":$jp,\"link_layer\":$jl,\"state\":$jst,\"driver\":$jr}"
		done
	done
	J_fabric="$o]"
}

# NVIDIA XID events in the kernel log ("NVRM: Xid (PCI:...): N, ..."):
# their count, compared before and after training. Missing where the
# kernel log is closed to users (kernel.dmesg_restrict).
xid_raw=
xid_events() {
	local log rest n
	{ log=$(dmesg); } 2>/dev/null || { missing J_xid "dmesg is not readable here"; return; }
	# the count of the marker in the text (no grep, no read loop)
	rest=${log//NVRM: Xid/}
	n=$(((${#log} - ${#rest}) / 9))
	xid_raw=$n
	jsv J_xid "$n"
}

# ---- the pre-flight checks ---------------------------------------------------
# What a node must not have before a benchmark uses it: a check whose fact
# is missing (no nvidia-smi on a CPU node, no cpufreq in a VM) is not made,
# never a warning. Per-GPU checks: FIELD|TEST|VERDICT|CHECK|WHY, TEST one
# of gt0 (a count above zero), yes (Yes or 1), is:WORD (that value, any
# case). A failing check stops the job under LLMB_PREFLIGHT=fail.
gpu_checks=(
	"ecc.errors.uncorrected.volatile.total|gt0|fail|gpu_ecc|uncorrectable ECC errors since the driver loaded"
	"remapped_rows.pending|yes|fail|gpu_row_remap_pending|a row remap is pending (the GPU needs a reset)"
	"remapped_rows.uncorrectable|gt0|fail|gpu_row_remap_failed|rows that could not be remapped"
	"retired_pages.pending|yes|fail|gpu_page_retire_pending|a page retirement is pending (the GPU needs a reset)"
	"mig.mode.current|is:enabled|fail|gpu_mig|MIG mode is enabled (a benchmark needs whole GPUs)"
	"persistence_mode|is:disabled|warn|gpu_persistence|persistence mode is off (the driver reloads between jobs)"
)
findings=() # VERDICT<TAB>CHECK<TAB>WHY, WHY made one line of text
finding() {
	local w=$3 LC_ALL=C
	[[ $w == *[![:print:]]* ]] && esc w "$w" line
	findings+=("$1"$'\t'"$2"$'\t'"$w")
}

# u64 DIGITS: the count fits NVML's unsigned 64-bit counters.
u64() {
	local d=${1#"${1%%[!0]*}"} max=18446744073709551615
	# digits of one length: their string order is their numeric order
	# shellcheck disable=SC2071
	[ ${#d} -lt ${#max} ] || { [ ${#d} = ${#max} ] && [[ ! $d > $max ]]; }
}

check_gpus() {
	local rule field test verdict check why i row v hit bad=
	local -a vals
	for rule in "${gpu_checks[@]}"; do
		IFS='|' read -r field test verdict check why <<<"$rule"
		i=${gpu_col[$field]}
		hit=
		for row in ${gpu_rows[@]+"${gpu_rows[@]}"}; do
			IFS=, read -ra vals <<<"$row"
			v=${vals[$i]:-}
			v=${v# } v=${v% }
			case $test in
			gt0)
				# a string test, not bash's arithmetic (signed 64-bit,
				# an error past 2^63)
				if [[ $v =~ ^[0-9]+$ ]]; then
					[[ $v =~ ^0+$ ]] || hit+="${hit:+, }GPU ${vals[0]# }: $v"
					u64 "$v" || bad+="${bad:+, }GPU ${vals[0]# } $field: $v"
				else
					case $v in "[N/A]" | N/A | "[Not Supported]") ;; *) bad+="${bad:+, }GPU ${vals[0]# } $field: ${v:-empty}" ;; esac
				fi ;;
			yes) [[ ${v,,} == yes || $v == 1 ]] && hit+="${hit:+, }GPU ${vals[0]# }" ;;
			is:*) [ "${v,,}" = "${test#is:}" ] && hit+="${hit:+, }GPU ${vals[0]# }" ;;
			esac
		done
		[ -z "$hit" ] || finding "$verdict" "$check" "$why ($hit)"
	done
	# A count that is not one (nor a documented N/A) is not read as zero:
	# the check could not be made.
	[ -z "$bad" ] || finding warn gpu_counter "GPU counters that are not counts ($bad)"
	# Fewer GPUs than Slurm gave the job on this node: a GPU fell off the bus.
	local want=${SLURM_GPUS_ON_NODE:-}
	if [[ $want =~ ^[0-9]+$ ]] && [ "$gpu_seen" -lt "$want" ]; then
		finding fail gpu_count "nvidia-smi lists $gpu_seen GPUs, Slurm gave the job $want on this node"
	fi
	# NVL72 racks (GB200, GB300): multi-node NVLink needs an IMEX channel.
	if [[ ${gpu_rows[0]:-} == *GB[23]00* ]] && [ ! -e "$devfs/nvidia-caps-imex-channels/channel0" ]; then
		finding warn imex_channel "no IMEX channel ($devfs/nvidia-caps-imex-channels/channel0): NVLink across nodes is unavailable"
	fi
}

preflight() {
	[ "$gpu_seen" = 0 ] || check_gpus
	if [ ${#gpu_bad[@]} -gt 0 ]; then
		local IFS=,
		finding warn gpu_row "nvidia-smi's rows of GPUs ${gpu_bad[*]} hold more or fewer values than asked: their checks are not made"
	fi
	if [ -n "$governor_raw" ] && [ "$governor_raw" != performance ]; then
		finding fail cpu_governor "CPU frequency governor is $governor_raw, not performance"
	fi
	if [ ${#ports_down[@]} -gt 0 ]; then
		local IFS=,
		if [ "$ports_up" = 0 ]; then
			finding fail rdma_ports "no RDMA port is ACTIVE: ${ports_down[*]}"
		else
			finding warn rdma_ports "RDMA ports not ACTIVE: ${ports_down[*]}"
		fi
	fi
	if [ -n "$xid_raw" ] && [ "$xid_raw" -gt 0 ]; then
		finding warn gpu_xid "$xid_raw NVIDIA XID events in the kernel log since boot"
	fi
	local f verdict=pass o='[' v c w jc jv jw
	for f in "${findings[@]}"; do
		IFS=$'\t' read -r v c w <<<"$f"
		[ "$v" = fail ] && verdict=fail
		[ "$v" = warn ] && [ "$verdict" = pass ] && verdict=warn
		jsv jv "$v"
		jsv jc "$c"
		jsv jw "$w"
		[ "$o" = '[' ] || o+=,
		o+="{\"check\":$jc,\"verdict\":$jv,\"why\":$jw}"
	done
	jsv jv "$policy"
	J_preflight=",\"preflight\":{\"policy\":$jv,\"verdict\":\"$verdict\",\"findings\":$o]}"
}

gather_after() {
	local jn
	jsv jn "$node"
	gpus
	xid_events
	printf '{"node":%s,"status":"ok","gpus":%s,"xid_events":%s}\n' "$jn" "$J_gpus" "$J_xid"
}

# The probe's line, then (pre-flight on) its findings, a line each.
gather() {
	local jn jk kernel cpus
	jsv jn "$node"
	first kernel /proc/sys/kernel/osrelease || kernel=
	jsv jk "$kernel"
	# (nproc prints OMP_NUM_THREADS where a job's environment sets it, as
	# HPC sites often do: emptied, it counts the CPUs the job may use)
	{ cpus=$(OMP_NUM_THREADS='' OMP_THREAD_LIMIT='' nproc); } 2>/dev/null || cpus=0
	jsv cpus "$cpus"
	gpus
	cuda_version
	topo_hash
	governor
	nccl_version
	cpu_model
	mem_total
	fabric
	xid_events
	J_preflight=
	[ "$policy" = off ] || preflight
	printf '{"node":%s,"status":"ok","kernel":%s,"gpus":%s,"cuda_version":%s,"topo_sha256":%s,"cpu_governor":%s,"nccl_version":%s,"cpu_model":%s,"cpus":%s,"mem_total_kib":%s,"fabric":%s,"xid_events":%s%s}\n' \
		"$jn" "$jk" "$J_gpus" "$J_cuda" "$J_topo" "$J_governor" "$J_nccl" "$J_cpu_model" "$cpus" "$J_mem" "$J_fabric" \
		"$J_xid" "$J_preflight"
	[ ${#findings[@]} = 0 ] || printf '%s\n' "${findings[@]}"
}

if [ "${LLMB_PROBE_GATHER:-}" = 1 ]; then
	if [ "$phase" = after ]; then gather_after; else gather; fi
	exit 0
fi
# put NAME TEXT: OUTDIR/NAME written whole (tmp + rename).
put() {
	local tmp="$out/$1.tmp.$$"
	printf '%s' "$2" >"$tmp" && mv -f "$tmp" "$out/$1"
}
bound=${LLMB_PROBE_TIMEOUT:-30}
all=$(LLMB_PROBE_GATHER=1 timeout -k 2 "$bound" "${BASH:-bash}" "$0" "$out" "$job" "$phase")
rc=$?
line=${all%%$'\n'*} rest=
[ "$line" = "$all" ] || rest=${all#*$'\n'}$'\n'
if [ "$rc" != 0 ] || [ -z "$line" ]; then
	why="probe failed (exit $rc)"
	[ "$rc" = 124 ] && why="probe killed after $bound s"
	jsv jn "$node"
	jsv jw "$why"
	line="{\"node\":$jn,\"status\":\"failed\",\"why\":$jw}"
	rest=$'warn\tprobe\t'"$why"$'\n'
	echo "llmb: node $node: $why; the run goes on" >&2
fi
if [ "$phase" = after ]; then
	put "probe-after.$job.$node.json" "$line"$'\n'
	exit 0
fi
put "probe.$job.$node.json" "$line"$'\n'
[ "$policy" = off ] || put "preflight.$job.$node" "$rest"
exit 0
