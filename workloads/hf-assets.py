#!/usr/bin/env python3
"""hf-assets: puts a Hugging Face repository's assets into the cache a run reads.

Upstream's installer (metadata.yaml downloads.huggingface: repo_id and
assets, [tokenizer, config] when none are named) fills
$LLMB_INSTALL/.cache/huggingface before any run; the Megatron-Bridge jobs then read it with --offline
(HF_HUB_OFFLINE=1). This is that download as an llmb setup task: with
huggingface_hub (the container's) into HF_HOME's hub cache, the token
taken by huggingface_hub from HF_TOKEN in the environment (passed by name,
never an argument). Then it copies each file, checked, under --proof-dir
(tmp + rename): the task's proof.

Assets: config is config.json (hf_hub_download). tokenizer is the
repository's tokenizer files, whichever it ships (tokenizer.json,
tokenizer_config.json, tokenizer.model, vocab.*, merges.txt, special and
added tokens, *.tiktoken), by snapshot_download with those patterns, as
AutoTokenizer reads them offline; checked to hold tokenizer_config.json (a
JSON object) and a vocabulary (tokenizer.json, tokenizer.model, a vocab.*
or *.tiktoken file); the proof is its tokenizer_config.json.

HF_HUB_OFFLINE honoured: when it is set true in the environment (a cluster
without internet access, or a rate-limited hub), nothing is downloaded:
the files must already be in the cache (local_files_only), else the task
fails saying so.

Exit status: 0 ok, 2 usage, 3 huggingface_hub not importable, 4 offline
and not in the cache, 5 the download failed, 6 a file is not what the
asset is (config.json or tokenizer_config.json not a JSON object, a
tokenizer without a vocabulary).
"""

import argparse
import json
import os
import shutil
import sys

PROG = "hf-assets"
# upstream's asset names -> the repository files they stand for
ASSETS = {"config": ["config.json"], "tokenizer": ["tokenizer_config.json"]}
# the files of a tokenizer, whichever kind the repository ships
TOKENIZER_PATTERNS = ["tokenizer*", "special_tokens_map.json", "added_tokens.json", "vocab*", "merges.txt",
                      "*.model", "*.tiktoken"]
TRUE = ("1", "true", "yes", "on")


def die(code, msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


def json_object(path):
    try:
        with open(path) as f:
            return isinstance(json.load(f), dict)
    except (OSError, ValueError):
        return False


def tokenizer_files(repo, offline, hub):
    """The snapshot directory holding repo's tokenizer, checked (exits on failure)."""
    try:
        snap = hub.snapshot_download(repo_id=repo, allow_patterns=TOKENIZER_PATTERNS, local_files_only=offline)
    except Exception as e:  # as for hf_hub_download
        if offline:
            die(4, f"HF_HUB_OFFLINE is set and {repo}'s tokenizer is not in the cache under "
                f"{os.environ['HF_HOME']} ({type(e).__name__}): fill it where the hub is reachable")
        die(5, f"{repo} tokenizer: download failed: {type(e).__name__}: {e}")
    names = os.listdir(snap) if os.path.isdir(snap) else []
    vocab = [n for n in names if n in ("tokenizer.json", "tokenizer.model") or n.startswith("vocab.")
             or n.endswith(".tiktoken")]
    have = "tokenizer_config.json" in names
    if offline and (not have or not vocab):
        die(4, f"HF_HUB_OFFLINE is set and {repo}'s tokenizer is not complete in the cache under "
            f"{os.environ['HF_HOME']}: fill it where the hub is reachable")
    if not have or not json_object(os.path.join(snap, "tokenizer_config.json")):
        die(6, f"{repo} tokenizer ({snap}): no tokenizer_config.json that is a JSON object")
    if not vocab:
        die(6, f"{repo} tokenizer ({snap}): no vocabulary (tokenizer.json, tokenizer.model, vocab.*, *.tiktoken)")
    return snap


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
        import huggingface_hub as hub
    except ImportError:
        die(3, "huggingface_hub is not importable by " + sys.executable)
    for asset in a.asset:
        snap = tokenizer_files(a.repo, offline, hub) if asset == "tokenizer" else None
        for name in ASSETS[asset]:
            if snap:
                path = os.path.join(snap, name)
            else:
                try:
                    path = hub.hf_hub_download(repo_id=a.repo, filename=name, local_files_only=offline)
                except Exception as e:  # the hub's errors differ by version; the class names the cause
                    if offline:
                        die(4, f"HF_HUB_OFFLINE is set and {a.repo} {name} is not in the cache under "
                            f"{os.environ['HF_HOME']} ({type(e).__name__}): fill it where the hub is reachable")
                    die(5, f"{a.repo} {name}: download failed: {type(e).__name__}: {e}")
            if not json_object(path):
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
