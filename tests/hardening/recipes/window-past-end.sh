# shellcheck shell=bash
# A window that ends after the last step of the run (zero-based: 0-49).
sed -i "s/window: \[11, 44\]/window: [11, 50]/" workloads/w.yaml
