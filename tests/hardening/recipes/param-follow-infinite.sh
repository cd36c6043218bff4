# shellcheck shell=bash
# An infinite sequence length that mbs, and gbs through mbs, are built
# from: one error, at seq; mbs and gbs fail with it silently.
sed -i 's/seq: 16, mbs: 4, gbs: 8}/seq: 1e400, mbs: "seq", gbs: "mbs * 2"}/' workloads/w.yaml
