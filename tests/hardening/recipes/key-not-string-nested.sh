# shellcheck shell=bash
# A mapping key that is a mapping, inside a value the schema walks.
sed -i "s/^  tiny: {layers: 2, hidden: 8}/  ? {x: 1}\n  : {layers: 2}/" workloads/w.yaml
