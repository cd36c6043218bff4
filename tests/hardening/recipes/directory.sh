# A directory named *.yaml.
mkdir workloads/dir.yaml
