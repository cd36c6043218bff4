# shellcheck shell=bash
# A NUL byte in a comment of line 5: reported where it is, not at 1:1.
sed -i '5s/$/ # a\x00b/' workloads/w.yaml
