#!/usr/bin/env python3
"""nemo-inproc: runs a NeMo 2.0 performance script's training inside llmb's job.

Upstream (NVIDIA's LLM benchmarking recipes) starts
``python3 -m scripts.performance.llm.<script> ... slurm ...`` on a login
node. That script builds the recipe (``pretrain_recipe`` /
``finetune_recipe``, ``get_user_configs``, ``override_recipe_configs``,
``set_primary_perf_configs``, plugins) and hands it to NeMo-Run, whose
SlurmExecutor writes and submits its own sbatch job. Inside that job every
task runs ``python -m nemo_run.core.runners.fdl_runner <serialized task>``
in the container, with the executor's environment exported and, when
profiling, behind ``nsys profile``.

llmb writes and submits the job itself, so that it always knows the job id
it tracks. It runs this driver once per task (srun with pyxis). On every
task the driver

1. runs the performance script itself, unchanged, as ``__main__`` with the
   flags upstream's launch.sh passes: every model setting (parallelism,
   batch sizes, sequence length, FP8 recipe, CUDA graphs, layer count and
   hidden size overrides, max_steps, profiling, NCCL trace, checkpointing)
   comes from NeMo's own code at the recipe's pinned commit. Nothing here
   restates a model configuration;
2. replaces only ``nemo_run.Experiment`` (and ``nemo_run.run``) with a
   recorder: ``exp.add(task, executor=..., plugins=...)`` is recorded and the
   plugins are set up on the task and executor exactly as NeMo-Run's
   Experiment does; ``exp.run()`` submits nothing;
3. replaces itself (exec) with the program NeMo-Run's job would run in this
   task: ``python -m nemo_run.core.runners.fdl_runner -n <name>
   <serialized task>``, with the executor's environment variables, behind
   the executor launcher's nsys prefix when the script asked for profiling,
   through the launcher's Slurm template when the script's executor has one
   (NeMo 1f422a1 puts its numactl binding there), and under the numactl
   binding the executor appends to its srun arguments (NeMo 00b778e),
   evaluated in each task by a small shell wrapper. Ranks come from srun
   (SLURM_PROCID, SLURM_LOCALID, SLURM_NTASKS), as in NeMo-Run's own jobs,
   which also start one process per task.

Which NeMo-Run: upstream runs the performance script on the login node in
the venv, which holds the recipe's pinned NeMo-Run, and the job's task
runner in the container, which holds the image's. The driver does the
same: ``--nemo-run-src`` (the pinned clone in the venv) goes first on
sys.path for the script, next to ``--nemo-src``, while fdl_runner runs on
the container's NeMo-Run (neither clone is put on its PYTHONPATH for
NeMo-Run's sake).

Node setup: with LLMB_NODE_SETUP=FILE in the environment (the job's setup
step, train.node_setup), the driver runs the script and sets the plugins up
as above, then writes the executor's setup lines (NeMo's PerfEnvPlugin:
``sudo nvidia-smi boost-slider --vboost 1``) to FILE, one ``name<TAB>
command`` a line, and exits without training; workloads/node-setup.sh runs
them once per node on the host, as upstream's sbatch script does before its
srun.

``--print-plan`` prints what the driver would do without importing NeMo.
``--resolve-only`` (needs NeMo) builds the run and prints it instead of
running it. Exit status: 0 ok, 2 usage, 3 NeMo/NeMo-Run not importable,
4 the performance script did not produce exactly what the driver can run,
otherwise the training's own status.
"""

import argparse
import json
import os
import re
import runpy
import shlex
import sys

PROG = "nemo-inproc"
EXIT_USAGE, EXIT_NO_NEMO, EXIT_UNEXPECTED = 2, 3, 4


def say(msg):
    print(f"{PROG}: {msg}", flush=True)


