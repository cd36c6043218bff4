"""Stand-in performance script (tests only), shaped like NeMo's: parse the
flags, configure a recipe, an executor and plugins, run the experiment."""
import argparse
import os
import shlex
import sys

import nemo_run as run


class PerfEnv(run.Plugin):
    """NeMo's PerfEnvPlugin(enable_vboost=True): the vboost setup line is an
    srun, one task per node, of bash -c 'sudo nvidia-smi ...'."""

    def setup(self, task, executor):
        if task.trainer.strategy.tp > 1:
            executor.env_vars["CUDA_DEVICE_MAX_CONNECTIONS"] = "1"
        job_dir = executor.tunnel.job_dir
        executor.setup_lines = " ".join([
            "\n# Command 0: enable vboost\n\n", "srun", f"--ntasks={executor.nodes}",
            "--output", os.path.join(job_dir, "vboost.out"), "--error", os.path.join(job_dir, "vboost.err"),
            "bash -c ", shlex.quote("sudo nvidia-smi boost-slider --vboost 1")])


class Nsys(run.Plugin):
    def __init__(self, start, stop):
        self.start, self.stop = start, stop

    def setup(self, task, executor):
        task.trainer.callbacks.append(run.Config("NsysCallback", start_step=self.start, end_step=self.stop))
        executor.get_launcher().nsys_profile = True


def parser():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cluster_type")
    s = sub.add_parser("slurm")
    s.add_argument("-a", "--account", required=True)
    s.add_argument("-p", "--partition", required=True)
    s.add_argument("-l", "--log_dir", default=os.environ.get("NEMORUN_HOME"))
    p.add_argument("--gpu", default="h100")
    p.add_argument("--container_image")
    p.add_argument("--compute_dtype", default="bf16")
    p.add_argument("--num_gpus", type=int)
    p.add_argument("--gpus_per_node", type=int, default=8)
    p.add_argument("--max_steps", type=int, default=50)
    p.add_argument("-tp", type=int, default=1)
    p.add_argument("-gb", type=int, default=8)
    p.add_argument("-en", "--enable_nsys", action="store_true")
    p.add_argument("-nt", "--enable_nccltrace", action="store_true")
    p.add_argument("--profiling_start_step", type=int, default=46)
    p.add_argument("--profiling_stop_step", type=int, default=50)
    p.add_argument("-hf", "--hf_token")
    p.add_argument("--template", action="store_true", help="test: a SlurmTemplate launcher with a pre-command")
    p.add_argument("--numa", action="store_true", help="test: the numactl srun argument of NeMo 00b778e")
    p.add_argument("--add_nothing", action="store_true", help="test: add no task")
    return p


if __name__ == "__main__":
    args = parser().parse_args()
    if args.log_dir != os.environ.get("NEMORUN_HOME"):
        print("Run `export NEMORUN_HOME=...`", file=sys.stderr)
        sys.exit(1)
    nodes = -(args.num_gpus // -args.gpus_per_node)
    recipe = run.Partial(
        "nemo.collections.llm.api.pretrain",
        trainer=run.Config("Trainer", num_nodes=nodes, devices=args.gpus_per_node, max_steps=args.max_steps,
                           strategy=run.Config("MegatronStrategy", tp=args.tp), callbacks=[]),
        data=run.Config("MockDataModule", global_batch_size=args.gb),
        precision=args.compute_dtype,
    )
    # Which NeMo-Run this script imported reaches the task runner's report.
    env = {"TRANSFORMERS_OFFLINE": "1", "NEMORUN_HOME": args.log_dir, "SCRIPT_NEMO_RUN": run.STANDIN}
    if args.hf_token:
        env.update({"HF_TOKEN": args.hf_token, "TRANSFORMERS_OFFLINE": "0"})
    plugins = [PerfEnv()]
    name = f"fake_pretrain_{args.compute_dtype}_gpus{args.num_gpus}"
    if args.enable_nsys:
        plugins.append(Nsys(args.profiling_start_step, args.profiling_stop_step))
    elif args.enable_nccltrace:
        name += "_nccltrace"
        env.update({"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "COLL,P2P,NET"})
    launcher = None
    if args.template:
        launcher = run.SlurmTemplate(template_inline="#!/usr/bin/env bash\nset -euo pipefail\nbash -c '{{ pre_cmds }} {{ command }}'\n",
                                     template_vars={"pre_cmds": "env PRECMD=applied"})
    srun_args = ["--mpi=pmix", "--container-writable", "--container-env=" + ",".join(env)]
    if args.numa:
        factor = max(1, int(args.gpus_per_node / 2))
        srun_args.append(f"numactl --cpunodebind=$((SLURM_LOCALID/{factor})) --membind=$((SLURM_LOCALID/{factor}))")
    # segment and network: the keywords NeMo 1f422a1's executor passes, which
    # an older NeMo-Run's SlurmExecutor refuses with TypeError.
    executor = run.SlurmExecutor(nodes=nodes, ntasks_per_node=args.gpus_per_node, env_vars=env,
                                 packager=run.GitArchivePackager(), launcher=launcher, srun_args=srun_args,
                                 account=args.account, tunnel=run.LocalTunnel(os.path.join(args.log_dir, "experiments")),
                                 segment=None, network=None)
    with run.Experiment(name) as exp:
        if not args.add_nothing:
            exp.add(recipe, executor=executor, name=name, plugins=plugins)
        exp.run(sequential=True, detach=True)
