# shellcheck shell=bash
# {top}/ names a checkout file too.
sed -i "s|{recipe_dir}/prep.py|{top}/x\$(shell touch pwned).py|" workloads/w.yaml
