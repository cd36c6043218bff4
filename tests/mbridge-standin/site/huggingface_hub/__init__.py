"""Test stand-in for huggingface_hub (tests only; not huggingface_hub).

hf_hub_download(repo_id, filename, local_files_only=False) as the real one
documents it: the file lives in the hub cache under $HF_HOME/hub
(models--ORG--NAME/snapshots/<revision>/FILE, refs/main naming the
revision); local_files_only, or HF_HUB_OFFLINE set true, never downloads
and raises LocalEntryNotFoundError when the file is not cached. A
"download" of a meta-llama repository needs HF_TOKEN in the environment
(gated), and writes a small config; HFSTANDIN_RECORD=FILE gets one line
per download (repo, file), never the token.
"""

import json
import os

REVISION = "0" * 40


class LocalEntryNotFoundError(Exception):
    pass


class GatedRepoError(Exception):
    pass


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
