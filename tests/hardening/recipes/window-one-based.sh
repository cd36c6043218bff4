# shellcheck shell=bash
# One-based iterations start at 1; the last is the step count.
sed -i "s/indexing: zero/indexing: one/; s/window: \[11, 44\]/window: [0, 51]/" workloads/w.yaml
