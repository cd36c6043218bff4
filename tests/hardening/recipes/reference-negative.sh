# shellcheck shell=bash
# A published step time cannot be negative or zero.
sed -i "s/step_time: 1.5/step_time: -1.5/" workloads/w.yaml
