#!/usr/bin/env python3
"""Test stand-in for Megatron-Bridge's performance entry point
(scripts/performance/run_script.py). Not Megatron-Bridge: written for
llmb's tests from its documented behaviour.

Like the real one it reads its command line with the pinned parser's
options (../../options.txt, the list kept as data) through
parse_known_args: words of the form key=value are Hydra-style overrides;
anything else it does not know (an unknown option, a bad choice, a value
of the wrong type) is refused with argparse's usage error (exit 2).

Rank 0 (SLURM_PROCID or RANK) then writes Megatron-Bridge's log lines
to stdout: "Step Time : ...s GPU utilization: ...MODEL_TFLOP/s/GPU" and
the iteration line, for --max_steps iterations. Step times come from the
configuration: 6 x parameters x tokens of a step (GBS x sequence) over the
GPUs at a stand-in rate of MBRIDGE_STANDIN_TFLOPS (default 400) TFLOP/s
per GPU, the first step 3.5 times as long (warm-up). Nothing sleeps: the
times are numbers in a log. MBRIDGE_STANDIN_RECORD=FILE appends each
task's rank, argv and PYTHONPATH as one JSON line. MBRIDGE_STANDIN_EXIT=N
makes rank 0 exit N once its log is written (an error in cleanup, after
training), MBRIDGE_STANDIN_STOP=K stop after iteration K (a run that died
before its last step; exit N, else 1).

Checkpoints as Megatron-Bridge 06f25c2 lays them out (CKPT below): a save
writes SAVE_DIR/iter_NNNNNNN/ (its run_config.yaml, train_state.pt, the
torch_dist metadata.json and a *.distcp shard, small stand-in contents)
and the trackers latest_train_state.pt and latest_checkpointed_iteration.txt
beside it; --load_dir loads only where Megatron-Bridge's checkpoint_exists
finds a checkpoint (an iteration directory, or a directory with a
tracker), logging the "successfully loaded checkpoint" line and the
load-checkpoint timer; elsewhere it loads nothing and trains from scratch,
as Megatron-Bridge's setup does (no error).
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# MBRIDGE_STANDIN_OPTIONS names another commit's list (options-COMMIT.txt)
# for a recipe that pins another Megatron-Bridge.
OPTIONS = os.path.join(HERE, "..", "..", os.environ.get("MBRIDGE_STANDIN_OPTIONS", "options.txt"))
# Parameters of the models the stand-in knows (Megatron-Bridge's recipe
# names); the log's TFLOPS count 6 N per token, as a stand-in (N the
# activated parameters of an MoE model).
PARAMS = {"llama3_8b": 8.03e9, "llama3_70b": 70.55e9, "llama31_405b": 405.85e9, "deepseek_v3": 37e9,
          "qwen3_30b_a3b": 3.3e9, "qwen3_235b_a22b": 22e9,
          "gpt_oss_120b": 5.1e9, "nemotronh_56b": 56e9, "nemotron_3_nano": 3.5e9, "nemotron_3_super": 12e9,
          "kimi_k2": 32e9}
SEQ = {"llama3_8b": 8192, "llama3_70b": 8192, "llama31_405b": 8192, "deepseek_v3": 4096, "qwen3_30b_a3b": 4096,
       "qwen3_235b_a22b": 4096, "gpt_oss_120b": 4096, "nemotronh_56b": 8192, "nemotron_3_nano": 8192,
       "nemotron_3_super": 8192, "kimi_k2": 4096}

# Megatron-Bridge 06f25c2 src/megatron/bridge/training/utils/checkpoint_utils.py:
# get_checkpoint_name, TRAIN_STATE_FILE, TRACKER_PREFIX, CONFIG_FILE,
# get_checkpoint_tracker_filename, _ITERATION_DIR_MARKERS.
CKPT = {"iter_dir": "iter_{:07d}", "train_state": "train_state.pt", "tracker": "latest_train_state.pt",
        "legacy_tracker": "latest_checkpointed_iteration.txt", "config": "run_config.yaml",
        "markers": ("run_config.yaml", "train_state.pt", "metadata.json", ".metadata")}


def save_checkpoint(save_dir, it):
    """checkpointing.py save_checkpoint's files, with stand-in contents."""
    d = os.path.join(save_dir, CKPT["iter_dir"].format(it))
    os.makedirs(d, exist_ok=True)
    for name, text in ((CKPT["config"], "stand-in run config\n"), (CKPT["train_state"], f"step={it}\n"),
                       ("metadata.json", "{}\n"), ("__0_0.distcp", "stand-in shard\n")):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    with open(os.path.join(save_dir, CKPT["tracker"]), "w") as f:
        f.write(f"step={it}\n")
    with open(os.path.join(save_dir, CKPT["legacy_tracker"]), "w") as f:
        f.write(str(it))


def checkpoint_step(load_dir):
    """The iteration checkpoint_exists and _resolve_checkpoint_iteration
    find at load_dir, or None where Megatron-Bridge would load nothing."""
    def state_step(path):
        with open(path) as f:
            return int(f.read().strip().split("=")[1])
    if any(os.path.exists(os.path.join(load_dir, m)) for m in CKPT["markers"]):
        ts = os.path.join(load_dir, CKPT["train_state"])
        return state_step(ts) if os.path.exists(ts) else 0
    if os.path.exists(os.path.join(load_dir, CKPT["tracker"])):
        return state_step(os.path.join(load_dir, CKPT["tracker"]))
    if os.path.isfile(os.path.join(load_dir, CKPT["legacy_tracker"])):
        with open(os.path.join(load_dir, CKPT["legacy_tracker"])) as f:
            return int(f.read().strip())
    return None


