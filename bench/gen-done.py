#!/usr/bin/env python3
"""gen-done.py INSTALL GEN: bench/gen.sh's fast path to a done install tree.

A real run with the local executor costs a job per training (about 4
minutes per 700 stages on 2 cores): the 25,001 stages of bench/gen.sh's
full size would take hours. Here a real run has done the stages of one
size, m1 (its data task, trainings, parses and report), into INSTALL;
every other size's stages are made from them, file by file, as a run of
that size would have left them:

- each file of an m1 stage (outputs, train.done, log, provenance, report
  formats, state/jobs/<id>/ with its record, script and probes, the
  stamp) copied under the other size's names, its text with the size's
  names, configuration hashes (GEN/cfg/.manifest), job ids and tokens
  (one of each per job, as a run gives) in place of m1's;
- each identity (state/id/<id>) computed from the outputs as llmb does
  (store/outputs.c: each output's name and its lines without job=, an
  image's .id file in its place, size and time for a file over 1 MiB),
  each stamp's up= lines from those identities, and its link under its
  configuration hash (state/stamped/<id>/<hash12>, store/instance.c);
- every file with the time of the m1 file it was made from, so times
  follow dependency order as after the run (an output before its stamp,
  an identity at its stamp's time, a stage's stamp after its upstream's);
- the training script's count line per training (count.train).

bench/gen.sh --check makes a small tree both ways and compares them, and
runs `llmb run` on every stage of the fast tree (done by content, it
rewrites an identity or a stamp that is not what llmb computes).
"""
import hashlib
import os
import re
import sys

TEMPLATE = "m1"


def read_manifest(gen):
    with open(os.path.join(gen, "cfg", ".manifest")) as f:
        return dict(line.split() for line in f if line.strip())


def cfg_values(gen, sid, key):
    with open(os.path.join(gen, "cfg", sid)) as f:
        return [l[len(key) + 1:].rstrip("\n") for l in f if l.startswith(key + "=")]


def identity(install, outputs):
    """outputs_identity (store/outputs.c)"""
    s = []
    for rel in outputs:
        path = os.path.join(install, rel)
        src = path + ".id" if os.path.isfile(path + ".id") else path
        s.append(rel + "\n")
        try:
            st = os.stat(src)
        except OSError:
            s.append("missing\n")
            continue
        if os.path.isfile(src) and st.st_size <= 1 << 20:
            with open(src, "rb") as f:
                data = f.read().split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
            lines = data.split("\n")
            if data.endswith("\n"):
                lines.pop()
            s.extend(l + "\n" for l in lines if data and not l.startswith("job="))
        else:
            s.append("size=%d mtime=%d.%09d\n" % (st.st_size, st.st_mtime_ns // 10**9, st.st_mtime_ns % 10**9))
    return hashlib.sha256("".join(s).encode("utf-8", "surrogateescape")).hexdigest()


def kv(path):
    with open(path) as f:
        return dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l)


# ---- gen-done.py --compare REAL FAST: the two trees, side by side --------------

# Compared by content (what staleness reads, less what differs between any
# two runs: the job ids, tokens, times, the folder); the rest by name.
CONTENT = re.compile(r"(^state/done/|/train\.done$|/result\.json$|/data/|^count\.)")


def normalizer(w):
    """A tree's text with its folder, job ids, tokens, times and
    identities (each named by its stage) in words that two runs share."""
    inst = os.path.join(w, "inst")
    state = os.path.join(inst, "state")
    sub = [(os.path.realpath(w), "W"), (w, "W")]
    for sid in os.listdir(os.path.join(state, "jobs")):
        rec = os.path.join(state, "jobs", sid, "record")
        if os.path.exists(rec):
            r = kv(rec)
            sub += [(r["job"], "JOB(%s)" % sid), (r["token"], "TOKEN(%s)" % sid)]
    for sid in os.listdir(os.path.join(state, "id")):
        with open(os.path.join(state, "id", sid)) as f:
            sub.append((f.read().strip(), "ID(%s)" % sid))
    times = re.compile(r"^(time|submitted|end)=[0-9]+$", re.M)

    def norm(s):
        for a, b in sub:
            s = s.replace(a, b)
        return times.sub(r"\1=T", s)
    return norm


def tree(w):
    inst = os.path.join(w, "inst")
    norm = normalizer(w)
    out = {}
    for d, _, fs in os.walk(inst):
        for f in fs:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, inst)
            key = norm(rel)
            if CONTENT.search(rel):
                with open(p, "rb") as fh:
                    text = norm(fh.read().decode("utf-8", "surrogateescape"))
                if rel.startswith("count."):
                    text = "".join(sorted(text.splitlines(True)))
                out[key] = text
            else:
                out[key] = None
    return out


