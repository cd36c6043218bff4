# shellcheck shell=bash
# The first measured iteration after the last.
sed -i "s/window: \[11, 44\]/window: [44, 11]/" workloads/w.yaml
