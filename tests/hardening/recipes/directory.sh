# shellcheck shell=bash
# A directory named *.yaml.
mkdir workloads/dir.yaml
