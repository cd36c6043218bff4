# shellcheck shell=bash
# A negative mbs that gbs is built from: one error, at mbs, not a second
# at gbs for the -8 it makes.
sed -i 's/mbs: 4, gbs: 8}/mbs: -4, gbs: "mbs * 2"}/' workloads/w.yaml
