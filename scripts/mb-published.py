#!/usr/bin/env python3
"""mb-published.py COMMIT SUMMARY.md ARCHIVE.md: Megatron-Bridge's published
performance tables as llmb reference data (workloads/published/megatron-bridge.yaml).

SUMMARY.md and ARCHIVE.md are docs/performance-summary.md and
docs/performance-summary-archive.md of NVIDIA-NeMo/Megatron-Bridge at COMMIT.
Every row of every table laid out per model ("#### Model: X", columns System,
#-GPUs, Precision, GBS, MBS, Sequence Length, [FSDP,] TP, PP, CP, VP, EP,
Tokens / sec / GPU, Model TFLOP / sec / GPU) becomes one row, naming its file,
line, container section and table. Rows of a model llmb has a recipe for name
its workload and size; the others are kept, unnamed, as published. The 25.11
and 25.09 sections lay their tables out per system, with alternative figures
in parentheses: they are listed in skipped_sections, not imported.
The YAML goes to standard output."""
import re
import sys

# Megatron-Bridge's model names -> llmb workload and size (pre-training).
MODELS = {
    "LLAMA3_70B": ("llama3.1", "70b"),
    "LLAMA3.1_405B": ("llama3.1", "405b"),
    "DeepSeekV3": ("deepseek-v3", "671b"),
    "GPT OSS 120B": ("gpt-oss", "120b"),
    "Qwen3_30B_a3B": ("qwen3", "30b"),
    "Qwen3_235B_a22B": ("qwen3", "235b"),
    "Kimi_K2": ("kimi-k2", "1t"),
    "Nemotron_3_Nano": ("nemotron3", "30b"),
    "Nemotron_3_Super": ("nemotron3", "120b"),
}
# Precision -> llmb dtype and the performance scripts' --compute_dtype.
PRECISIONS = {"BF16": ("bf16", "bf16"), "FP8": ("fp8", "fp8_cs"), "MXFP8": ("fp8", "fp8_mx"),
              "NVFP4": ("nvfp4", "nvfp4")}
SYSTEMS = {"DGX-GB300": "gb300", "DGX-GB200": "gb200", "DGX-B300": "b300", "DGX-B200": "b200",
           "DGX-H100": "h100"}
COLUMNS = {"System": "system", "#-GPUs": "gpus", "Precision": "precision", "GBS": "gbs", "MBS": "mbs",
           "Sequence Length": "seq", "FSDP": "fsdp", "TP": "tp", "PP": "pp", "CP": "cp", "VP": "vp",
           "EP": "ep", "Tokens / sec / GPU": "tokens_per_s_per_gpu",
           "Model TFLOP / sec / GPU": "tflops_per_gpu"}
TABLES = {"Pre-Training Performance": "pretrain", "SFT Performance": "sft", "LoRA Performance": "lora"}
# What is known to be inconsistent in a release's rows (model: that model's
# rows only). llmb metrics --reference shows a row whose tokens/s/GPU and
# TFLOPS/GPU disagree under llmb's FLOPs count as "known" with this note
# instead of DIFF.
ROUNDED = ("prints tokens/s/GPU coarsely rounded (%s of its %s rows have at most 8 significant bits), so they "
           "agree with its TFLOPS/GPU column within %s only")
GPTOSS = ("GPT-OSS's TFLOPS/GPU is 1.20 times llmb's count for the printed tokens/s/GPU from 26.06 on (26.04.01 and "
          "earlier agree within 0.9%): a different FLOPs count, not a different speed")
RELEASE_NOTES = [  # (release, model or None, system or None, note); the first that fits a row is its note
    ("26.08", "GPT OSS 120B", None, GPTOSS),
    ("26.06.01", "GPT OSS 120B", None, GPTOSS),
    ("26.06", "GPT OSS 120B", None, GPTOSS),
    ("26.08", None, None, "26.08 " + ROUNDED % (13, 18, "1.3%")),
    ("26.06.01", None, None, "26.06.01 " + ROUNDED % (12, 14, "0.9%")),
    ("26.04.01", None, None, "26.04.01 " + ROUNDED % (44, 47, "2.3%") + ": 5248, 1664, 328"),
    ("26.02.01", "GPT OSS 120B", "DGX-B300", "TFLOPS/GPU 412 is 0.9% above llmb's count for 15031 tokens/s/GPU "
     "(the other 26.02.01 GPT-OSS rows agree within 0.3%)"),
]
FOOT = re.compile(r"\[\^([^\]]+)\]")


