m4_include(common.m4)m4_dnl
LLMB_PRELUDE
# Always built from scratch: a venv records its own path, so it is built
# where it lives, and it counts as done only through the stamp llmb
# writes after this script succeeded. An interrupted build is rebuilt.
dir=LLMB_VENV_DIR
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
LLMB_PYTHON -m venv LLMB_VENV_FLAGS "$dir"
py="$dir/bin/python"
src="$dir/src"
mkdir -p "$src"
llmb_clone() { # key url commit
	local d="$src/$1"
	[ -d "$d/.git" ] || git clone --quiet "$2" "$d"
	git -C "$d" fetch --quiet origin || true
	git -C "$d" checkout --quiet -f "$3"
	local head
	head=$(git -C "$d" rev-parse HEAD)
	[ "$head" = "$3" ] || { echo "llmb: $1 is at $head, pinned $3" >&2; exit 3; }
}
llmb_pip() { "$py" -m pip install --no-cache-dir LLMB_PIP_ARGS "$@"; }
LLMB_STEPS
"$py" -c 'import sys; print("llmb: venv ready,", sys.version.split()[0])'
