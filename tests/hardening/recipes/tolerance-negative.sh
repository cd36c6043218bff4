# shellcheck shell=bash
# A negative tolerance fails every run.
sed -i "s/steps: 50/steps: 50\n  tolerance_pct: -1/" workloads/w.yaml
