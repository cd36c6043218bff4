# shellcheck shell=bash
# An image reference whose file name would hold a colon (a make rule separator).
sed -i "s|nvcr.io#nvidia/w:1.0|nvcr.io#nvidia/w:1.0:2|" workloads/w.yaml
