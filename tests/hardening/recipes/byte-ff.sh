# shellcheck shell=bash
# A lone 0xFF byte (no UTF-8) in a comment of line 5: reported where it is.
sed -i '5s/$/ # a\xffb/' workloads/w.yaml