def compare(real, fast):
    a, b = tree(real), tree(fast)
    bad = 0
    for k in sorted(set(a) | set(b)):
        if k not in b:
            print("gen-done.py: only after the real run: %s" % k)
        elif k not in a:
            print("gen-done.py: only after the fast path: %s" % k)
        elif a[k] != b[k]:
            print("gen-done.py: %s differs:\n--- real\n%s--- fast\n%s" % (k, a[k], b[k]))
        else:
            continue
        bad += 1
    if bad:
        sys.exit(1)
    print("fast path: the tree of a real run (%d files, %d compared by content)" %
          (len(a), sum(v is not None for v in a.values())))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        return compare(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 3:
        sys.exit("usage: gen-done.py INSTALL GEN | --compare REAL-DIR FAST-DIR")
    install, gen = sys.argv[1], sys.argv[2]
    man = read_manifest(gen)
    name = re.compile(r"(?<![0-9A-Za-z])" + TEMPLATE + r"(?![0-9])")
    tmpl = [i for i in man if "." + TEMPLATE + "." in i]
    sizes = sorted({i.split(".")[3] for i in man if i.split(".")[0] in ("train", "parse", "report")} - {TEMPLATE},
                   key=lambda s: int(s[1:]))
    state = os.path.join(install, "state")
    # m1's jobs: id and token of each (state/jobs/<id>/record)
    jobs = {}
    for t in tmpl:
        rec = os.path.join(state, "jobs", t, "record")
        if os.path.exists(rec):
            r = kv(rec)
            jobs[t] = (r["job"], r["token"])
    for t in tmpl:
        if not os.path.exists(os.path.join(state, "done", t)):
            sys.exit("gen-done.py: %s has no stamp: the run of %s did not finish" % (t, TEMPLATE))
    # m1's files, by the stage they belong to: state/{done,id,jobs/<id>}
    # and the run folders and reports its outputs live in
    files = {}
    for t in tmpl:
        fl = []
        jd = os.path.join(state, "jobs", t)
        if os.path.isdir(jd):
            fl += [os.path.join(jd, f) for f in sorted(os.listdir(jd))]
        for rel in cfg_values(gen, t, "output"):
            d = os.path.dirname(os.path.join(install, rel))
            base = os.path.basename(rel)
            for f in sorted(os.listdir(d)):
                p = os.path.join(d, f)
                # a run folder's files (the training's), or a report's formats
                if os.path.isfile(p) and (t.startswith("train.") or f.startswith(base)) and p not in fl:
                    fl.append(p)
        # the stamp last: its identity is computed from the outputs above
        files[t] = fl + [os.path.join(state, "done", t)]
    counts = open(os.path.join(install, "count.train"), "a")
    with open(os.path.join(install, "count.train")) as f:
        count_lines = {l.split()[1]: l for l in f if l.startswith("train ")}
    n = 0
    for size in sizes:
        clone = {t: name.sub(size, t) for t in tmpl}
        sub = [(man[t], man[clone[t]]) for t in tmpl]
        for t in tmpl:
            if t in jobs:
                n += 1
                job, tok = jobs[t]
                pid, rest = job.split("-", 2)[1:]
                sub.append((job, "local-9%07d-%s" % (n, rest)))
                sub.append((tok, hashlib.sha256((tok + clone[t]).encode()).hexdigest()[:16]))

        def text(s):
            for a, b in sub:
                s = s.replace(a, b)
            return name.sub(size, s)

        for t in tmpl:
            for p in files[t]:
                q = text(p)
                os.makedirs(os.path.dirname(q), exist_ok=True)
                with open(p, "rb") as f:
                    data = f.read()
                if "/state/done/" in p:
                    # the stamp: its up= lines are the upstream identities now
                    lines = [l for l in data.decode().split("\n") if l and not l.startswith("up=")]
                    lines = [text(l) for l in lines]
                    for a in cfg_values(gen, clone[t], "after"):
                        up = a.split()[0]
                        with open(os.path.join(state, "id", up)) as f:
                            lines.append("up=%s %s" % (up, f.read().strip()))
                    data = ("\n".join(lines) + "\n").encode()
                else:
                    data = text(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
                with open(q, "wb") as f:
                    f.write(data)
                st = os.stat(p)
                os.utime(q, ns=(st.st_atime_ns, st.st_mtime_ns))
                if "/state/done/" in p:
                    # the identity, before dependents' stamps read it
                    idp = os.path.join(state, "id", clone[t])
                    with open(idp, "w") as f:
                        f.write(identity(install, cfg_values(gen, clone[t], "output")) + "\n")
                    its = os.stat(os.path.join(state, "id", t))
                    os.utime(idp, ns=(its.st_atime_ns, its.st_mtime_ns))
                    # the stamp's link under its configuration (make's target)
                    ln = os.path.join(state, "stamped", clone[t], man[clone[t]][:12])
                    os.makedirs(os.path.dirname(ln), exist_ok=True)
                    if not os.path.islink(ln):
                        os.symlink(os.readlink(os.path.join(state, "stamped", t, man[t][:12])).replace(t, clone[t]), ln)
            if t in count_lines:
                counts.write(text(count_lines[t]))
    counts.close()


if __name__ == "__main__":
    main()
