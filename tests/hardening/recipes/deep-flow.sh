# shellcheck shell=bash
# Tens of thousands of nested lists: a depth cap, not a stack overflow.
{ printf "deep: "; head -c 50000 /dev/zero | tr "\0" "["; echo; } >>workloads/w.yaml