def die(code, msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


def rank0():
    return os.environ.get("SLURM_PROCID", os.environ.get("RANK", "0")) == "0"


# ---- arguments --------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Run a NeMo 2.0 performance script's training task in this process's Slurm task "
        "instead of letting NeMo-Run submit a job. Performance-script flags follow '--'.",
    )
    p.add_argument("--script", required=True, help="performance script module, e.g. scripts.performance.llm.pretrain_nemotron4_15b")
    p.add_argument("--nemo-src", required=True, help="NeMo checkout at the recipe's pinned commit (holds scripts/performance)")
    p.add_argument("--nemo-run-src", default=None,
                   help="NeMo-Run checkout at the recipe's pinned commit (the venv's clone): the script imports it, "
                   "as upstream runs the script in the venv; fdl_runner keeps the container's")
    p.add_argument("--log-dir", required=True, help="the run's directory: NEMORUN_HOME, --log_dir, working directory, nsys output")
    p.add_argument("--profile", type=int, choices=[0, 1], default=0, help="1: pass -en and the profiling steps (nsys)")
    p.add_argument("--profile-start", type=int, default=None)
    p.add_argument("--profile-stop", type=int, default=None)
    p.add_argument("--nccltrace", type=int, choices=[0, 1], default=0, help="1: pass -nt (NCCL_DEBUG=INFO trace)")
    p.add_argument("--hf-token-from-env", action="store_true",
                   help="pass -hf with the value of HF_TOKEN from the environment when it is set, as launch.sh does")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--print-plan", action="store_true", help="print the plan and exit; does not import NeMo")
    mode.add_argument("--resolve-only", action="store_true", help="build the run with NeMo and print it; run nothing")
    if "--" not in argv:
        p.print_usage(sys.stderr)
        die(EXIT_USAGE, "the performance-script flags must follow '--'")
    i = argv.index("--")
    a = p.parse_args(argv[:i])
    a.perf = argv[i + 1:]
    if "slurm" not in a.perf:
        die(EXIT_USAGE, "the performance-script flags must select the 'slurm' executor, as upstream's launch.sh does "
            "(the driver records that executor's settings and runs its task here)")
    if a.profile and (a.profile_start is None or a.profile_stop is None):
        die(EXIT_USAGE, "--profile 1 needs --profile-start and --profile-stop")
    if a.profile and a.nccltrace:
        die(EXIT_USAGE, "--profile 1 and --nccltrace 1 exclude each other (the scripts give nsys precedence)")
    return a


def perf_argv(a, env):
    """The performance script's argv: upstream's flags, the knob flags before
    the executor subcommand, the Slurm account and partition after it."""
    i = a.perf.index("slurm")
    main, sub = list(a.perf[:i]), list(a.perf[i + 1:])
    if a.profile:
        main += ["-en", "--profiling_start_step", str(a.profile_start), "--profiling_stop_step", str(a.profile_stop)]
    if a.nccltrace:
        main += ["-nt"]
    if a.hf_token_from_env and env.get("HF_TOKEN"):
        main += ["-hf", env["HF_TOKEN"]]
    # Required by the scripts' slurm subparser; the executor they configure
    # is never submitted, so these only label it.
    if not ({"-a", "--account"} & set(sub)):
        sub += ["--account", env.get("SLURM_JOB_ACCOUNT") or env.get("SBATCH_ACCOUNT") or "llmb"]
    if not ({"-p", "--partition"} & set(sub)):
        sub += ["--partition", env.get("SLURM_JOB_PARTITION") or env.get("SBATCH_PARTITION") or "llmb"]
    if not ({"-l", "--log_dir"} & set(sub)):
        sub += ["--log_dir", a.log_dir]
    return main + ["slurm"] + sub


def masked(argv):
    out, hide = [], False
    for w in argv:
        out.append("<HF_TOKEN>" if hide else w)
        hide = w in ("-hf", "--hf_token")
    return out


def plan(a, env):
    return {
        "script": a.script,
        "sys_path_first": [p for p in (a.nemo_src, a.nemo_run_src) if p],
        "environment_before_import": {"NEMORUN_HOME": a.log_dir},
        "working_directory": a.log_dir,
        "argv": masked([a.script] + perf_argv(a, env)),
        "replaced": ["nemo_run.Experiment", "nemo_run.run"],
        "then": "set up each added task's plugins on it and its executor, as NeMo-Run's Experiment.add does; "
                "exec python -m nemo_run.core.runners.fdl_runner -n <name> <serialized task> in this task, "
                "with the executor's env_vars, its launcher's nsys prefix and Slurm template when set, "
                "under the numactl binding of its srun arguments when there is one; with LLMB_NODE_SETUP=FILE, "
                "write the executor's setup lines to FILE instead (the job's node setup step)",
        "rank": {k: env.get(k) for k in ("SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_NTASKS")
                 if env.get(k) is not None},
    }


# ---- NeMo side ----------------------------------------------------------------


