# shellcheck shell=bash
# A pipeline with no stages does nothing.
printf "pipeline: benchmark\nstages: []\n" >pipelines/benchmark.yaml
