#!/usr/bin/env python3
"""Build the byte-level token file for the llmb tinygpt workload.

Tokens are raw bytes (uint8, vocab 256) of text every Debian machine ships,
so the workload needs no download and no tokenizer. Output is deterministic:
sources are read in sorted name order.

The data file is written to FILE.tmp, fsynced and renamed into place; the
sidecar FILE.json is written the same way only afterwards, so its presence
proves the data file is complete.
"""
import argparse
import hashlib
import json
import os
import stat
import sys

DEFAULT_SOURCE = "/usr/share/common-licenses"
DEFAULT_MIN_BYTES = 65536


def die(msg):
    print("prepare_data: error: " + msg, file=sys.stderr)
    sys.exit(1)


def collect(sources):
    """Expand directories into their regular files, sorted by name.

    Symlinks inside a directory are skipped: on Debian they alias other
    licence files (GPL -> GPL-3) and would only duplicate text.
    """
    files = []
    for src in sources:
        try:
            st = os.stat(src)
        except OSError as e:
            die("cannot read source %s: %s" % (src, e.strerror))
        if stat.S_ISDIR(st.st_mode):
            for name in sorted(os.listdir(src)):
                p = os.path.join(src, name)
                lst = os.lstat(p)
                if stat.S_ISREG(lst.st_mode):
                    files.append(p)
        elif stat.S_ISREG(st.st_mode):
            files.append(src)
        else:
            die("source %s is neither a regular file nor a directory" % src)
    return files


def write_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    # Make the rename itself durable.
    try:
        dfd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def main():
    ap = argparse.ArgumentParser(description="Build the tinygpt byte-level token file.")
    ap.add_argument("--out", required=True, help="output token file (uint8 bytes)")
    ap.add_argument("--source", action="append", metavar="DIR_OR_FILE",
                    help="text source; repeatable (default: %s)" % DEFAULT_SOURCE)
    ap.add_argument("--min-bytes", type=int, default=DEFAULT_MIN_BYTES,
                    help="fail if fewer tokens than this (default: %(default)s)")
    args = ap.parse_args()

    sources = args.source or [DEFAULT_SOURCE]
    files = collect(sources)
    if not files:
        die("no regular files found in %s" % ", ".join(sources))

    chunks = []
    for p in files:
        try:
            with open(p, "rb") as f:
                chunks.append(f.read())
        except OSError as e:
            die("cannot read %s: %s" % (p, e.strerror))
    data = b"".join(chunks)
    if len(data) < args.min_bytes:
        die("only %d bytes of text in %d files from %s; need at least %d (--min-bytes)"
            % (len(data), len(files), ", ".join(sources), args.min_bytes))

    out_dir = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(out_dir):
        die("output directory %s does not exist" % out_dir)

    digest = hashlib.sha256(data).hexdigest()
    try:
        write_atomic(args.out, data)
        meta = {"tokens": len(data), "sha256": digest, "sources": files}
        write_atomic(args.out + ".json",
                     (json.dumps(meta, indent=1) + "\n").encode())
    except OSError as e:
        die("cannot write %s: %s" % (args.out, e.strerror))

    print("prepare_data: wrote %s: %d tokens (vocab 256) from %d files, sha256 %s"
          % (args.out, len(data), len(files), digest[:16]), flush=True)


if __name__ == "__main__":
    main()
