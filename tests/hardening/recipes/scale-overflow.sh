# shellcheck shell=bash
# A scale beyond 2^63 would wrap into a negative node count.
sed -i "s/scales: \[1, 2\]/scales: [1, 9223372036854775808]/" workloads/w.yaml
