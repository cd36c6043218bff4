# shellcheck shell=bash
# A run parameter (seq) finite on its own but overflowing the flops terms
# built from it, and used by {seq}: one error, not one per term, run or
# placeholder.
sed -i 's/params: {seq: 16,/params: {seq: 1e300,/' workloads/w.yaml
sed -i 's/"--mbs", "{mbs}"\]/"--mbs", "{mbs}", "--seq", "{seq}", "--model-flops", "{model_flops}"]/' workloads/w.yaml
printf 'flops:\n  attention: "3 * layers * hidden^2 * seq^2"\n  mlp: "48 * layers * hidden^2 * seq^2"\n' >>workloads/w.yaml
