# shellcheck shell=bash
# A flops term naming no dimension or parameter: its error, and no second
# one for the {model_flops} it would have bound.
sed -i 's/"--mbs", "{mbs}"\]/"--mbs", "{mbs}", "--model-flops", "{model_flops}"]/' workloads/w.yaml
printf 'flops:\n  attention: "3 * layers * hidden^2 * seq"\n  mlp: "48 * layrs * hidden^2 * seq"\n' >>workloads/w.yaml
