#!/usr/bin/env bash
# The generator's layers, checked on the code: generator/ holds one folder
# per layer, in the order docs/architecture.md lists them (its "Layers"
# block, top first); a module is a .c/.h pair inside a folder, named
# folder/module. On the link graph (nm of build/obj/*/*.o: X -> Y when
# X's object uses a symbol Y's object defines) and on the include graph
# (#include "folder/module.h") there is no cycle and no edge from a folder
# to one above it; every source file lies in a listed folder; every
# include names its folder; cmds.h names the file of each command; no
# object below exec/ reads the environment (getenv, environ); no file but
# store/layout joins a name of the install tree into a path.
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

# Nothing below exec/ reads the environment: a command reads the selection
# once (run/selenv.c) and hands values down. env_readers OBJDIR FOLDER...:
# "module symbol" per object of those folders that uses getenv,
# secure_getenv or environ.
env_readers() {
	local d o m
	for d in "${@:2}"; do
		for o in "$1/$d"/*.o; do
			[ -f "$o" ] || continue
			m=${o#"$1"/}; m=${m%.o}
			nm -u "$o" | awk -v m="$m" '$NF ~ /^(getenv|secure_getenv|__?environ)$/ { print m, $NF }'
		done
	done
}
below_exec=$(for d in $order; do [ "$d" = exec ] && break; echo "$d"; done)
t_ok "folders lie below exec/" test -n "$below_exec"
env_readers "$OBJ" $below_exec >"$TRASH/env.readers"
t_ok "no folder below exec/ reads the environment" test ! -s "$TRASH/env.readers"
sed 's/^/# /' "$TRASH/env.readers"

# Install-tree names: store/layout.h lists them (LAYOUT_NAMES, expanded by
# the preprocessor, so the list is layout's own); no other source file and
# no template joins one into a path. spelled NAMES FILE...: "file:line:
# word" for each such word: in C, the words of string literals (of a
# literal with white space, only those with % or $(: prose names files
# freely); in a template, every word of its lines; comments aside. A name
# .x is a suffix, x- or x_ a prefix, a.b a file name, a word a folder
# (between slashes) or a file name's start (word.%s, word.$JOB).
spelled() {
	local names=$1; shift
	awk -v nf="$names" '
	BEGIN { while ((getline n < nf) > 0) name[n] = 1 }
	FNR == 1 { c = FILENAME ~ /\.[ch]$/ }
	function path_word(w,   k, i, x, n, p, hit) {
		k = split(w, x, "/")
		for (i = 1; i <= k; i++)
			for (n in name) {
				if (n ~ /^\./) hit = hit || (substr(x[i], length(x[i]) - length(n) + 1) == n &&
					substr(x[i], 1, length(x[i]) - length(n)) ~ /[%$*]/)
				else if (n ~ /[-_]$/) hit = hit || (substr(x[i], 1, length(n)) == n &&
					(k > 1 || substr(x[i], length(n) + 1) ~ /[%$*]/))
				else if (n ~ /\./) hit = hit || x[i] == n || substr(x[i], 1, length(n) + 1) == n "."
				else hit = hit || (x[i] == n && k > 1) || x[i] == n "." ||
					substr(x[i], 1, length(n) + 6) ~ ("^" n "\\.([%$]|LLMB_)")
			}
		return hit
	}
	/^[ \t]*(#|\/\*|\*)/ { next }
	{
		if (!c) { t = $0; gsub(/["'\''{}()]/, " ", t); nw = split(t, wd, /[ \t;=<>|]+/)
			for (j = 1; j <= nw; j++) if (path_word(wd[j])) print FILENAME ":" FNR ": " wd[j]
			next }
		line = $0
		while (match(line, /"([^"\\]|\\.)*"/)) {
			s = substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH)
			gsub(/\\[nt]/, " ", s); prose = s ~ /[ \t]/
			nw = split(s, wd, /[ \t]+/)
			for (j = 1; j <= nw; j++)
				if ((!prose || wd[j] ~ /%|\$\(/) && path_word(wd[j])) print FILENAME ":" FNR ": " wd[j]
		}
	}' "$@"
}
printf '#include "store/layout.h"\nllmb_names: LAYOUT_NAMES\n' |
	${CC:-cc} -E -P -I "$GEN" -x c - | sed -n 's/^llmb_names: //p' | tr ',' '\n' |
	sed 's/^ *"//; s/" *$//' | sort -u >"$TRASH/names"
t_ok "store/layout.h lists the tree's names" test "$(wc -l <"$TRASH/names")" -gt 40
(cd "$TOP" && spelled "$TRASH/names" $(ls generator/*/*.[ch] | grep -v '^generator/store/layout\.[ch]$') \
	templates/*.m4) >"$TRASH/spelled" 2>&1
t_ok "no tree name spelled outside store/layout (C and templates)" test ! -s "$TRASH/spelled"
sed 's/^/# /' "$TRASH/spelled"
# The list is whole: every name macro of layout.h is in it (an _VAR names
# an environment variable, not a file), and every LLMB_NAME_ a template
# uses is one jobscript.c defines (LAYOUT_SCRIPT_NAMES).
sed -n '/^#define LAYOUT_NAMES/,/^$/p' "$GEN/store/layout.h" | grep -o 'LAYOUT_[A-Z_]*' | sort -u >"$TRASH/names.listed"
sed -n 's/^#define \(LAYOUT_[A-Z_]*\) ".*/\1/p' "$GEN/store/layout.h" | grep -v '_VAR$' | sort -u |
	comm -23 - "$TRASH/names.listed" >"$TRASH/names.unlisted"
