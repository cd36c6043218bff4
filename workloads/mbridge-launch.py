#!/usr/bin/env python3
"""mbridge-launch: runs Megatron-Bridge's performance entry point in one task of llmb's job.

Upstream (NVIDIA's LLM benchmarking recipes, v26.06.01) starts
``scripts/performance/setup_experiment.py`` on a login node. That script
hands NeMo-Run a ``run.Script`` of ``scripts/performance/run_script.py``
with its own command line (less ``--additional_slurm_params``), and
NeMo-Run's SlurmExecutor writes and submits an sbatch job whose srun runs,
in every task and in the container,

    bash -c '<print_sha.sh> ; numactl --cpunodebind=$((SLURM_LOCALID/D))
             --membind=$((SLURM_LOCALID/D)) python run_script.py ARGS
             train.manual_gc=true train.manual_gc_interval=100'

with PYTHONPATH=scripts/performance first (scripts/performance/utils/
executors.py: the numactl binding, D 2 on GB200/GB300 and 4 elsewhere;
perf_plugins.py: the manual GC overrides).

llmb writes and submits the job itself, so that it always knows the job id
it tracks; the recipe states the entry point's arguments and environment
(train.cmd, train.env and each config row's args and env) and this driver,
started once per task by srun, only does what NeMo-Run's task does: the
numactl binding from SLURM_LOCALID, PYTHONPATH, then exec of the entry
point of the pinned clone with the arguments after ``--``, unchanged.

``--print-plan`` prints what the entry point would receive (argv, the
binding, the performance environment, HF_TOKEN masked) as JSON and starts
nothing. Exit status: 0 ok, 2 usage, 3 no entry point in the clone or no
numactl, otherwise the training's own.
"""

import argparse
import json
import os
import shutil
import sys

PROG = "mbridge-launch"
EXIT_USAGE, EXIT_MISSING = 2, 3
ENTRY = "scripts/performance/run_script.py"
# NeMo-Run's task gets these from setup_experiment.py's PerfEnvPlugin; the
# recipe's arguments never name them.
PLUGIN_OVERRIDES = ["train.manual_gc=true", "train.manual_gc_interval=100"]
# The environment the plan shows: the families Megatron-Bridge's executor
# and plugins set, and the Hugging Face and PyTorch ones the job passes.
ENV_PREFIXES = ("CUDA_", "NCCL_", "NVTE_", "TORCH_", "PYTORCH_", "HF_", "TRANSFORMERS_", "TOKENIZERS_",
                "OPENBLAS_", "NVLINK_", "USE_MNNVL", "NUM_OF_", "PYTHONPATH")
SECRETS = ("HF_TOKEN",)


def die(code, msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


def parse_args(argv):
    if "--" not in argv:
        die(EXIT_USAGE, "the entry point's arguments must follow '--'")
    cut = argv.index("--")
    p = argparse.ArgumentParser(prog=PROG, add_help=True)
    p.add_argument("--mbridge-src", required=True, help="the Megatron-Bridge clone at the recipe's pinned commit")
    p.add_argument("--print-plan", action="store_true", help="print what the entry point receives and exit")
    p.add_argument("--no-pct-binding", action="store_true",
                   help="the pinned commit's executor binds no cores (it predates --enable_pct_binding)")
    try:
        a = p.parse_args(argv[:cut])
    except SystemExit as e:
        sys.exit(EXIT_USAGE if e.code else 0)
    a.entry_args = argv[cut + 1:]
    return a


def option(args, *names):
    """The value of the last of names in args (--opt v or --opt=v), or None."""
    val = None
    for i, w in enumerate(args):
        for n in names:
            if w == n and i + 1 < len(args):
                val = args[i + 1]
            elif w.startswith(n + "="):
                val = w[len(n) + 1:]
    return val


def binding(args, local_id, no_pct=False):
    """executors.py's numactl words for the task with SLURM_LOCALID local_id."""
    gpu = (option(args, "-g", "--gpu") or "").lower()
    if not gpu:
        die(EXIT_USAGE, "the entry point's arguments name no --gpu")
    div = 2 if gpu in ("gb200", "gb300") else 4
    node = local_id // div
    words = ["numactl", f"--cpunodebind={node}", f"--membind={node}"]
    # setup_experiment.py turns PCT binding off for Llama pretraining on
    # B300; the executor adds the core list only where it stays on.
    pct = (option(args, "--enable_pct_binding") or "true").lower() in ("true", "1", "t", "yes", "y")
    if gpu == "b300" and pct and not no_pct:
        words += ["-C", f"{local_id * 16},{local_id * 16 + 1}"]
    return words


def shown_args(args, env):
    """args with the token masked: the word after -hf or --hf_token, the value
    of -hf=V or --hf_token=V (or an abbreviation argparse takes), and any word
    that is a secret's value."""
    secrets = {env[k] for k in SECRETS if env.get(k)}

    def is_token_opt(n):
        return n == "-hf" or (len(n) >= 4 and "--hf_token".startswith(n))
    out = []
    for i, w in enumerate(args):
        name = w.split("=", 1)[0]
        if i > 0 and is_token_opt(args[i - 1]) or w in secrets:
            w = "***"
        elif "=" in w and is_token_opt(name):
            w = name + "=***"
        out.append(w)
    return out


def shown_env(env):
    out = {}
    for k in sorted(env):
        if k.startswith(ENV_PREFIXES):
            out[k] = "***" if k in SECRETS else env[k]
    return out


def main(argv):
    a = parse_args(argv)
    src = os.path.abspath(a.mbridge_src)
    perf = os.path.join(src, "scripts", "performance")
    entry = os.path.join(src, ENTRY)
    args = a.entry_args + PLUGIN_OVERRIDES
    try:
        local_id = int(os.environ.get("SLURM_LOCALID", os.environ.get("LOCAL_RANK", "0")))
    except ValueError:
        die(EXIT_USAGE, "SLURM_LOCALID is not a number")
    env = dict(os.environ)
    env["PYTHONPATH"] = perf + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    numa = binding(args, local_id, a.no_pct_binding)
    argv_out = numa + [sys.executable, entry] + args
    if a.print_plan:
        shown = shown_args(args, env)
        print(json.dumps({"entry_point": ENTRY, "mbridge_src": src, "numactl": numa[1:], "args": shown,
                          "env": shown_env(env)}, indent=1))
        return 0
    if not os.path.isfile(entry):
        die(EXIT_MISSING, f"{entry}: no Megatron-Bridge performance entry point in the clone")
    if not shutil.which("numactl", path=env.get("PATH")):
        die(EXIT_MISSING, "numactl is not on PATH in the container: Megatron-Bridge binds every task with it")
    sys.stdout.flush()
    os.execvpe(argv_out[0], argv_out, env)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
