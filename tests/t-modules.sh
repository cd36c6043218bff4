#!/usr/bin/env bash
# The generator's layers, checked on the code: generator/ holds one folder
# per layer, in the order docs/architecture.md lists them (its "Layers"
# block, top first); a module is a .c/.h pair inside a folder, named
# folder/module. On the link graph (nm of build/obj/*/*.o: X -> Y when
# X's object uses a symbol Y's object defines) and on the include graph
# (#include "folder/module.h") there is no cycle and no edge from a folder
# to one above it; every source file lies in a listed folder; every
# include names its folder; cmds.h names the file of each command.
. "$(dirname "$0")/lib.sh"

GEN=$TOP/generator
OBJ=$TOP/build/obj

# layers DOC: the folders, bottom first, from the doc's Layers block (lines
# "    folder/   what it holds" between "## Layers" and the next heading).
layers() {
	awk '/^## Layers/ { on = 1; next } /^## / { on = 0 }
		on && /^    [a-z]+\/ / { sub(/^ +/, ""); sub(/\/.*/, ""); print }' "$1" | tac
}
# include_edges DIR: "X Y" per include of Y.h by module X (folder/module).
include_edges() {
	(cd "$1" && awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
		m = FILENAME; sub(/\.[ch]$/, "", m)
		h = $0; sub(/^[^"]*"/, "", h); sub(/\.h".*/, "", h)
		if (m != h) print m, h }' */*.[ch]) | sort -u
}
# link_edges DIR: "X Y" when object X uses a global symbol object Y defines.
link_edges() {
	local o m
	for o in "$1"/*/*.o; do
		m=${o#"$1"/}; m=${m%.o}
		nm -g --defined-only "$o" | awk -v m="$m" 'NF == 3 { print $3, m }'
	done | sort >"$TRASH/defs"
	for o in "$1"/*/*.o; do
		m=${o#"$1"/}; m=${m%.o}
		nm -g --undefined-only "$o" | awk -v m="$m" '{ print $2, m }'
	done | sort >"$TRASH/uses"
	join "$TRASH/uses" "$TRASH/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u
}
# upward ORDER: the edges of stdin from a folder to one above it.
upward() {
	awk -v o="$1" 'BEGIN { n = split(o, v, " "); for (i = 1; i <= n; i++) r[v[i]] = i }
		{ split($1, a, "/"); split($2, b, "/")
		  if (!(b[1] in r) || !(a[1] in r) || r[b[1]] > r[a[1]]) print $1 " -> " $2 }'
}
no_cycle() { tsort "$1" >/dev/null; }
export -f include_edges no_cycle

order=$(layers "$TOP/docs/architecture.md" | tr '\n' ' ')
t_ok "docs/architecture.md lists the layers" test -n "$order"
echo "# layers, bottom first: $order"

# Every file in a listed folder, and every listed folder there.
stray=$( (cd "$GEN" && find . -name '*.[ch]' | sed 's|^\./||') | while read -r f; do
	case " $order " in *" ${f%%/*} "*) ;; *) echo "$f" ;; esac
done)
t_ok "every source file lies in a listed layer folder" test -z "$stray"
[ -n "$stray" ] && printf '# %s\n' $stray
for d in $order; do [ -d "$GEN/$d" ] || t_fail "listed layer $d/ is not a folder"; done

# Includes name their folder (a bare "x.h" would be found by -I only by luck).
bare=$(grep -n '^[ \t]*#[ \t]*include[ \t]*"[^/"]*"' "$GEN"/*/*.[ch] | sed "s|$GEN/||")
t_ok "every include names its folder" test -z "$bare"
[ -n "$bare" ] && printf '# %s\n' "$bare"

include_edges "$GEN" >"$TRASH/inc"
t_ok "include graph: no cycle" no_cycle "$TRASH/inc"
upward "$order" <"$TRASH/inc" >"$TRASH/inc.up"
t_ok "include graph: no folder includes one above it" test ! -s "$TRASH/inc.up"
sed 's/^/# /' "$TRASH/inc.up"

objs=("$OBJ"/*/*.o)
[ -f "${objs[0]}" ] || t_skip_all "no objects under build/obj (run make)"
link_edges "$OBJ" >"$TRASH/link"
t_ok "link graph has edges" test -s "$TRASH/link"
t_ok "link graph: no cycle" no_cycle "$TRASH/link"
upward "$order" <"$TRASH/link" >"$TRASH/link.up"
t_ok "link graph: no folder uses one above it" test ! -s "$TRASH/link.up"
sed 's/^/# /' "$TRASH/link.up"
echo "# $(wc -l <"$TRASH/link") link edges, $(wc -l <"$TRASH/inc") include edges"

# cmds.h: the file beside each command defines it.
while read -r fn file; do
	grep -q "^$fn(" "$GEN/$file" 2>/dev/null || echo "$fn: not in $file"
done < <(sed -n 's|^int \(cmd_[a-z_]*\)(.*/\* \([a-z]*/[a-z_]*\.c\):.*|\1 \2|p' "$GEN/base/cmds.h") >"$TRASH/cmds.bad"
t_ok "cmds.h names the file of each command" test ! -s "$TRASH/cmds.bad"
sed 's/^/# /' "$TRASH/cmds.bad"

# The stage configuration is read in one place: store/stagecfg.c's codec
# (render and parse) spells its keys; every other module reads the typed
# record's fields. Outside it: no by-key reader of the configuration, no
# hand-written "key=" line of it, and kv_get/kv_values (the reader of the
# other key=value state files) never asked for one of its keys, but for
# the files that share a key name, each listed with the file it reads.
# config_keys: the keys the codec writes, one a line.
config_keys() {
	grep -o '(out, "[a-z_]*"' "$1/store/stagecfg.c" | sed 's/.*"\(.*\)"/\1/' | sort -u
}
# config_key_reads DIR: the lines of DIR's modules but the codec that read
# the configuration by key.
config_key_reads() {
	local keys alt
	keys=$(config_keys "$GEN" | paste -sd'|')
	alt='results/(provenance|record)\.c:.*kv_get\([a-z]+, "ref"'                # images/<stem>.id
	alt+='|results/provenance\.c:.*kv_(get|values)\(txt, "(repo|pip|python)"'    # the venv's llmb-venv.txt
	alt+='|store/jobrecord\.c:.*"after='                                       # the job record's own line
	(cd "$1" && grep -nE "\<cfg_(get|values|knob|preflight)\(|\"($keys)=(%[a-z]*)?(\\\\n)?\"|kv_(get|values)\([^,]*, \"($keys)\"" \
		*/*.[ch]) | grep -v '^store/stagecfg\.[ch]:' | grep -vE "^($alt)"
}
keys=$(config_keys "$GEN" | wc -l)
echo "# the configuration's keys (store/stagecfg.c): $keys"
t_ok "the codec writes the configuration's keys" test "$keys" -gt 50
config_key_reads "$GEN" >"$TRASH/cfgreads"
t_ok "the configuration is read by key in store/stagecfg.c alone" test ! -s "$TRASH/cfgreads"
sed 's/^/# /' "$TRASH/cfgreads"

# The checks can fail: two modules that include each other, and a bottom
# folder that uses one above it.
mkdir -p "$TRASH/cycle/a" "$TRASH/cycle/b"
printf '#include "b/y.h"\n' >"$TRASH/cycle/a/x.c"
printf '#include "a/x.h"\n' >"$TRASH/cycle/b/y.c"
include_edges "$TRASH/cycle" >"$TRASH/cycle.edges"
t_rc "a cycle is found" 1 bash -c 'no_cycle "$1"' _ "$TRASH/cycle.edges"
t_grep "the cycle names its modules" '^tsort: [ab]/[xy]$' "$TRASH/.out"
t_ok "an upward edge is found" test -n "$(upward "a b" <"$TRASH/cycle.edges")"
# and a module that reads the configuration by key, or writes its line
mkdir -p "$TRASH/keys/store" "$TRASH/keys/run"
cp "$GEN/store/stagecfg.c" "$TRASH/keys/store/"
printf 'x = cfg_get(cfg, "nodes", buf, sizeof buf);\ny = kv_get(text, "workload", buf, sizeof buf);\nsb_add(s, "after=");\nz = kv_get(text, "job", buf, sizeof buf);\n' >"$TRASH/keys/run/bad.c"
GEN=$TRASH/keys config_key_reads "$TRASH/keys" >"$TRASH/keys.out"
t_grep "a by-key read is found" '^run/bad\.c:1:' "$TRASH/keys.out"
t_grep "a configuration key asked of kv_get is found" '^run/bad\.c:2:' "$TRASH/keys.out"
t_grep "a hand-written configuration line is found" '^run/bad\.c:3:' "$TRASH/keys.out"
t_nogrep "a key of another file is not" '^run/bad\.c:4:' "$TRASH/keys.out"

t_done
