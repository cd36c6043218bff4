#!/usr/bin/env bash
# The setup stages with real make, the local executor and no network: the
# resume scenarios of tests/setup/lib.sh (image import through the enroot
# stand-in, a venv from real git repositories at pinned commits and local
# packages, slow download tasks; make killed during an import, a pip
# install, a clone and a download reattaches; a job killed during a clone
# or a download is never trusted and is redone; two makes at once run one
# job). tests/t-setup-slurm.sh runs the same scenarios on a Slurm cluster.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
EXECUTOR=local
# shellcheck source=tests/setup/lib.sh
. "$TESTS_DIR/setup/lib.sh"
t_done
