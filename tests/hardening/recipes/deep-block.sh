# shellcheck shell=bash
# Deep nesting in block style, one level per line.
awk "BEGIN { for (i = 0; i < 3000; i++) { printf \"%*sk:\n\", i, \"\" } }" >>workloads/w.yaml
