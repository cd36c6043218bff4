"""Model FLOPs per sample counted by hand, GEMM by GEMM, for t-flops.

Independent of llmb's code and of its table: the dimensions are passed on
the command line as the test lists them. Every GEMM of an [s, a] by [a, b]
product costs 2 s a b forward and twice that backward (data and weight
gradients); the core attention is causal, so half of QK^T and of AV counts.

usage: handcount.py CLASS TP KEY=VALUE...   prints the total per sample
"""
import math
import sys


def gemm(s, a, b):
    return 3 * 2 * s * a * b


def causal_core(s, heads, qk_dim, v_dim):
    # QK^T and AV forward 2 s^2 d per head, half of it causal, times 3
    return 3 * s * s * heads * qk_dim + 3 * s * s * heads * v_dim


def gqa(d):
    s, h, n, g, kv = d["seq"], d["hidden"], d["heads"], d["groups"], d["kv"]
    q = gemm(s, h, n * kv)
    k_and_v = 2 * gemm(s, h, g * kv)
    out = gemm(s, n * kv, h)
    return q + k_and_v + out + causal_core(s, n, kv, kv)


def mla(d):
    s, h, n = d["seq"], d["hidden"], d["heads"]
    qk, pos, v, qr, kvr = d["qk"], d["pos"], d["v"], d["qr"], d["kvr"]
    q = gemm(s, h, qr) + 6 * s * qr + gemm(s, qr, n * (qk + pos))   # down, norm, up
    kv = gemm(s, h, kvr) + 6 * s * kvr + gemm(s, kvr, n * (qk + v))  # down, norm, up
    rope_key = gemm(s, h, pos)
    out = gemm(s, n * v, h)
    return q + kv + rope_key + out + causal_core(s, n, qk + pos, v)


def mlp(d, ffn):
    s, h = d["seq"], d["hidden"]
    mats = 3 if d["swiglu"] else 2    # gate, up, down or up, down
    return mats * gemm(s, h, ffn)


def moe(d):
    shared = mlp(d, d["shared"]) if d["shared"] else 0
    lat = d.get("latent", 0)
    if not lat:
        return d["topk"] * mlp(d, d["moe_ffn"]) + shared
    # latent MoE: the token projected down to lat, the routed experts on
    # lat wide tokens, projected back up to hidden; the shared expert on
    # the hidden wide token
    s, h = d["seq"], d["hidden"]
    mats = 3 if d["swiglu"] else 2
    return gemm(s, h, lat) + d["topk"] * mats * gemm(s, lat, d["moe_ffn"]) + gemm(s, lat, h) + shared


def mamba(d):
    # Megatron-Bridge's Mamba count: d_inner = 2 hidden, one in-projection to
    # x, z, B, C and dt, the scan at 7 FLOPs per state element, the
    # out-projection
    s, h, st, gr, nh = d["seq"], d["hidden"], d["state"], d["mgroups"], d["mheads"]
    din = 2 * h
    return gemm(s, h, 2 * din + 2 * gr * st + nh) + 3 * 7 * s * din * st + gemm(s, din, h)


def vocab_padded(d, tp):
    m = d.get("vmult", 128) * tp
    return math.ceil(d["vocab"] / m) * m


def transformer(d, tp):
    attn = mla(d) if d.get("kvr") else gqa(d)
    L, dense_n, mtp = d["layers"], d.get("dense", 0), d.get("mtp", 0)
    if d.get("experts"):
        blocks = dense_n * mlp(d, d["ffn"]) + (L - dense_n) * moe(d)
        mtp_block = moe(d)
    else:
        blocks = L * mlp(d, d["ffn"])
        mtp_block = mlp(d, d["ffn"])
    s, h = d["seq"], d["hidden"]
    # each MTP depth: one more layer, its two input norms and final norm,
    # the projection of [embedding; hidden] to hidden, and its own logits
    mtp_extra = mtp * (attn + mtp_block + 6 * s * 3 * h + gemm(s, 2 * h, h))
    logits = (1 + mtp) * gemm(s, h, vocab_padded(d, tp))
    return L * attn + blocks + mtp_extra + logits


def hybrid(d, tp):
    # the main pattern's layers, each MTP depth's pattern once more per
    # depth, and the logits once per depth too
    mtp = d.get("mtp", 0)
    stack = d["pattern"] + d.get("mtp_pattern", "") * mtp
    count = {c: stack.count(c) for c in "M*-E"}
    s, h = d["seq"], d["hidden"]
    layers = {"M": mamba, "*": gqa, "-": lambda d: mlp(d, d["ffn"]), "E": moe}
    return sum(n * layers[c](d) for c, n in count.items() if n) + (1 + mtp) * gemm(s, h, vocab_padded(d, tp))


def main():
    cls, tp = sys.argv[1], int(sys.argv[2])
    d = {}
    for kv in sys.argv[3:]:
        k, v = kv.split("=", 1)
        d[k] = v if k in ("pattern", "mtp_pattern") else int(v)
    d.setdefault("groups", d.get("heads"))
    d.setdefault("kv", d["hidden"] // d["heads"])
    d.setdefault("shared", 0)
    total = hybrid(d, tp) if cls.startswith("hybrid") else transformer(d, tp)
    print(f"{total:.0f}")


main()
