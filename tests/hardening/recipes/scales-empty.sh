# shellcheck shell=bash
# A configuration row with no scales runs nothing.
sed -i "s/scales: \[1, 2\]/scales: []/" workloads/w.yaml
