#!/usr/bin/env python3
"""Prints the pre-training workload base configs of a Megatron-Bridge
checkout (scripts/performance/configs/<family>/*_workload_base_configs.py)
as tab-separated rows, the data tests/mbridge-base-configs.tsv keeps:

    python3 scripts/mbridge-base-configs.py CHECKOUT COMMIT [FAMILY...]

CHECKOUT is a Megatron-Bridge tree at COMMIT (git archive COMMIT
scripts/performance is enough: the base configs need no Megatron-Bridge
install). One row per config: its name, the commit and the file it comes
from, then its fields (- where the config leaves a field unset, so the
recipe's default applies)."""
import importlib
import os
import sys

COLUMNS = ["num_gpus", "tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size",
           "virtual_pipeline_model_parallel_size", "expert_model_parallel_size", "expert_tensor_parallel_size",
           "global_batch_size", "micro_batch_size", "use_megatron_fsdp", "cuda_graph_impl", "cuda_graph_scope",
           "recompute_modules", "recompute_num_layers", "cpu_offloading_num_layers"]


def cell(v):
    if v is None:
        return "-"
    return ",".join(v) if isinstance(v, list) else str(v)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, commit = sys.argv[1], sys.argv[2]
    families = sys.argv[3:] or ["llama", "deepseek", "qwen", "gpt_oss", "nemotronh", "kimi"]
    sys.path.insert(0, os.path.join(root, "scripts", "performance"))
    from utils.utils import WorkloadBaseConfig
    for fam in families:
        d = os.path.join(root, "scripts", "performance", "configs", fam)
        for f in sorted(os.listdir(d)):
            if not f.endswith("_workload_base_configs.py"):
                continue
            mod = importlib.import_module(f"configs.{fam}.{f[:-3]}")
            for name in sorted(dir(mod)):
                v = getattr(mod, name)
                if isinstance(v, WorkloadBaseConfig) and "_PRETRAIN_CONFIG_" in name:
                    path = f"scripts/performance/configs/{fam}/{f}"
                    print("\t".join([name, commit, path] + [cell(getattr(v, c, None)) for c in COLUMNS]))


if __name__ == "__main__":
    main()
