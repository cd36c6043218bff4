#!/usr/bin/env python3
"""hist.py FINGERPRINT NIGHT:NODES:FACTOR... : a history (records v1, keys
sorted) of one configuration, one run per night on the given nodes (Slurm
hostlist), step times 1.0 s x FACTOR with a fixed small ripple: the same
bytes everywhere. For t-nodes."""
import json, sys

fp = sys.argv[1]
for job, spec in enumerate(sys.argv[2:], start=100):
    night, nodes, factor = spec.split(":")
    x = [round(float(factor) * (1 + 0.002 * ((s * 7) % 5 - 2)), 6) for s in range(16)]
    mean = sum(x) / len(x)
    rec = {"v": 1, "type": "run", "fingerprint": fp, "night": night, "job": str(job), "executor": "slurm",
           "status": "ok", "valid": True, "invalid": [], "samples": x,
           "summary": {"n": len(x), "mean": mean, "median": mean, "std": 0.001, "mad": 0.001},
           "key": {"workload": "sq", "gpu": "cpu", "size": "tiny", "dtype": "fp32", "scale": 4,
                   "parallel": {"gbs": 8}},
           "image": {"ref": "sq:1", "digest": None}, "config_hash": "c1", "llmb_version": "v1",
           "nodes": nodes, "recorded_at": night + "T03:00:00Z", "reference": None,
           "tokens_per_s": None, "tflops_per_gpu": None, "mfu": None}
    print(json.dumps(rec, sort_keys=True, separators=(",", ":")))