class Recorder:
    """Stands in for nemo_run.Experiment: records what the script adds."""

    jobs = []
    ran = False

    def __init__(self, *args, **kwargs):
        self.title = kwargs.get("title", args[0] if args else "")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def add(self, task, executor=None, name="", plugins=None, tail_logs=False, dependencies=None, **kwargs):
        if isinstance(task, list):
            die(EXIT_UNEXPECTED, "the script adds a task group; the driver runs single tasks only")
        Recorder.jobs.append({"task": task, "executor": executor, "name": name, "plugins": list(plugins or [])})
        return name

    def run(self, *args, **kwargs):
        Recorder.ran = True

    def dryrun(self, *args, **kwargs):
        die(EXIT_USAGE, "the script was asked for its own dry run (-d); use --resolve-only instead")


def record_run(fn_or_script, executor=None, plugins=None, name="", **kwargs):
    """Stands in for nemo_run.run(...)."""
    if plugins is not None and not isinstance(plugins, list):
        plugins = [plugins]
    Recorder.jobs.append({"task": fn_or_script, "executor": executor, "name": name, "plugins": plugins or []})
    Recorder.ran = True


def import_nemo(a):
    sys.path[0:0] = [p for p in (a.nemo_src, a.nemo_run_src) if p]
    try:
        import nemo_run  # noqa: F401
        import nemo  # noqa: F401
        from nemo_run.core.serialization.zlib_json import ZlibJSONSerializer  # noqa: F401
    except Exception as e:  # ImportError, or a dependency failing at import
        die(EXIT_NO_NEMO, f"NeMo and NeMo-Run are not importable by {sys.executable} ({type(e).__name__}: {e}). "
            "This driver runs inside the NeMo container of the recipe, with the NeMo checkout given by --nemo-src; "
            "use --print-plan to see what it would do without NeMo")
    where = os.path.realpath(getattr(nemo_run, "__file__", None) or "?")
    if a.nemo_run_src and not where.startswith(os.path.realpath(a.nemo_run_src) + os.sep):
        die(EXIT_NO_NEMO, f"the pinned NeMo-Run checkout {a.nemo_run_src} was not imported "
            f"(nemo_run came from {where}): it must hold the nemo_run package")
    return nemo_run


def run_script(a, env):
    nemo_run = import_nemo(a)
    if rank0():
        say(f"the performance script imports NeMo-Run from {os.path.dirname(nemo_run.__file__)}"
            + (" (the pinned checkout)" if a.nemo_run_src else "") + "; fdl_runner runs on the container's")
    nemo_run.Experiment = Recorder
    nemo_run.run = record_run
    argv = perf_argv(a, env)
    sys.argv = [a.script] + argv
    try:
        runpy.run_module(a.script, run_name="__main__", alter_sys=True)
    except SystemExit as e:
        if e.code not in (None, 0):
            die(EXIT_UNEXPECTED, f"{a.script} exited with {e.code} before adding its task")
    except Exception as e:
        import traceback

        traceback.print_exc()
        old = " (an older NeMo-Run than the script's pin? --nemo-run-src gives the pinned clone)" \
            if isinstance(e, TypeError) and "keyword" in str(e) else ""
        die(EXIT_UNEXPECTED, f"{a.script} raised {type(e).__name__}: {e}{old}")
    if not Recorder.jobs:
        die(EXIT_UNEXPECTED, f"{a.script} added no task to its experiment")
    if not Recorder.ran:
        die(EXIT_UNEXPECTED, f"{a.script} added tasks but did not run its experiment")
    return nemo_run


def set_up(job, log_dir):
    """What NeMo-Run's Experiment.add does before launching: clone the task
    and executor, assign the executor, set the plugins up on both."""
    task, executor = job["task"], job["executor"]
    if executor is None:
        die(EXIT_UNEXPECTED, f"task {job['name']!r} has no executor")
    name = job["name"] or "task"
    executor = executor.clone() if hasattr(executor, "clone") else executor
    task = task.clone() if hasattr(task, "clone") else task
    if hasattr(executor, "assign"):
        executor.assign(name, os.path.join(log_dir, "nemo-inproc"), task_id=name, task_dir=name)
    for plugin in job["plugins"]:
        if hasattr(plugin, "assign"):
            plugin.assign(name)
        plugin.setup(task, executor)
    return name, task, executor


def check_world(task, executor, env):
    """The job llmb submitted must have the shape the script configured."""
    ntasks = env.get("SLURM_NTASKS")
    trainer = getattr(task, "trainer", None)
    if ntasks is None or trainer is None:
        return
    want = getattr(trainer, "num_nodes", None), getattr(trainer, "devices", None)
    if None in want:
        return
    if int(ntasks) != want[0] * want[1]:
        die(EXIT_UNEXPECTED, f"the script configured {want[0]} nodes x {want[1]} devices, "
            f"but this job step has {ntasks} tasks")
    per_node = env.get("SLURM_NTASKS_PER_NODE", "").split("(")[0]
    if per_node.isdigit() and int(per_node) != want[1]:
        die(EXIT_UNEXPECTED, f"the script configured {want[1]} devices per node, but this job step runs "
            f"{per_node} tasks per node")


