# shellcheck shell=bash
# A scale that fits a long but no cluster: bounded.
sed -i "s/scales: \[1, 2\]/scales: [1, 4000000000]/" workloads/w.yaml