t_ok "every name layout.h defines is in LAYOUT_NAMES" test ! -s "$TRASH/names.unlisted"
sed 's/^/# /' "$TRASH/names.unlisted"
sed -n '/^#define LAYOUT_SCRIPT_NAMES/,/^$/p' "$GEN/store/layout.h" | grep -o 'X([A-Z_]*' | sed 's/^X(/LLMB_NAME_/' |
	sort -u >"$TRASH/names.m4"
grep -oh 'LLMB_NAME_[A-Z_]*' "$TOP"/templates/*.m4 | sort -u | comm -23 - "$TRASH/names.m4" >"$TRASH/names.m4.bad"
t_ok "every LLMB_NAME_ of the templates is defined" test ! -s "$TRASH/names.m4.bad"
sed 's/^/# /' "$TRASH/names.m4.bad"

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
# ... and a module of plan/ that calls getenv.
mkdir -p "$TRASH/plant/plan"
printf '#include <stdlib.h>\nconst char *planted(void) { return getenv("WORKLOAD"); }\n' >"$TRASH/plant/plan/x.c"
${CC:-cc} -c -o "$TRASH/plant/plan/x.o" "$TRASH/plant/plan/x.c"
env_readers "$TRASH/plant" $below_exec >"$TRASH/plant.env"
t_grep "a getenv below exec/ is found" '^plan/x getenv$' "$TRASH/plant.env"
# ... and tree names spelled by hand, in C and in a template, but not in
# prose, an option's name or an include.
cat >"$TRASH/plant/plan/y.c" <<'EOS'
#include "exec/executor.h"
static const char *a = "%s/state/done/%s", *b = "no result.json: the run was not parsed";
static const char *c = "log-format", *d = "slurm.limits", *e = "%s/%s/provenance.json";
EOS
printf 'mv -f "$tmp" "$llmb_state/exit.$LLMB_JOB_ID"\n# exit.JOB: the exit status\n' >"$TRASH/plant/x.m4"
spelled "$TRASH/names" "$TRASH/plant/plan/y.c" "$TRASH/plant/x.m4" | sed "s|^$TRASH/plant/||" >"$TRASH/plant.names"
printf '%s\n' 'plan/y.c:2: %s/state/done/%s' 'plan/y.c:3: slurm.limits' 'plan/y.c:3: %s/%s/provenance.json' \
	'x.m4:1: $llmb_state/exit.$LLMB_JOB_ID' >"$TRASH/plant.want"
t_cmp "tree names spelled by hand are found" "$TRASH/plant.want" "$TRASH/plant.names"
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
