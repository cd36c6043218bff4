# shellcheck shell=bash
# A negative micro batch size.
sed -i "s/mbs: 4,/mbs: -4,/" workloads/w.yaml
