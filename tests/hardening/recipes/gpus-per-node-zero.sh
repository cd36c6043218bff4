# shellcheck shell=bash
# A node without GPUs: nodes = scale / gpus_per_node would divide by zero.
sed -i "s/gpus_per_node: 2/gpus_per_node: 0/" workloads/gpus.yaml
