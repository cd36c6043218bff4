# shellcheck shell=bash
# Profiling stops before it starts (PROFILE_START_STEP >= PROFILE_STOP_STEP is refused too).
sed -i "s/profile: {start: 20, stop: 30}/profile: {start: 30, stop: 20}/" workloads/w.yaml
