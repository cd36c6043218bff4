# shellcheck shell=bash
# A whole-number key given 1e400: out of range, naming its key.
sed -i 's/profile: {start: 20, stop: 30}/profile: {start: 1e400, stop: 30}/' workloads/w.yaml
