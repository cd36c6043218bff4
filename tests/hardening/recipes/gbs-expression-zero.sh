# shellcheck shell=bash
# A batch size that evaluates to zero at one scale only.
sed -i "s/gbs: 8}/gbs: \"8 * (2 - scale)\"}/" workloads/w.yaml
