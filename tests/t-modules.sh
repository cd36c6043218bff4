#!/usr/bin/env bash
# The generator's include graph, read from the #include "..." lines of
# generator/*.[ch]: a module is a .c/.h pair, and X -> Y when X.c or X.h
# includes Y.h. It has no cycle, and the bottom modules include only each
# other (docs/architecture.md draws the layers).
. "$(dirname "$0")/lib.sh"

# include_edges DIR: one "X Y" line per include of Y.h by module X.
include_edges() {
	awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
		m = FILENAME; sub(/.*\//, "", m); sub(/\.[ch]$/, "", m)
		h = $0; sub(/^[^"]*"/, "", h); sub(/\.h".*/, "", h); print m, h }' "$1"/*.[ch]
}
# no_cycle DIR: tsort fails on a loop and names its modules.
no_cycle() { include_edges "$1" | tsort >/dev/null; }
export -f include_edges no_cycle

t_ok "generator/: no include cycle" no_cycle "$TOP/generator"

# The check can fail: two modules that include each other.
mkdir -p "$TRASH/cycle"
printf '#include "b.h"\n' >"$TRASH/cycle/a.c"
printf '#include "a.h"\n' >"$TRASH/cycle/b.c"
printf '#include "c.h"\n' >"$TRASH/cycle/a.h"
t_rc "a cycle is found" 1 bash -c 'no_cycle "$1"' _ "$TRASH/cycle"
t_grep "the cycle names its modules" '^tsort: [ab]$' "$TRASH/.out"

# The bottom: the stage configuration record, the index, the install-tree
# layout, a stage instance's files, the stage kinds, the process runner,
# diagnostics and the utilities are used by everything and use nothing above.
bottom="util diag capture htab stagecfg stagekind layout instance"
include_edges "$TOP/generator" | awk -v b="$bottom" '
	BEGIN { n = split(b, v, " "); for (i = 1; i <= n; i++) low[v[i]] = 1 }
	($1 in low) && $1 != $2 && !($2 in low) { print $1 " includes " $2 ".h" }' >"$TRASH/up.txt"
t_ok "bottom modules ($bottom) include only each other" test ! -s "$TRASH/up.txt"
[ -s "$TRASH/up.txt" ] && sed 's/^/# /' "$TRASH/up.txt"

t_done
