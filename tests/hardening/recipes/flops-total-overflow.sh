# shellcheck shell=bash
# Every term finite, their total not (it was accepted, and {model_flops}
# would have been inf): one error, at flops.
sed -i 's/"--mbs", "{mbs}"\]/"--mbs", "{mbs}", "--model-flops", "{model_flops}"]/' workloads/w.yaml
printf 'flops:\n  attention: "1.5e308"\n  mlp: "1.5e308"\n' >>workloads/w.yaml
