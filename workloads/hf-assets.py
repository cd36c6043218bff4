#!/usr/bin/env python3
"""hf-assets: puts a Hugging Face repository's assets into the cache a run reads.

Upstream's installer (metadata.yaml downloads.huggingface: repo_id and
assets, e.g. [config]) fills $LLMB_INSTALL/.cache/huggingface before any
run; the Megatron-Bridge jobs then read it with --offline
(HF_HUB_OFFLINE=1). This is that download as an llmb setup task: with
huggingface_hub (the container's) into HF_HOME's hub cache, the token
taken by huggingface_hub from HF_TOKEN in the environment (passed by name,
never an argument). Then it copies each file, checked, under --proof-dir
(tmp + rename): the task's proof.

HF_HUB_OFFLINE honoured: when it is set true in the environment (a cluster
without internet access, or a rate-limited hub), nothing is downloaded:
the files must already be in the cache (local_files_only), else the task
fails saying so.

Exit status: 0 ok, 2 usage, 3 huggingface_hub not importable, 4 offline
and not in the cache, 5 the download failed, 6 a file is not what the
asset is (config.json not a JSON object).
"""

import argparse
import json
import os
import shutil
import sys

PROG = "hf-assets"
# upstream's asset names -> the repository files they stand for
ASSETS = {"config": ["config.json"]}
TRUE = ("1", "true", "yes", "on")


def die(code, msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


def main(argv):
    p = argparse.ArgumentParser(prog=PROG)
    p.add_argument("--repo", required=True, help="repository id, ORG/NAME")
    p.add_argument("--asset", action="append", required=True, choices=sorted(ASSETS))
    p.add_argument("--proof-dir", required=True, help="where the checked copies go")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        sys.exit(2 if e.code else 0)
    parts = a.repo.split("/")
    if len(parts) != 2 or not all(parts) or any(x in (".", "..") for x in parts):
        die(2, f"--repo {a.repo!r}: expected ORG/NAME")
    if not os.environ.get("HF_HOME"):
        die(2, "HF_HOME is not set: the cache the runs read")
    offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in TRUE
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        die(3, "huggingface_hub is not importable by " + sys.executable)
    for asset in a.asset:
        for name in ASSETS[asset]:
            try:
                path = hf_hub_download(repo_id=a.repo, filename=name, local_files_only=offline)
            except Exception as e:  # the hub's errors differ by version; the class names the cause
                if offline:
                    die(4, f"HF_HUB_OFFLINE is set and {a.repo} {name} is not in the cache under "
                        f"{os.environ['HF_HOME']} ({type(e).__name__}): fill it where the hub is reachable")
                die(5, f"{a.repo} {name}: download failed: {type(e).__name__}: {e}")
            try:
                with open(path) as f:
                    ok = isinstance(json.load(f), dict)
            except (OSError, ValueError):
                ok = False
            if not ok:
                die(6, f"{a.repo} {name} ({path}) is not a JSON object")
            dest = os.path.join(a.proof_dir, a.repo, name)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            tmp = f"{dest}.tmp.{os.getpid()}"
            shutil.copyfile(path, tmp)
            os.replace(tmp, dest)
            print(f"{PROG}: {a.repo} {name}: {'from the cache (offline)' if offline else 'cached'} at {path}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
