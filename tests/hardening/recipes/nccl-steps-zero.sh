# shellcheck shell=bash
# A traced run of zero steps.
printf "  nccltrace_steps: 0\n" >>workloads/w.yaml
