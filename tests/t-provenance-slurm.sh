#!/usr/bin/env bash
# t-provenance-slurm: provenance on the emulated two-node Slurm cluster.
# A two-node training of the fast sq workload runs the per-node probe as
# one task per node (srun --ntasks-per-node=1) through the nvidia-smi
# stand-in, with lowered clocks on n2; provenance.json holds both nodes
# (and their samples after training, for the run's validity),
# the scheduler's facts from sacct, and `llmb diff` against a run with
# normal clocks names n2's clocks, and the NCCL variable the second run's
# caller set (its rank-0 task's environment in provenance, HF_TOKEN's value
# nowhere). Starts a cluster: run it under the
# machine-wide Slurm test lock.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
unset SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_GPUS_PER_NODE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC
export SLURM_CI_NODES=2 SLURM_CI_CPUS=${SLURM_CI_CPUS:-8} SLURM_CI_MIN_JOB_AGE=${SLURM_CI_MIN_JOB_AGE:-3600}
if [ -z "${SLURM_CI_ACCOUNTING+x}" ] && command -v mariadbd >/dev/null 2>&1; then
	export SLURM_CI_ACCOUNTING=1 # sacct answers for finished jobs
fi
t_ok "two-node cluster is up" slurm_test_up || { t_done; exit 1; }
export PATH=$TESTS_DIR/provenance/bin:$PATH
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

T=$TRASH/top
# scale 4 of the cpu "GPU" (two ranks per node): two nodes
t_sq_checkout "$T" 4
I=$TRASH/inst
R=$I/workloads/sq/experiments/cpu_tiny_fp32_4
MK=(make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR=slurm WORKLOAD=sq train)

t_ok "a two-node training with normal clocks" env LLMB_POLL_SECONDS=1 "${MK[@]}"
P=$R/provenance.json
cp "$P" "$TRASH/a.json"
t_ok "provenance: both nodes probed, all ok" test "$(jget "$P" '" ".join(k + ":" + v["status"] for k, v in sorted(d["nodes"].items()))')" = "n1:ok n2:ok"
t_ok "provenance: both nodes sampled again after training (the job's second srun step)" \
	test "$(jget "$P" '" ".join(k + ":" + v["status"] + ":" + str(len(v["gpus"])) for k, v in sorted(d["nodes_after"].items()))')" = "n1:ok:2 n2:ok:2"
t_ok "provenance: sacct's node list, partition and exit code" python3 - "$P" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
assert m["executor"] == "slurm" and m["job"].isdigit(), m
assert m["nodes"] == "n[1-2]", m["nodes"]
assert isinstance(m["partition"], str) and m["exit_code"] == "0:0", m
for k in ("submit", "start", "end"): assert isinstance(m[k], str) and m[k][:2] == "20", (k, m[k])
EOF

# NCCL_IB_QPS_PER_CONNECTION in the caller's shell is part of the
# training's configuration: the training runs again, the data task not.
t_ok "plan without the variable: nothing to run" "${MK[@]}" -n
t_nogrep "...no stage" 'llmb run ' "$TRASH/.out"
t_ok "plan with NCCL_IB_QPS_PER_CONNECTION=4" env NCCL_IB_QPS_PER_CONNECTION=4 "${MK[@]}" -n
cp "$TRASH/.out" "$TRASH/plan-env.out"
t_grep "...runs the training again" 'llmb run .* train\.sq\.cpu\.tiny\.fp32\.4$' "$TRASH/plan-env.out"
t_ok "...and nothing else (not the data task)" test "$(grep -c 'llmb run ' "$TRASH/plan-env.out")" = 1
rm -f "$I/state/done/train.sq.cpu.tiny.fp32.4"
# Accounting that has not yet recorded the job's end when the job's exit
# record is there: the first answer to the provenance's query has the
# partition but End "Unknown", as a busy slurmdbd gives for a job it still
# holds running; llmb asks again, and records the real answer.
LAG=$TRASH/lagbin REAL_SACCT=$(command -v sacct)
mkdir -p "$LAG"
cat >"$LAG/sacct" <<EOF
#!/bin/sh
case "\$*" in *Partition,QOS,Reservation*)
	if mkdir "$LAG/answered" 2>/dev/null; then
		echo 'debug|normal||n[1-2]|2000-01-01T00:00:00|2000-01-01T00:00:01|Unknown|0:0'
		exit
	fi ;;
esac
exec "$REAL_SACCT" "\$@"
EOF
chmod +x "$LAG/sacct"
t_ok "a second run with lowered clocks on n2, NCCL_IB_QPS_PER_CONNECTION=4 and HF_TOKEN in the caller's shell" \
	env PATH="$LAG:$PATH" LLMB_POLL_SECONDS=1 NVSMI_STANDIN_SLOW=n2 NCCL_IB_QPS_PER_CONNECTION=4 \
	HF_TOKEN=hf_envrecSLURMsecret "${MK[@]}"
t_ok "accounting without the job's end at first: llmb asked again, and has it" \
	python3 -c 'import json, sys, os; m = json.load(open(sys.argv[1]))["machine"]; assert os.path.isdir(sys.argv[2]) and m["end"][:2] == "20" and m["submit"][:4] != "2000", m' "$R/provenance.json" "$LAG/answered"
t_rc "llmb diff: different" 1 "$TOP/build/llmb" diff "$TRASH/a.json" "$R"
cp "$TRASH/.out" "$TRASH/diff.out"
t_grep "llmb diff names n2's SM clock" '^  n2\.gpus\[0\]\.clocks\.sm: 1980 -> 1410$' "$TRASH/diff.out"
t_nogrep "llmb diff names no field of n1" '^  n1\.' "$TRASH/diff.out"
t_grep "llmb diff names the caller's NCCL variable" '^  environment\.NCCL_IB_QPS_PER_CONNECTION: unset -> 4$' "$TRASH/diff.out"
t_ok "provenance: the variable as configured, and in the job's rank-0 task (srun), HF_TOKEN redacted" python3 - "$R/provenance.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["configuration"]["environment"] == {"NCCL_IB_QPS_PER_CONNECTION": "4"}, d["configuration"]
v = d["job_environment"]["variables"]
assert v["SLURM_PROCID"] == "0" and v["NCCL_IB_QPS_PER_CONNECTION"] == "4" and v["HF_TOKEN"] == "<redacted>", v
EOF
# shellcheck disable=SC2016 # for sh -c
t_ok "the secret's value is in no file of the install tree, the rules or the job logs" \
	sh -c '! grep -rlI -e hf_envrecSLURMsecret "$0" "$1"' "$I" "$TRASH/gen"
t_done
