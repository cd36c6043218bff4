# shellcheck shell=bash
# An infinite model dimension that a flops term, {layers} and {model_flops}
# are built from: one error, at the dimension, naming it.
sed -i 's/tiny: {layers: 2, hidden: 8}/tiny: {layers: 1e400, hidden: 8}/' workloads/w.yaml
sed -i 's/"--mbs", "{mbs}"\]/"--mbs", "{mbs}", "--layers", "{layers}", "--model-flops", "{model_flops}"]/' workloads/w.yaml
printf 'flops:\n  attention: "3 * layers * hidden^2 * seq"\n  mlp: "48 * layers * hidden^2 * seq"\n' >>workloads/w.yaml
