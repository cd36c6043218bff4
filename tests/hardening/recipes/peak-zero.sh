# shellcheck shell=bash
# MFU divides by the peak.
sed -i "s/fp32: 1}/fp32: 0}/" workloads/gpus.yaml
