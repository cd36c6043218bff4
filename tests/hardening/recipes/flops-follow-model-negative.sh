# shellcheck shell=bash
# A negative model dimension (it made negative FLOPs, accepted): one error
# at the dimension, none from the flops terms or {model_flops} built from it.
sed -i 's/tiny: {layers: 2, hidden: 8}/tiny: {layers: -2, hidden: 8}/' workloads/w.yaml
sed -i 's/"--mbs", "{mbs}"\]/"--mbs", "{mbs}", "--model-flops", "{model_flops}"]/' workloads/w.yaml
printf 'flops:\n  attention: "3 * layers * hidden^2 * seq"\n  mlp: "48 * layers * hidden^2 * seq"\n' >>workloads/w.yaml