def bool_arg(v):
    if v.lower() in ("true", "1", "t", "yes", "y"):
        return True
    if v.lower() in ("false", "0", "f", "no", "n"):
        return False
    raise ValueError(v)


TYPES = {"int": int, "float": float, "str": str, "-": None, "bool_arg": bool_arg, "lower_str": str.lower,
         "list_of_strings": lambda v: v.split(","), "list_of_ints": lambda v: [int(x) for x in v.split(",")],
         "lambda": lambda v: None if v == "None" else v, "to_dict": str, "parse_kv": str,
         "parse_additional_slurm_params": str, "is_cuda_graph_impl_valid": str, "is_cuda_graph_scope_valid": str}


def parser():
    p = argparse.ArgumentParser(prog="run_script.py", allow_abbrev=True)
    with open(OPTIONS) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            names, arity, typ, choices = line.split()
            kw = {}
            if arity == "flag":
                kw["action"] = "store_true"
            else:
                if TYPES[typ] is not None:
                    kw["type"] = TYPES[typ]
                if arity == "optional":
                    kw["nargs"] = "?"
                elif arity == "list":
                    kw["nargs"] = "*"
                elif arity == "append-list":
                    kw["nargs"], kw["action"] = "*", "append"
                elif arity == "append":
                    kw["action"] = "append"
                if choices != "-":
                    kw["choices"] = [None if c == "None" else c for c in choices.split(",")]
            p.add_argument(*names.split(","), **kw)
    return p


def main():
    p = parser()
    args, rest = p.parse_known_args()
    bad = [w for w in rest if "=" not in w or w.startswith("-")]
    if bad:
        p.error("unrecognized arguments: " + " ".join(bad))
    rank = int(os.environ.get("SLURM_PROCID", os.environ.get("RANK", "0")))
    rec = os.environ.get("MBRIDGE_STANDIN_RECORD")
    if rec:
        with open(rec, "a") as f:
            f.write(json.dumps({"rank": rank, "argv": sys.argv[1:], "pythonpath": os.environ.get("PYTHONPATH", ""),
                                "hf_hub_offline": os.environ.get("HF_HUB_OFFLINE")}) + "\n")
    if args.model_recipe_name not in PARAMS:
        print(f"run_script.py stand-in: unknown model recipe {args.model_recipe_name}", file=sys.stderr)
        return 1
    if args.num_gpus is None or args.global_batch_size is None:
        print("run_script.py stand-in: needs --num_gpus and -gb to derive its step times", file=sys.stderr)
        return 1
    if rank != 0:
        return 0
    steps = args.max_steps or 50
    seq = args.seq_length or SEQ[args.model_recipe_name]
    gbs = args.global_batch_size
    rate = float(os.environ.get("MBRIDGE_STANDIN_TFLOPS", "400"))
    flops = 6 * PARAMS[args.model_recipe_name] * gbs * seq
    base = flops / (args.num_gpus * rate * 1e12)
    code = int(os.environ.get("MBRIDGE_STANDIN_EXIT", "0"))
    stop = int(os.environ.get("MBRIDGE_STANDIN_STOP", "0"))
    # Checkpoints as Megatron's logs give them: the save's success line, then
    # the timer across ranks (ms); the time at a stand-in rate of
    # MBRIDGE_STANDIN_CKPT_GBPS (default 2 GB/s) for 14 bytes a parameter.
    ckpt_s = PARAMS[args.model_recipe_name] * 14 / 1e9 / float(os.environ.get("MBRIDGE_STANDIN_CKPT_GBPS", "2"))
    loaded = checkpoint_step(args.load_dir) if args.load_dir else None
    if loaded is not None:
        print(f"  successfully loaded checkpoint from {args.load_dir} [ t 0/1, p 0/1 ] at iteration {loaded}")
        print("(min, max) time across ranks (ms):")
        print(f"    load-checkpoint ................................: ({ckpt_s * 500:.2f}, {ckpt_s * 1000:.2f})")
    print("training ...")
    for it in range(1, steps + 1):
        if stop and it > stop:
            sys.stdout.flush()
            return code or 1
        # A small deterministic ripple so the window has a spread.
        t = base * (3.5 if it == 1 else 1 + 0.002 * ((it * 7) % 5 - 2))
        tf = flops / (args.num_gpus * t * 1e12)
        print(f"Step Time : {t:.2f}s GPU utilization: {tf:.1f}MODEL_TFLOP/s/GPU")
        print(f" [2026-07-29 10:00:00] iteration {it:8d}/{steps:8d} | consumed samples: {it * gbs:12d} | "
              f"elapsed time per iteration (ms): {t * 1000:.1f} | learning rate: 1.000000E-06 | "
              f"global batch size: {gbs:5d} | lm loss: 1.200000E+01 | loss scale: 1.0 | grad norm: 1.000 | "
              "number of skipped iterations:   0 | number of nan iterations:   0 |")
        if args.save_interval and it % args.save_interval == 0:
            # without --save_dir, /nemo_run/checkpoints (scripts/performance/
            # utils/overrides.py): a NeMo-Run mount the stand-in has not
            where = args.save_dir or "/nemo_run/checkpoints"
            if args.save_dir:
                save_checkpoint(args.save_dir, it)
            print(f"  successfully saved checkpoint from iteration {it:7d} to {where} [ t 1/1, p 1/1 ]")
            print("(min, max) time across ranks (ms):")
            print(f"    save-checkpoint ................................: ({ckpt_s * 990:.2f}, {ckpt_s * 1000:.2f})")
    print("[after training is done] datetime: 2026-07-29 10:00:00")
    if code:
        print("Traceback (most recent call last): stand-in error in cleanup", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
