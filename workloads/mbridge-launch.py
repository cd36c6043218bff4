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

Profiling (the run knobs ENABLE_PROFILE, ENABLE_PYTORCH_PROFILE,
ENABLE_GPU_METRICS, PROFILE_START_STEP/STOP_STEP, PROFILE_RANKS) is what
setup_experiment.py's plugins do with launch.sh's flags (--enable_nsys
--nsys_trace --nsys_extra_args=--nvtx-domain-include=NCCL --profiling_*
--pytorch_profiler): NsysPlugin and PyTorchProfilerPlugin append their
profiling.* overrides to the arguments, and for nsys NeMo-Run's launcher
puts ``nsys profile -s none -t TRACE -o DIR/nsys_profile/profile_%p_...
--nvtx-domain-include=NCCL <launcher defaults>`` before the task's command,
with ``--gpu-metrics-devices=SLURM_LOCALID`` on the nodes GPU_METRICS_NODES
names (llmb-run's default: node 0). DIR is the run's directory (NeMo-Run's
job directory), so the reports land in DIR/nsys_profile and the PyTorch
profiler's in DIR/torch_profile, where llmb lists them. The nsys is the
container's (on PATH) unless --nsys names another.

Checkpoints (ENABLE_CHECKPOINT, CHECKPOINT_INTERVAL, CHECKPOINT_DIR and
LOAD_CHECKPOINT_PATH) become launch.sh's --save_interval, --save_dir and
--load_dir. Without CHECKPOINT_DIR the checkpoints go to DIR/checkpoints
(DIR the run's directory, --profile-dir), where upstream's land: there
Megatron-Bridge's default, /nemo_run/checkpoints, is NeMo-Run's job
directory, which llmb's job does not mount. Megatron-Bridge loads only
where its checkpoint_exists finds a checkpoint and otherwise trains from
scratch without a word; this driver refuses such a --load-dir (exit 4)
before the training starts, naming LOAD_CHECKPOINT_PATH.

``--print-plan`` prints what the entry point would receive (argv, the
binding, the performance environment, HF_TOKEN masked) as JSON and starts
nothing. Exit status: 0 ok, 2 usage, 4 no checkpoint at --load-dir, 3 no
entry point in the clone or no
numactl, otherwise the training's own.
"""

import argparse
import json
import os
import shutil
import sys

PROG = "mbridge-launch"
EXIT_USAGE, EXIT_MISSING, EXIT_NO_CHECKPOINT = 2, 3, 4
# Megatron-Bridge 06f25c2 training/utils/checkpoint_utils.py checkpoint_exists:
# an iteration directory holds one of these ...
CKPT_MARKERS = ("run_config.yaml", "train_state.pt", "metadata.json", ".metadata")
# ... a checkpoint directory one of these trackers
CKPT_TRACKERS = ("latest_train_state.pt", "latest_checkpointed_iteration.txt")
ENTRY = "scripts/performance/run_script.py"
# NeMo-Run's task gets these from setup_experiment.py's PerfEnvPlugin; the
# recipe's arguments never name them.
PLUGIN_OVERRIDES = ["train.manual_gc=true", "train.manual_gc_interval=100"]
# NeMo-Run 211d4b7 launcher.py: Launcher.nsys_extra_args' defaults, after the
# plugin's own (launch.sh's --nsys_extra_args); perf_plugins.py: the Slurm
# file name (%q{VAR} is nsys's expansion of the task's environment).
NSYS_EXTRA = ["--nvtx-domain-include=NCCL", "--force-overwrite=true", "--capture-range=cudaProfilerApi",
              "--capture-range-end=stop", "--cuda-graph-trace=node", "--cuda-event-trace=false"]
NSYS_FILE = "profile_%p_%q{SLURM_JOB_ID}_node%q{SLURM_NODEID}_rank%q{SLURM_PROCID}"
# The environment the plan shows: the families Megatron-Bridge's executor
# and plugins set, and the Hugging Face and PyTorch ones the job passes.
ENV_PREFIXES = ("CUDA_", "NCCL_", "NVTE_", "TORCH_", "PYTORCH_", "HF_", "TRANSFORMERS_", "TOKENIZERS_",
                "OPENBLAS_", "NVLINK_", "USE_MNNVL", "NUM_OF_", "PYTHONPATH")
SECRETS = ("HF_TOKEN",)


def die(code, msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


def flag(v):
    """A knob's {placeholder}: 0 or 1."""
    if v not in ("0", "1"):
        raise ValueError(v)
    return v == "1"


def parse_args(argv):
    if "--" not in argv:
        die(EXIT_USAGE, "the entry point's arguments must follow '--'")
    cut = argv.index("--")
    p = argparse.ArgumentParser(prog=PROG, add_help=True)
    p.add_argument("--mbridge-src", required=True, help="the Megatron-Bridge clone at the recipe's pinned commit")
    p.add_argument("--print-plan", action="store_true", help="print what the entry point receives and exit")
    p.add_argument("--no-pct-binding", action="store_true",
                   help="the pinned commit's executor binds no cores (it predates --enable_pct_binding)")
    p.add_argument("--profile", type=flag, default=False, metavar="0|1", help="profile with nsys")
    p.add_argument("--pytorch-profile", type=flag, default=False, metavar="0|1", help="profile with PyTorch's profiler")
    p.add_argument("--gpu-metrics", type=flag, default=False, metavar="0|1", help="nsys collects GPU metrics")
    p.add_argument("--profile-start", type=int, default=45, help="first profiled step")
    p.add_argument("--profile-stop", type=int, default=50, help="last profiled step")
    p.add_argument("--profile-ranks", default="all", help="ranks profiled: N[,N...], or all")
    p.add_argument("--nsys-trace", default="cuda,nvtx", help="what nsys traces (launch.sh's --nsys_trace)")
    p.add_argument("--profile-dir", help="where the profiles go (the run's directory)")
    p.add_argument("--nsys", default="nsys", help="the nsys to run (default: the container's, on PATH)")
    p.add_argument("--checkpoint", type=flag, default=False, metavar="0|1", help="save checkpoints")
    p.add_argument("--checkpoint-interval", type=int, default=0, help="steps between saves")
    p.add_argument("--checkpoint-dir", default="default", help="where to save (default: Megatron-Bridge's)")
    p.add_argument("--load-dir", default="none", help="the checkpoint to load, or none")
    try:
        a = p.parse_args(argv[:cut])
    except SystemExit as e:
        sys.exit(EXIT_USAGE if e.code else 0)
    a.entry_args = argv[cut + 1:]
    if a.profile and a.pytorch_profile:
        die(EXIT_USAGE, "--profile and --pytorch-profile exclude each other (as setup_experiment.py)")
    if (a.profile or a.pytorch_profile) and not a.profile_dir:
        die(EXIT_USAGE, "profiling needs --profile-dir")
    if a.checkpoint and a.checkpoint_interval < 1:
        die(EXIT_USAGE, "--checkpoint needs --checkpoint-interval of at least 1")
    if a.checkpoint and a.checkpoint_dir == "default" and not a.profile_dir:
        die(EXIT_USAGE, "--checkpoint without --checkpoint-dir needs --profile-dir (the run's directory)")
    if a.profile_ranks != "all" and not all(w.isdigit() for w in a.profile_ranks.split(",")):
        die(EXIT_USAGE, f"--profile-ranks {a.profile_ranks}: expected N[,N...] or all")
    return a


def profile_ranks(a, args):
    """The profiled ranks: the given ones, else every rank for nsys (launch.sh),
    rank 0 for the PyTorch profiler (the plugin's default)."""
    if a.profile_ranks != "all":
        ranks = [int(w) for w in a.profile_ranks.split(",")]
    elif a.profile:
        try:
            ranks = list(range(int(option(args, "-ng", "--num_gpus") or "")))
        except ValueError:
            die(EXIT_USAGE, "the entry point's arguments name no --num_gpus, which nsys's ranks need")
    else:
        ranks = [0]
    n = option(args, "-ng", "--num_gpus")
    if n and n.isdigit() and any(r >= int(n) for r in ranks):
        die(EXIT_USAGE, f"--profile-ranks {a.profile_ranks}: the job has ranks 0 to {int(n) - 1}")
    return "[" + ",".join(str(r) for r in ranks) + "]"


def profiling(a, args, env, node_id, local_id):
    """The profiling overrides the plugins append, and the nsys prefix."""
    if not (a.profile or a.pytorch_profile):
        return [], []
    ranks = profile_ranks(a, args)
    common = [f"profiling.profile_step_start={a.profile_start}", f"profiling.profile_step_end={a.profile_stop}",
              f"profiling.profile_ranks={ranks}"]
    if a.pytorch_profile:
        snap = os.path.join(a.profile_dir, "pytorch_profile", "snapshot.pickle")
        return (["profiling.use_pytorch_profiler=true"] + common +
                ["profiling.record_memory_history=true", f"profiling.memory_snapshot_path={snap}",
                 "profiling.record_shapes=false"], [])
    out = os.path.join(a.profile_dir, "nsys_profile", NSYS_FILE)
    prefix = [a.nsys, "profile", "-s", "none", "-t", a.nsys_trace, "-o", out] + NSYS_EXTRA
    if a.gpu_metrics and str(node_id) in env.get("GPU_METRICS_NODES", "0").replace(",", " ").split():
        prefix.append(f"--gpu-metrics-devices={local_id}")
    return ["profiling.use_nsys_profiler=true"] + common + ["profiling.record_shapes=false"], prefix


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


def checkpoint_exists(path):
    """Megatron-Bridge's checkpoint_exists: an iteration directory, or a
    checkpoint directory with a tracker."""
    return any(os.path.exists(os.path.join(path, m)) for m in CKPT_MARKERS + CKPT_TRACKERS[:1]) or \
        os.path.isfile(os.path.join(path, CKPT_TRACKERS[1]))


def main(argv):
    a = parse_args(argv)
    src = os.path.abspath(a.mbridge_src)
    perf = os.path.join(src, "scripts", "performance")
    entry = os.path.join(src, ENTRY)
    args = a.entry_args + PLUGIN_OVERRIDES
    try:
        local_id = int(os.environ.get("SLURM_LOCALID", os.environ.get("LOCAL_RANK", "0")))
        node_id = int(os.environ.get("SLURM_NODEID", "0"))
    except ValueError:
        die(EXIT_USAGE, "SLURM_LOCALID or SLURM_NODEID is not a number")
    env = dict(os.environ)
    env["PYTHONPATH"] = perf + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    numa = binding(args, local_id, a.no_pct_binding)
    prof_args, nsys = profiling(a, args, env, node_id, local_id)
    args += prof_args
    # launch.sh's CONFIG_OVERRIDES: the entry point's own options
    if a.checkpoint:
        save = a.checkpoint_dir if a.checkpoint_dir != "default" else os.path.join(a.profile_dir, "checkpoints")
        args += [f"--save_dir={save}", f"--save_interval={a.checkpoint_interval}"]
    if a.load_dir != "none":
        args += [f"--load_dir={a.load_dir}"]
    argv_out = nsys + numa + [sys.executable, entry] + args
    if a.print_plan:
        shown = shown_args(args, env)
        plan = {"entry_point": ENTRY, "mbridge_src": src, "numactl": numa[1:], "args": shown, "env": shown_env(env)}
        if nsys:
            plan["nsys"] = nsys
        print(json.dumps(plan, indent=1))
        return 0
    if not os.path.isfile(entry):
        die(EXIT_MISSING, f"{entry}: no Megatron-Bridge performance entry point in the clone")
    if a.load_dir != "none" and not checkpoint_exists(a.load_dir):
        die(EXIT_NO_CHECKPOINT, f"LOAD_CHECKPOINT_PATH={a.load_dir}: no Megatron-Bridge checkpoint there (an iteration "
            f"directory holds one of {', '.join(CKPT_MARKERS)}; a checkpoint directory {' or '.join(CKPT_TRACKERS)}): "
            "Megatron-Bridge would load nothing and train from scratch")
    if not shutil.which("numactl", path=env.get("PATH")):
        die(EXIT_MISSING, "numactl is not on PATH in the container: Megatron-Bridge binds every task with it")
    if nsys and not shutil.which(a.nsys, path=env.get("PATH")):
        die(EXIT_MISSING, f"{a.nsys}: no nsys in the container, which ENABLE_PROFILE needs")
    if nsys:
        os.makedirs(os.path.join(a.profile_dir, "nsys_profile"), exist_ok=True)
    sys.stdout.flush()
    os.execvpe(argv_out[0], argv_out, env)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