def command(name, task, executor, log_dir, nemo_src, env):
    from nemo_run.core.serialization.zlib_json import ZlibJSONSerializer

    serialized = ZlibJSONSerializer().serialize(task)
    cmd = [sys.executable, "-m", "nemo_run.core.runners.fdl_runner", "-n", name]
    if len(serialized) < 100000:
        cmd.append(serialized)
    else:  # beyond what one argv word should carry: a file, as NeMo-Run does
        d = os.path.join(log_dir, "nemo-inproc", "configs")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, f"{name}.{env.get('SLURM_JOB_ID', 'nojob')}.{env.get('SLURM_PROCID', '0')}.cfg")
        with open(path, "w") as f:
            f.write(serialized)
        cmd.append(path)
    notes = []
    launcher = executor.get_launcher() if hasattr(executor, "get_launcher") else None
    if launcher is not None and getattr(launcher, "nsys_profile", False):
        # NeMo-Run's Slurm jobs write to /nemo_run/<nsys_folder>, their job
        # directory; here the run's directory takes its place.
        prefix = list(launcher.get_nsys_prefix(profile_dir=log_dir))
        if getattr(launcher, "nsys_gpu_metrics", False) and env.get("SLURM_PROCID", "0") == "0":
            prefix.append("--gpu-metrics-devices=all")
        os.makedirs(os.path.join(log_dir, getattr(launcher, "nsys_folder", "nsys_profile")), exist_ok=True)
        cmd = ["nsys"] + prefix + cmd
    run_env = dict(env)
    for k, v in (getattr(executor, "env_vars", None) or {}).items():
        run_env[str(k).upper()] = str(v)  # NeMo-Run exports them upper-cased
    packager = type(getattr(executor, "packager", None)).__name__
    if packager == "GitArchivePackager":
        # NeMo-Run would extract the checkout the script ran from into the
        # job and start the task there, so its NeMo is imported first.
        run_env["PYTHONPATH"] = nemo_src + (":" + run_env["PYTHONPATH"] if run_env.get("PYTHONPATH") else "")
        notes.append(f"packager GitArchivePackager: {nemo_src} first on PYTHONPATH, as NeMo-Run's extracted code")
    else:
        notes.append(f"packager {packager}: the container's NeMo runs the task, as in NeMo-Run's job")
    argv = cmd
    if launcher is not None and hasattr(launcher, "transform") and type(launcher).__name__ == "SlurmTemplate":
        script = launcher.transform(cmd)
        text = getattr(script, "inline", None)
        if text:
            argv = ["bash", "-c", text]
            notes.append("launcher SlurmTemplate: the task runs through its template (" +
                         " ".join(str(v) for v in getattr(launcher, "template_vars", {}).values()) + ")")
    numa, srun_notes = srun_args(executor)
    notes += srun_notes
    if numa:
        # Upstream's srun line ends "... numactl <binding> <task command>",
        # the binding evaluated per task; a shell wrapper does that here.
        argv = ["bash", "-c", "exec " + numa + ' "$@"', "numactl"] + argv
    cmds, other = setup_commands(getattr(executor, "setup_lines", None))
    for n, c in cmds:
        notes.append(f"setup line {n} ({c}): the job's node setup step runs it once per node on the host when "
                     "the recipe sets train.node_setup; the run's note says how it went")
    for line in other:
        notes.append(f"upstream sbatch setup line not run (not srun ... bash -c COMMAND): {line}")
    return argv, run_env, notes


# NeMo 00b778e appends this binding to the srun arguments; nothing else
# reaches the shell wrapper.
NUMACTL = re.compile(r"numactl( --(cpunodebind|membind)=\$\(\(SLURM_LOCALID/[1-9][0-9]*\)\))+")


