# shellcheck shell=bash
# A window is two iterations.
sed -i "s/window: \[11, 44\]/window: [11, 20, 44]/" workloads/w.yaml
