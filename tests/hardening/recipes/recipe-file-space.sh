# shellcheck shell=bash
# A recipe file whose name make would split in two.
cp workloads/w.yaml "workloads/a b.yaml"
