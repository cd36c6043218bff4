# shellcheck shell=bash
# A template that does not exist.
sed -i "s/^    kind: train/    kind: train\n    template: nosuch/" pipelines/benchmark.yaml