def srun_args(executor):
    """The executor's srun arguments: the numactl binding to apply, and what
    llmb's own srun line does with the others."""
    numa, notes = None, []
    for w in getattr(executor, "srun_args", None) or []:
        w = str(w)
        if w.startswith("numactl ") and NUMACTL.fullmatch(w) and numa is None:
            numa = w
            notes.append(f"upstream srun argument {w}: applied, evaluated in each task")
        elif w.startswith("--mpi=") or w in ("--container-writable", "--no-container-mount-home"):
            notes.append(f"upstream srun argument {w}: on llmb's srun line when the recipe's train.srun sets it")
        elif w.startswith("--container-env="):
            notes.append(f"upstream srun argument {w.split('=')[0]}=...: not needed, the driver exports the "
                         "executor's environment in the task itself")
        else:
            notes.append(f"upstream srun argument not used (llmb's srun starts the task): {w}")
    return numa, notes


def setup_commands(setup_lines):
    """The host commands of an executor's setup lines. NeMo's plugins add
    ``srun --ntasks=<nodes> --output F --error F bash -c '<command>'``; the
    job's node setup step runs each command once per node itself (that
    srun's task count would follow the job's tasks per node). Returns
    [(name, command)] and the lines of any other form."""
    cmds, other = [], []
    for line in str(setup_lines or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            w = shlex.split(line)
        except ValueError:
            w = []
        if len(w) >= 4 and w[0] == "srun" and w[-3:-1] == ["bash", "-c"] and not re.search(r"[\t\n]", w[-1]):
            name = "vboost" if "--vboost" in w[-1] else f"setup{len(cmds) + 1}"
            cmds.append((name, w[-1]))
        else:
            other.append(line)
    return cmds, other


def write_node_setup(path, runs):
    """The node setup file: ``name<TAB>command`` lines, written whole."""
    lines = []
    for _, _, executor in runs:
        cmds, other = setup_commands(getattr(executor, "setup_lines", None))
        lines += [f"{n}\t{c}\n" for n, c in cmds]
        for line in other:
            say(f"node setup: setup line not run (not srun ... bash -c COMMAND): {line}")
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.writelines(lines)
    os.replace(tmp, path)
    say(f"node setup: {len(lines)} host command(s) for every node written to {path}" +
        "".join(f"\n  {w.strip()}" for w in lines))


def describe(name, argv, run_env, env, notes):
    changed = {k: v for k, v in run_env.items() if env.get(k) != v}
    if "HF_TOKEN" in changed:
        changed["HF_TOKEN"] = "<HF_TOKEN>"
    shown = [w if len(w) < 200 else w[:40] + f"...({len(w)} characters)" for w in argv]
    return {"task": name, "command": shown, "environment": dict(sorted(changed.items())), "notes": notes}


def main(argv):
    a = parse_args(argv)
    a.log_dir = os.path.abspath(a.log_dir)
    a.nemo_src = os.path.abspath(a.nemo_src)
    a.nemo_run_src = os.path.abspath(a.nemo_run_src) if a.nemo_run_src else None
    env = dict(os.environ)
    if a.print_plan:
        print(json.dumps(plan(a, env), indent=2, sort_keys=True))
        return 0
    # Upstream: NEMORUN_HOME is the --log_dir, and the scripts refuse
    # otherwise; nemo_run reads it when it is imported.
    os.environ["NEMORUN_HOME"] = a.log_dir
    env["NEMORUN_HOME"] = a.log_dir
    os.makedirs(a.log_dir, exist_ok=True)
    os.chdir(a.log_dir)
    setup_file = env.get("LLMB_NODE_SETUP")
    if setup_file and not rank0():
        return 0  # one task learns the setup lines; the others have nothing to do
    if rank0():
        say("running " + " ".join(shlex.quote(w) for w in masked([a.script] + perf_argv(a, env))) +
            " with NeMo-Run's submission replaced (llmb submitted this job)")
    run_script(a, env)
    if setup_file:
        write_node_setup(setup_file, [set_up(job, a.log_dir) for job in Recorder.jobs])
        return 0
    runs = []
    for job in Recorder.jobs:
        name, task, executor = set_up(job, a.log_dir)
        check_world(task, executor, env)
        runs.append((name,) + command(name, task, executor, a.log_dir, a.nemo_src, env))
    if a.resolve_only or rank0():
        for name, argv_, run_env, notes in runs:
            print(json.dumps(describe(name, argv_, run_env, env, notes), indent=2, sort_keys=True), flush=True)
    if a.resolve_only:
        return 0
    import subprocess

    for name, argv_, run_env, _ in runs[:-1]:
        rc = subprocess.call(argv_, env=run_env)
        if rc != 0:
            die(rc if rc > 0 else 128 - rc, f"task {name} failed with status {rc}")
    name, argv_, run_env, _ = runs[-1]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execvpe(argv_[0], argv_, run_env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
