m4_include(common.m4)m4_dnl
LLMB_PRELUDE
# The venv is built from scratch each time this job runs: a venv records
# its own path, so it is built where it lives. It counts as done only
# through its manifest, written last, and the stamp llmb writes after this
# script succeeded, so an interrupted build is rebuilt, never trusted.
# Clones are kept across rebuilds, but each is checked out again at its
# pin, cleaned and verified before anything is installed from it.
dir=LLMB_VENV_DIR
src="$dir/src"
keep="$dir.src"
mkdir -p "$(dirname "$dir")"
if [ -d "$src" ]; then
	rm -rf "$keep"
	mv "$src" "$keep"
fi
rm -rf "$dir"
LLMB_PYTHON -m venv LLMB_VENV_FLAGS "$dir"
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
llmb_pip() { "$py" -m pip install --no-cache-dir --disable-pip-version-check LLMB_PIP_ARGS "$@"; }
LLMB_STEPS
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
} >"$dir/LLMB_NAME_VENV_DONE.tmp"
mv -f "$dir/LLMB_NAME_VENV_DONE.tmp" "$dir/LLMB_NAME_VENV_DONE"
echo "llmb: venv ready: $dir"
