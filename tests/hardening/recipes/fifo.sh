# shellcheck shell=bash
# A FIFO named *.yaml: refused, never read (reading would block forever).
mkfifo workloads/fifo.yaml
