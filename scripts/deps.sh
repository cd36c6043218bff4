#!/usr/bin/env bash
# deps.sh [build|demo|test]: installs the Debian packages llmb needs when
# they are missing and we are root (otherwise says what is missing).
#   build  compiling build/llmb
#   demo   build + what the CPU demo (tinygpt) runs with
#   test   everything make check uses (the default; python3-numpy: the
#          detection bench's reference analysis, bench/edivisive.py)
set -eu
build="gcc make pkg-config libyaml-dev libjansson-dev m4"
demo="$build python3-venv python3-torch"
test="$demo python3-numpy git shellcheck squashfs-tools chromium clang libclang-rt-14-dev zstd
slurmctld slurmd slurm-client munge slurmdbd mariadb-server libpmix2 libpmix-dev"
case ${1:-test} in
build) pkgs=$build ;;
demo) pkgs=$demo ;;
test) pkgs=$test ;;
*) echo "usage: deps.sh [build|demo|test]" >&2; exit 2 ;;
esac
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || [ -n "${LLMB_NO_INSTALL:-}" ]; then
	echo "deps.sh: missing Debian packages:$missing (install them, or run as root)" >&2
	exit 0
fi
echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# Maintainer scripts must not start system daemons: the tests start their own.
hadpolicy=1
if [ ! -e /usr/sbin/policy-rc.d ]; then
	hadpolicy=0
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
fi
# Package lists updated in the last half hour (CI's own update a moment
# ago) are not fetched again.
if [ -z "$(find /var/lib/apt/lists -maxdepth 0 -mmin -30 2>/dev/null)" ]; then
	apt-get update -qq >/dev/null 2>&1 || echo "deps.sh: apt-get update had errors (continuing)" >&2
fi
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
[ "$hadpolicy" = 1 ] || rm -f /usr/sbin/policy-rc.d
