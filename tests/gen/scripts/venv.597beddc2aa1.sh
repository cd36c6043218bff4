#!/bin/bash
# llmb job script for stage venv.597beddc2aa1 (venv venv_597beddc2aa1), from templates/venv.m4.
# Generated, do not edit. Secrets are passed by name, never written here.
set -euo pipefail
export LLMB_STAGE='venv.597beddc2aa1'
export LLMB_INSTALL='/llmb-install'
export LLMB_JOB_ID="${SLURM_JOB_ID:-${LLMB_JOB_ID:-unknown}}"
llmb_state='/llmb-install/state/jobs/venv.597beddc2aa1'
llmb_exit_record() {
	local rc=$? tmp now
	trap 'rc=143; echo "llmb: job $LLMB_JOB_ID got SIGTERM" >&2' TERM
	trap 'rc=130; echo "llmb: job $LLMB_JOB_ID got SIGINT" >&2' INT
	tmp="$llmb_state/exit.$LLMB_JOB_ID.tmp.$$"
	printf -v now '%(%s)T' -1
	printf 'status=%s\nend=%s\njob=%s\n' "$rc" "$now" "$LLMB_JOB_ID" >"$tmp" &&
		mv -f "$tmp" "$llmb_state/exit.$LLMB_JOB_ID"
	exit "$rc"
}
trap llmb_exit_record EXIT
trap 'echo "llmb: job $LLMB_JOB_ID got SIGTERM" >&2; exit 143' TERM
trap 'echo "llmb: job $LLMB_JOB_ID got SIGINT" >&2; exit 130' INT
printf '%s\n' "$LLMB_JOB_ID" >"$llmb_state/started.TOKEN.tmp.$$"
mv -f "$llmb_state/started.TOKEN.tmp.$$" "$llmb_state/started.TOKEN"
TZ=UTC0 printf -v llmb_start '%(%Y-%m-%dT%H:%M:%SZ)T' -1
echo "llmb: job $LLMB_JOB_ID stage $LLMB_STAGE on $HOSTNAME at $llmb_start"



# The venv is built from scratch each time this job runs: a venv records
# its own path, so it is built where it lives. It counts as done only
# through its manifest, written last, and the stamp llmb writes after this
# script succeeded, so an interrupted build is rebuilt, never trusted.
# Clones are kept across rebuilds, but each is checked out again at its
# pin, cleaned and verified before anything is installed from it.
dir='/llmb-install/venvs/venv_597beddc2aa1'
src="$dir/src"
keep="$dir.src"
mkdir -p "$(dirname "$dir")"
if [ -d "$src" ]; then
	rm -rf "$keep"
	mv "$src" "$keep"
fi
rm -rf "$dir"
'/usr/bin/python3' -m venv --system-site-packages "$dir"
py="$dir/bin/python"
if [ -d "$keep" ]; then mv "$keep" "$src"; else mkdir -p "$src"; fi
export VIRTUAL_ENV="$dir" PATH="$dir/bin:$PATH"
unset PYTHONHOME
llmb_pins=()
# llmb_at_pin DIR COMMIT: the clone in DIR checked out, clean, at COMMIT.
llmb_at_pin() {
	git -C "$1" cat-file -e "$2^{commit}" 2>/dev/null || git -C "$1" fetch --quiet origin || true
	git -C "$1" cat-file -e "$2^{commit}" 2>/dev/null || git -C "$1" fetch --quiet origin "$2" || return 1
	git -C "$1" checkout --quiet -f "$2" && git -C "$1" clean -ffdxq &&
		[ "$(git -C "$1" rev-parse HEAD)" = "$2" ]
}
# llmb_clone KEY URL COMMIT: src/KEY at its pinned commit. A new clone is
# made under a temporary name, so a clone cut short is never used.
llmb_clone() {
	local d="$src/$1"
	if [ -d "$d" ] && llmb_at_pin "$d" "$3" 2>/dev/null; then
		echo "llmb: $1: kept clone, at $3"
	else
		rm -rf "$d" "$d.partial"
		git clone --quiet --no-checkout "$2" "$d.partial"
		llmb_at_pin "$d.partial" "$3" || { echo "llmb: $1: cannot check out the pinned commit $3 of $2" >&2; exit 3; }
		mv "$d.partial" "$d"
		echo "llmb: $1: cloned $2 at $3"
	fi
	llmb_pins+=("$1 $2 $3")
}
# llmb_in_clone KEY CMD...: CMD run inside the clone (upstream's cwd).
llmb_in_clone() {
	local key=$1
	shift
	(cd "$src/$key" && "$@")
}
llmb_pip() { "$py" -m pip install --no-cache-dir --disable-pip-version-check  "$@"; }

# What the venv was built from: each clone still at its pin after the
# installs, the interpreter and every installed package.
{
	echo "stage=$LLMB_STAGE"
	echo "job=$LLMB_JOB_ID"
	echo "python=$("$py" -c 'import sys; print(sys.version.split()[0])')"
	for p in ${llmb_pins[@]+"${llmb_pins[@]}"}; do
		read -r key url commit <<<"$p"
		head=$(git -C "$src/$key" rev-parse HEAD)
		[ "$head" = "$commit" ] || { echo "llmb: $key moved to $head during the build, pinned $commit" >&2; exit 3; }
		echo "repo=$key $url $commit"
	done
	"$py" -m pip freeze --all --disable-pip-version-check | sed 's/^/pip=/'
} >"$dir/llmb-venv.txt.tmp"
mv -f "$dir/llmb-venv.txt.tmp" "$dir/llmb-venv.txt"
echo "llmb: venv ready: $dir"
