#!/usr/bin/env python3
"""t-mbridge's check of the Megatron-Bridge recipe rows against the
workload base configs the runs load (tests/mbridge-base-configs.tsv):

    mbridge-base-check.py DATA TOP PLAN...

For every training line of the plans (make -n's "[i/n] train W G S D xN:
..." lines; proxy runs left out) it derives what the run gets, as
Megatron-Bridge's scripts/performance does: the config
<recipe>_PRETRAIN_CONFIG_<GPU>_<DTYPE>_<variant> (--config_variant of the
workload's train.cmd, else v2; v1 where there is no such config, then no
variant), at the commit workloads/W.yaml pins; the row's own arguments
(-tp -pp -cp -vp -ep -et -mb --cuda_graph_impl --use_megatron_fsdp) over
it; GBS per GPU as the config has it (Megatron-Bridge scales it with
--num_gpus); DP = GPUs / (TP PP CP), GA = GBS / (MBS DP); recompute
(modules: the row's recompute, layers: recompute_layers) and CPU
offloading (cpu_offload_layers), none where the config sets none. It
prints each field that differs from the plan's and exits 1 when any
does."""
import re
import sys

COLS = ["name", "commit", "file", "num_gpus", "tp", "pp", "cp", "vp", "ep", "etp", "gbs", "mbs", "fsdp",
        "cuda_graph_impl", "cuda_graph_scope", "recompute_modules", "recompute_num_layers", "cpu_offloading_num_layers"]
FLAGS = {"-tp": "tp", "-pp": "pp", "-cp": "cp", "-vp": "vp", "-ep": "ep", "-et": "etp", "-mb": "mbs"}


def words(args):
    """The row's arguments as {option: value}."""
    out, i = {}, 0
    while i < len(args):
        if args[i].startswith("--") and "=" in args[i]:
            k, v = args[i].split("=", 1)
            out[k] = v
        elif i + 1 < len(args) and not args[i + 1].startswith("-"):
            out[args[i]] = args[i + 1]
            i += 1
        i += 1
    return out


def main():
    data, top, plans = sys.argv[1], sys.argv[2], sys.argv[3:]
    configs = {}
    for line in open(data):
        if line.startswith("#") or not line.strip():
            continue
        row = dict(zip(COLS, line.rstrip("\n").split("\t")))
        configs[(row["commit"], row["name"])] = row
    pins, variants = {}, {}
    bad = n = 0
    for plan in plans:
        for line in open(plan):
            m = re.search(r"\] train (\S+) (\S+) (\S+) (\S+) x(\d+): (.*)", line)
            if not m or " PROXY" in m.group(6):
                continue
            w, gpu, size, dtype, scale, rest = m.groups()
            scale = int(scale)
            if w not in pins:
                y = open(f"{top}/workloads/{w}.yaml").read()
                pins[w] = re.search(r"megatron_bridge:\s*\n\s*url:.*\n\s*commit:\s*\"([0-9a-f]{40})\"", y).group(1)
                cv = re.search(r'"--config_variant",\s*"(\w+)"', y)
                variants[w] = cv.group(1) if cv else "v2"
            plan_kv = dict(re.findall(r" (\w+)=(\S+)", " " + rest.split(" args: ")[0]))
            args = words(rest.split(" args: ")[1].split(" env: ")[0].split()) if " args: " in rest else {}
            stem = f"{args['--model_recipe_name']}_PRETRAIN_CONFIG_{gpu}_{args['--compute_dtype']}".upper()
            names = [f"{stem}_{variants[w]}".upper(), f"{stem}_V1", stem]
            cfg = next((configs[(pins[w], x)] for x in names if (pins[w], x) in configs), None)
            n += 1
            where = f"{w} {gpu} {size} {dtype} x{scale}"
            if cfg is None:
                print(f"{where}: no base config {names[0]} at {pins[w][:7]}")
                bad += 1
                continue

            def num(k, default):
                return default if cfg[k] == "-" else int(cfg[k])
            want = {k: num(k, d) for k, d in (("tp", 1), ("pp", 1), ("cp", 1), ("vp", 0), ("ep", 1), ("mbs", 1))}
            if cfg["etp"] != "-":
                want["etp"] = int(cfg["etp"])
            want["fsdp"] = 1 if cfg["fsdp"] == "True" else 0
            want["cuda_graphs"] = 1 if cfg["cuda_graph_impl"] in ("transformer_engine", "local") else 0
            for flag, k in FLAGS.items():
                if flag in args:
                    want[k] = int(args[flag])
            if "--cuda_graph_impl" in args:
                want["cuda_graphs"] = 1 if args["--cuda_graph_impl"] in ("transformer_engine", "local") else 0
            if "--use_megatron_fsdp" in args:
                want["fsdp"] = 1 if args["--use_megatron_fsdp"].lower() == "true" else 0
            # recompute: the modules (selective), the layers (full, block)
            # and the layers offloaded to the CPU; absent from the plan: none
            rm = args.get("--recompute_modules", cfg["recompute_modules"])
            want["recompute"] = None if rm == "-" else rm
            for k, col in (("recompute_layers", "recompute_num_layers"), ("cpu_offload_layers", "cpu_offloading_num_layers")):
                want[k] = None if cfg[col] == "-" else int(cfg[col])
            want["gbs"] = int(cfg["gbs"]) * scale // int(cfg["num_gpus"])
            want["dp"] = scale // (want["tp"] * want["pp"] * want["cp"])
            want["ga"] = want["gbs"] // (want["mbs"] * want["dp"])
            diff = [f"{k} {plan_kv.get(k, 'none')}, the run's {'none' if v is None else v}" for k, v in want.items()
                    if plan_kv.get(k) != (None if v is None else str(v))]
            if diff:
                bad += 1
                print(f"{where} ({cfg['name']}, {cfg['file']} at {pins[w][:7]}): " + "; ".join(diff))
    print(f"{n} rows, {bad} differ")
    return 1 if bad or not n else 0


if __name__ == "__main__":
    sys.exit(main())
