# shellcheck shell=bash
# A finite dimension whose flops terms overflow: one error, at the first
# term; not the second term from the same value, not {model_flops}.
sed -i 's/tiny: {layers: 2, hidden: 8}/tiny: {layers: 2, hidden: 1e200}/' workloads/w.yaml
sed -i 's/"--mbs", "{mbs}"\]/"--mbs", "{mbs}", "--hidden", "{hidden}", "--model-flops", "{model_flops}"]/' workloads/w.yaml
printf 'flops:\n  attention: "3 * layers * hidden^2 * seq"\n  mlp: "48 * layers * hidden^2 * seq"\n' >>workloads/w.yaml
