"""Stand-in for NeMo-Run's task runner (tests only): prints what it would run."""
import json
import os
import sys

import nemo_run
from nemo_run.core.serialization.zlib_json import ZlibJSONSerializer

args = sys.argv[1:]
name = args[args.index("-n") + 1]
cfg = args[-1]
if os.path.isfile(cfg):
    cfg = open(cfg).read()
task = ZlibJSONSerializer().deserialize(cfg)
keys = ["CUDA_DEVICE_MAX_CONNECTIONS", "NCCL_DEBUG", "NEMORUN_HOME", "TRANSFORMERS_OFFLINE", "PRECMD", "SCRIPT_NEMO_RUN"]
print("FDL_RUNNER " + json.dumps({
    "name": name,
    "task": task,
    "env": {k: os.environ.get(k) for k in keys},
    "hf_token_set": bool(os.environ.get("HF_TOKEN")),
    "pythonpath_first": os.environ.get("PYTHONPATH", "").split(":")[0],
    "cwd": os.getcwd(),
    "nemo_run": nemo_run.STANDIN,
}, sort_keys=True), flush=True)
