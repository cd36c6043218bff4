"""Stand-in performance script (tests only), shaped like NeMo's: parse the
flags, configure a recipe, an executor and plugins, run the experiment."""
import argparse
import os
import sys

import nemo_run as run


class PerfEnv(run.Plugin):
    def setup(self, task, executor):
        if task.trainer.strategy.tp > 1:
            executor.env_vars["CUDA_DEVICE_MAX_CONNECTIONS"] = "1"
        executor.setup_lines = "srun --ntasks=1 bash -c 'sudo nvidia-smi boost-slider --vboost 1'"


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
    env = {"TRANSFORMERS_OFFLINE": "1", "NEMORUN_HOME": args.log_dir}
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
    executor = run.SlurmExecutor(nodes=nodes, ntasks_per_node=args.gpus_per_node, env_vars=env,
                                 packager=run.GitArchivePackager(), launcher=launcher,
                                 srun_args=["--mpi=pmix", "--container-writable"], account=args.account)
    with run.Experiment(name) as exp:
        if not args.add_nothing:
            exp.add(recipe, executor=executor, name=name, plugins=plugins)
        exp.run(sequential=True, detach=True)
