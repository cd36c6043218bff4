# shellcheck shell=bash
# A digest whose first 12 characters hold a colon.
sed -i "s|nvcr.io#nvidia/w:1.0|nvcr.io#nvidia/w@sha256:ab:cd|" workloads/w.yaml
