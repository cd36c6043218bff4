# shellcheck shell=bash
# A mapping key that is a list: reported, never dereferenced.
printf "? [a, b]\n: 1\n" >>workloads/w.yaml