def q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def number(s, na):
    """A cell's integer; n/a is na. Footnote markers are dropped."""
    s = FOOT.sub("", s).strip()
    if s.lower() == "n/a":
        return na
    if not re.fullmatch(r"[0-9]+", s):
        raise ValueError("not a number: %r" % s)
    return int(s)


def parse(path, name):
    rows, skipped, notes = [], [], {}
    section = table = model = None
    header = None
    lines = open(path, encoding="utf-8").read().split("\n")
    for ln, line in enumerate(lines, 1):
        m = re.match(r"\[\^([^\]]+)\]:\s*(.*)", line)
        if m:
            notes[m.group(1)] = m.group(2).strip()
    for ln, line in enumerate(lines, 1):
        if line.startswith("## "):
            section, table, model, header = line[3:].strip(), None, None, None
            if re.match(r"[0-9.]+ NeMo Container$", section) is None:
                section = None
            continue
        if section is None:
            continue
        if line.startswith("### "):
            table, model, header = TABLES.get(line[4:].strip()), None, None
            continue
        if line.startswith("#### "):
            h = line[5:].strip()
            model = h[len("Model: "):].strip() if h.startswith("Model: ") else None
            if model is None and section not in skipped:
                skipped.append(section)
            header = None
            continue
        if not line.startswith("|") or model is None or table is None:
            header = None if not line.startswith("|") else header
            continue
        c = cells(line)
        if header is None:
            header = [COLUMNS[x] for x in c]
            continue
        if all(re.fullmatch(r"-+", x) for x in c):
            continue
        row = dict(zip(header, c))
        foot = [notes[k] for k in FOOT.findall(line) if k in notes]
        dtype, cdtype = PRECISIONS[row["precision"]]
        out = {"release": section.split()[0], "file": name, "line": ln, "section": section, "table": table,
               "model": model}
        if table == "pretrain" and model in MODELS:
            out["workload"], out["size"] = MODELS[model]
        out.update({"gpu": SYSTEMS[row["system"]], "scale": number(row["gpus"], 0),
                    "precision": row["precision"], "dtype": dtype, "compute_dtype": cdtype,
                    "gbs": number(row["gbs"], 0), "mbs": number(row["mbs"], 0), "seq": number(row["seq"], 0),
                    "fsdp": number(row.get("fsdp", "0"), 0), "tp": number(row["tp"], 1),
                    "pp": number(row["pp"], 1), "cp": number(row["cp"], 1), "vp": number(row["vp"], 0),
                    "ep": number(row["ep"], 1),
                    "tokens_per_s_per_gpu": number(row["tokens_per_s_per_gpu"], 0),
                    "tflops_per_gpu": number(row["tflops_per_gpu"], 0)})
        if foot:
            out["published_note"] = " ".join(foot)
        rows.append(out)
    return rows, skipped


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: mb-published.py COMMIT SUMMARY.md ARCHIVE.md")
    commit = sys.argv[1]
    rows, skipped = [], []
    for path, name in ((sys.argv[2], "docs/performance-summary.md"),
                       (sys.argv[3], "docs/performance-summary-archive.md")):
        r, s = parse(path, name)
        rows += r
        skipped += [(name, x) for x in s]
    print("# Megatron-Bridge's published training performance, every row of its tables")
    print("# laid out per model. Generated by scripts/mb-published.py from the two files")
    print("# below at the commit named; do not edit (t-reference checks it against the")
    print("# script's output on tests/published/). Keys: see docs/architecture.md")
    print("# (\"Published references\").")
    print("repository: NVIDIA-NeMo/Megatron-Bridge")
    print("commit: %s" % commit)
    print("files: [docs/performance-summary.md, docs/performance-summary-archive.md]")
    print("skipped_sections:")
    for name, s in skipped:
        print("  - {file: %s, section: %s, why: %s}" % (name, q(s), q("tables per system, figures in parentheses")))
    print("release_notes:")
    for rel, model, system, note in RELEASE_NOTES:
        print("  - {release: %s, %s%snote: %s}" % (q(rel), "model: %s, " % q(model) if model else "",
                                                  "gpu: %s, " % SYSTEMS[system] if system else "", q(note)))
    print("published:")
    for r in rows:
        parts = []
        for k, v in r.items():
            parts.append("%s: %s" % (k, v if isinstance(v, int) or k in ("workload", "size", "gpu", "dtype",
                                                                          "compute_dtype", "file", "table")
                                     else q(str(v))))
        print("  - {%s}" % ", ".join(parts))


if __name__ == "__main__":
    main()
