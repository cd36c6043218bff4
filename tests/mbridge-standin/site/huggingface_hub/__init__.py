"""Test stand-in for huggingface_hub (tests only; not huggingface_hub).

hf_hub_download(repo_id, filename, local_files_only=False) as the real one
documents it: the file lives in the hub cache under $HF_HOME/hub
(models--ORG--NAME/snapshots/<revision>/FILE, refs/main naming the
revision); local_files_only, or HF_HUB_OFFLINE set true, never downloads
and raises LocalEntryNotFoundError when the file is not cached. A
"download" of a meta-llama repository needs HF_TOKEN in the environment
(gated), and writes a small config; HFSTANDIN_RECORD=FILE gets one line
per download (repo, file), never the token.

snapshot_download(repo_id, allow_patterns=None, local_files_only=False):
the repository's files matching the patterns (fnmatch) into the same
snapshot, its directory returned; offline, the cached snapshot directory
as it is, or LocalEntryNotFoundError when there is none. A stand-in
repository holds config.json and a byte-level BPE tokenizer
(tokenizer.json, tokenizer_config.json, vocab.json, merges.txt); one whose
name ends in -notok has no tokenizer at all.
"""

import fnmatch
import json
import os

REVISION = "0" * 40


class LocalEntryNotFoundError(Exception):
    pass


class GatedRepoError(Exception):
    pass


def _repo_dir(repo_id):
    home = os.environ.get("HF_HOME") or os.path.expanduser("~/.cache/huggingface")
    return os.path.join(home, "hub", "models--" + repo_id.replace("/", "--"))


def _offline(local_files_only):
    return local_files_only or os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")


def _files(repo_id):
    files = {"config.json": json.dumps({"_name_or_path": repo_id, "model_type": "llama"})}
    if not repo_id.endswith("-notok"):
        files.update({"tokenizer.json": json.dumps({"version": "1.0", "model": {"type": "BPE"}}),
                      "tokenizer_config.json": json.dumps({"tokenizer_class": "PreTrainedTokenizerFast"}),
                      "vocab.json": json.dumps({"a": 0, "b": 1}), "merges.txt": "#version: 0.2\na b\n"})
    return files


def snapshot_download(repo_id, allow_patterns=None, local_files_only=False, **kwargs):
    repo = _repo_dir(repo_id)
    snap = os.path.join(repo, "snapshots", REVISION)
    if _offline(local_files_only):
        if not os.path.isdir(snap):
            raise LocalEntryNotFoundError(f"{repo_id} has no snapshot in the local cache")
        return snap
    if repo_id.startswith("meta-llama/") and not os.environ.get("HF_TOKEN"):
        raise GatedRepoError(f"{repo_id} is gated: no token")
    os.makedirs(snap, exist_ok=True)
    os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
    rec = os.environ.get("HFSTANDIN_RECORD")
    for name, text in sorted(_files(repo_id).items()):
        if allow_patterns is not None and not any(fnmatch.fnmatch(name, p) for p in allow_patterns):
            continue
        with open(os.path.join(snap, name), "w") as f:
            f.write(text)
        if rec:
            with open(rec, "a") as f:
                f.write(f"{repo_id} {name}\n")
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write(REVISION)
    return snap


def hf_hub_download(repo_id, filename, local_files_only=False, **kwargs):
    home = os.environ.get("HF_HOME") or os.path.expanduser("~/.cache/huggingface")
    repo = os.path.join(home, "hub", "models--" + repo_id.replace("/", "--"))
    path = os.path.join(repo, "snapshots", REVISION, filename)
    if os.path.isfile(path):
        return path
    if local_files_only or os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        raise LocalEntryNotFoundError(f"{repo_id} {filename} is not in the local cache")
    if repo_id.startswith("meta-llama/") and not os.environ.get("HF_TOKEN"):
        raise GatedRepoError(f"{repo_id} is gated: no token")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"_name_or_path": repo_id, "model_type": "llama"}, f)
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write(REVISION)
    rec = os.environ.get("HFSTANDIN_RECORD")
    if rec:
        with open(rec, "a") as f:
            f.write(f"{repo_id} {filename}\n")
    return path
