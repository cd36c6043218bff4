#!/usr/bin/env bash
# llmb import: hand-written upstream metadata.yaml files (tests/import/<case>/)
# converted into llmb workloads. Goldens: the output (expect.yaml), the
# diagnostics (expect.err) and the exit status (expect.status). Round trips:
# the output fails `llmb check` exactly where its TODOs are; filled in
# (fill.sed), it passes, and where the case mirrors a seed workload its
# image and venv stages are the seed recipe's own (same configuration hash).
#
# Then every upstream metadata.yaml of releases v25.08 to v26.06.01
# (tests/import/upstream, scripts/upstream-metadata.sh): a training recipe
# converts (exit 0, and llmb check accepts it; or exit 1, its gaps errors at
# their upstream positions, and llmb check refuses it only for what the
# TODOs leave out); inference, microbenchmark and RL recipes are refused in
# one line (exit 3); nothing else (bad input, a signal). Goldens of one
# recipe per launcher type and one refusal (tests/import/golden/).
. "$(dirname "$0")/lib.sh"
D=$TESTS_DIR/import

# A throw-away top with the GPU table, the pipeline and one workload file.
mktop() {
	rm -rf "$TRASH/top" && mkdir -p "$TRASH/top/workloads" "$TRASH/top/pipelines"
	cp "$TOP/workloads/gpus.yaml" "$TRASH/top/workloads/"
	cp "$TOP/pipelines/benchmark.yaml" "$TRASH/top/pipelines/"
	cp "$1" "$TRASH/top/workloads/$2.yaml"
}

for dir in "$D"/*/; do
	c=$(basename "$dir")
	case $c in upstream | golden) continue ;; esac
	rc=0
	(cd "$D" && "$LLMB" import -o "$TRASH/$c.yaml" "$c/metadata.yaml") 2>"$TRASH/$c.err" || rc=$?
	echo "$rc" >"$TRASH/$c.status"
	t_cmp "import $c: exit status" "$dir/expect.status" "$TRASH/$c.status"
	t_cmp "import $c: diagnostics" "$dir/expect.err" "$TRASH/$c.err"
	if [ "$rc" = 2 ]; then
		t_ok "import $c: bad input writes nothing" test ! -e "$TRASH/$c.yaml"
		continue
	fi
	t_cmp "import $c: output" "$dir/expect.yaml" "$TRASH/$c.yaml"
	(cd "$D" && "$LLMB" import "$c/metadata.yaml") >"$TRASH/$c.stdout" 2>/dev/null
	t_cmp "import $c: stdout is the -o file" "$TRASH/$c.yaml" "$TRASH/$c.stdout"
	w=$(sed -n 's/^workload: //p' "$TRASH/$c.yaml")
	mktop "$TRASH/$c.yaml" "$w"
	rc=0
	"$LLMB" check --top "$TRASH/top" >/dev/null 2>"$TRASH/$c.check" || rc=$?
	sed -i "s|$TRASH/top/||" "$TRASH/$c.check"
	t_ok "import $c: llmb check refuses the unfilled output" test "$rc" = 2
	t_cmp "import $c: llmb check names the gaps" "$dir/expect.check" "$TRASH/$c.check"
	[ -f "$dir/fill.sed" ] || continue
	sed -f "$dir/fill.sed" "$TRASH/$c.yaml" >"$TRASH/$c.filled.yaml"
	mktop "$TRASH/$c.filled.yaml" "$w"
	t_ok "import $c: filled in, llmb check accepts it" "$LLMB" check --top "$TRASH/top"
done

# The nemotron case is the seed recipe's metadata: its image and venv are
# the seed workload's, byte for byte in their stage configurations.
mktop "$TRASH/nemotron.filled.yaml" nemotron4
for top in "$TRASH/top" "$TOP"; do
	(cd "$top" && env -i PATH="$PATH" WORKLOAD=nemotron4 GPU_TYPE=h100 SIZE=15b DTYPE=bf16 SCALES=16 \
		EXECUTOR=slurm "$LLMB" gen --top . --gen "$TRASH/gen.$(basename "$top")") >/dev/null 2>&1
done
for id in image.nvidia+nemo+25.07.01 venv.0772b291d829; do
	t_cmp "round trip nemotron: stage $id as in workloads/nemotron4.yaml" \
		"$TRASH/gen.$(basename "$TOP")/cfg/$id" "$TRASH/gen.top/cfg/$id"
done

# ---- upstream releases ------------------------------------------------------

U=$D/upstream
# A top for llmb check: the GPU table, the pipeline and the scripts the
# imported commands name ({top}/workloads/...).
mktop_u() {
	rm -rf "$TRASH/utop" && mkdir -p "$TRASH/utop/workloads" "$TRASH/utop/pipelines"
	cp "$TOP/workloads/gpus.yaml" "$TOP/workloads/hf-assets.py" "$TOP/workloads/mbridge-launch.py" "$TRASH/utop/workloads/"
	cp "$TOP/pipelines/benchmark.yaml" "$TRASH/utop/pipelines/"
	cp "$1" "$TRASH/utop/workloads/$2.yaml"
}
mkdir -p "$TRASH/up"
n_files=0 n_ok=0 n_gaps=0 n_ref=0
bad_rc="" bad_ref="" bad_check="" bad_kind=""
for f in "$U"/*.yaml; do
	n=$(basename "$f")
	n_files=$((n_files + 1))
	rc=0
	(cd "$U" && "$LLMB" import --top "$TOP" -o "$TRASH/up/$n" "$n") >/dev/null 2>"$TRASH/up/$n.err" || rc=$?
	echo "$rc" >"$TRASH/up/$n.status"
	wt=$(sed -n 's/^  workload_type: *//p' "$f" | head -n 1)
	case $rc in
	3)
		n_ref=$((n_ref + 1))
		case $wt in pretrain | finetune) bad_kind="$bad_kind $n" ;; esac
		# One line: what the recipe is, and that llmb benchmarks training.
		[ "$(wc -l <"$TRASH/up/$n.err")" = 1 ] &&
			grep -Eq "^llmb import: $n: not converted: (an inference recipe|a microbenchmark|a reinforcement-learning recipe) .*llmb benchmarks training" \
				"$TRASH/up/$n.err" || bad_ref="$bad_ref $n"
		[ ! -e "$TRASH/up/$n" ] || bad_ref="$bad_ref $n(output)"
		continue
		;;
	0 | 1) case $wt in pretrain | finetune) ;; *) bad_kind="$bad_kind $n" ;; esac ;;
	*) bad_rc="$bad_rc $n:$rc"; continue ;;
	esac
	w=$(sed -n 's/^workload: //p' "$TRASH/up/$n")
	mktop_u "$TRASH/up/$n" "$w"
	crc=0
	"$LLMB" check --top "$TRASH/utop" >/dev/null 2>"$TRASH/up/$n.check" || crc=$?
	if [ "$rc" = 0 ]; then
		n_ok=$((n_ok + 1))
		[ "$crc" = 0 ] || bad_check="$bad_check $n(complete,check=$crc)"
	else
		n_gaps=$((n_gaps + 1))
		# Gaps: importer errors at file:line:col; llmb check refuses the
		# output, and only for keys the TODOs leave out (and the names and
		# placeholders those keys would bind).
		grep -Eq "^$n:[0-9]+:[0-9]+: error: not converted: " "$TRASH/up/$n.err" || bad_check="$bad_check $n(no-gap-errors)"
		[ "$crc" = 2 ] || bad_check="$bad_check $n(check=$crc)"
		grep ': error: ' "$TRASH/up/$n.check" | grep -Ev ": error: (missing required key '[a-z_]+'|unknown placeholder \{[a-z_]+\}|flops\.[a-z]+: unknown name '[a-z_]+')" \
			>"$TRASH/up/$n.other" && bad_check="$bad_check $n(other-errors)"
		grep -q 'TODO' "$TRASH/up/$n" || bad_check="$bad_check $n(no-TODO)"
	fi
done
echo "# upstream: $n_files files, $n_ok complete, $n_gaps with gaps, $n_ref refused"
t_ok "upstream: every metadata.yaml imported (exit 0, 1 or 3; never bad input or a signal):${bad_rc:- all}" test -z "$bad_rc"
t_ok "upstream: exit 3 for exactly the recipes that are not training:${bad_kind:- all}" test -z "$bad_kind"
t_ok "upstream: each refusal is one line naming the kind, nothing written:${bad_ref:- all}" test -z "$bad_ref"
t_ok "upstream: llmb check accepts complete outputs, refuses outputs with gaps only at their TODOs:${bad_check:- all}" \
	test -z "$bad_check"
t_ok "upstream: 112 distinct files, 75 training recipes, 37 refused" test "$n_files/$((n_ok + n_gaps))/$n_ref" = 112/75/37
t_ok "upstream: the index names a data file for every release's file" \
	awk -v d="$U" '!/^#/ { if (system("test -f \"" d "/" $3 "\"")) exit 1; n++ } END { exit n != 205 }' "$U/index"

# Goldens: one recipe per launcher type, and a refusal whose YAML has a
# duplicate key (the loader's complaint is not said about a refused file).
for g in "$D"/golden/*.status; do
	n=$(basename "$g" .status)
	t_cmp "golden $n: exit status" "$g" "$TRASH/up/$n.yaml.status"
	t_cmp "golden $n: diagnostics" "$D/golden/$n.err" "$TRASH/up/$n.yaml.err"
	[ -f "$D/golden/$n.yaml" ] && t_cmp "golden $n: output" "$D/golden/$n.yaml" "$TRASH/up/$n.yaml"
done
# The v26.06.01 Megatron-Bridge recipes that llmb has by hand: the import
# with the hand-written recipe's configs rows (what launch.sh and the README
# give) in place of its TODO rows passes llmb check, so everything else the
# importer wrote (tasks, models, FLOPs, measure, train) is a valid recipe.
for p in llama3.1:llama3.1 deepseek-v3:deepseek_v3-pretrain-megatron_bridge qwen3:qwen3-pretrain gpt-oss:gpt-oss-pretrain \
	nemotron-h:nemotron-h nemotron3:nemotron3 kimi-k2:kimi-k2; do
	wl=${p%%:*} rec=${p#*:}
	f=$(awk -v r="$rec" '$1 == "v26.06.01" { p = $2; sub("/metadata.yaml$", "", p); gsub("/", "-", p); if (p == r) print $3 }' "$U/index")
	sed '/^configs:/,$d' "$TRASH/up/$f" >"$TRASH/fill-$wl.yaml"
	sed -n '/^configs:/,$p' "$TOP/workloads/$wl.yaml" >>"$TRASH/fill-$wl.yaml"
	mktop_u "$TRASH/fill-$wl.yaml" "$(sed -n 's/^workload: //p' "$TRASH/up/$f")"
	t_ok "upstream $f with workloads/$wl.yaml's configs rows: llmb check accepts it" "$LLMB" check --top "$TRASH/utop"
done

t_grep "bench/import.sh prints the per-release table" '^v26\.06\.01 +16 +0 +9 +7 ' <(LLMB=$LLMB "$TOP/bench/import.sh")

# ---- hostile input ----------------------------------------------------------
# Files from the internet: every value written into the output is a name
# checked as one or a quoted string; bad input is an error at its place
# (exit 2, nothing written); no size of input costs more than linear time.
H=$TRASH/hostile
mkdir -p "$H"
# hostile NAME REGEX: $H/NAME.yaml refused: exit 2, an error matching
# REGEX at file:line:col, nothing written.
hostile() {
	local rc=0
	(cd "$H" && timeout 60 "$LLMB" import -o "$1.out" "$1.yaml") >/dev/null 2>"$H/$1.err" || rc=$?
	t_ok "hostile $1: exit 2 (got $rc)" test "$rc" = 2
	t_grep "hostile $1: the error at its place" "^$1\.yaml:[0-9]+:[0-9]+: error: $2" "$H/$1.err"
	t_ok "hostile $1: nothing written" test ! -e "$H/$1.out"
}
# from TEMPLATE NAME VALUE: $H/NAME.yaml is $H/TEMPLATE.tmpl with @V@ replaced.
from() {
	local t
	t=$(cat "$H/$1.tmpl")
	printf '%s\n' "${t//@V@/$3}" >"$H/$2.yaml"
}
# imp NAME: converts $H/NAME.yaml to $H/NAME.out, diagnostics in $H/NAME.err.
imp() { (cd "$H" && "$LLMB" import -o "$1.out" "$1.yaml") >/dev/null 2>"$H/$1.err"; }

# A megatron_bridge recipe whose workload_type is missing, a mapping or a
# list (each once a crash).
f=$(awk '$1 == "v26.06.01" && $2 ~ /^llama3.1\// { print $3 }' "$U/index")
sed '/^  workload_type: /d' "$U/$f" >"$H/wt-missing.yaml"
sed 's/^  workload_type: .*/  workload_type: {pretrain: 1}/' "$U/$f" >"$H/wt-map.yaml"
sed 's/^  workload_type: .*/  workload_type: [pretrain]/' "$U/$f" >"$H/wt-list.yaml"
hostile wt-missing "missing key 'workload_type'"
hostile wt-map "'workload_type' must be a scalar, not a mapping"
hostile wt-list "'workload_type' must be a scalar, not a list"

# Keys that would break out of the place they are written to in the output
# (a by_gpu GPU type into an image's gpus list; a git dependency's key into
# a pip entry) are refused as not names.
printf '%s\n' 'general: {workload: nemotron4, workload_type: pretrain, framework: nemo2}' 'container:' '  images:' \
	'    by_gpu:' "      default: ['nvcr.io#nvidia/nemo:25.07.01']" "      \"@V@\": ['nvcr.io#nvidia/nemo:25.07.01']" \
	'run:' '  gpu_configs:' '    h100:' '      model_configs:' '        - {model_size: 15b, dtypes: [bf16], scales: [16]}' \
	>"$H/bygpu.tmpl"
printf '%s\n' 'general: {workload: nemotron4, workload_type: pretrain, framework: nemo2}' 'container:' \
	"  images: ['nvcr.io#nvidia/nemo:25.07.01']" 'repositories:' \
	'  nemo_run: {url: "https://github.com/NVIDIA/NeMo-Run.git", commit: "2ca3b41a2276f1f24bd462e8baeb28c2536aa7b1"}' \
	'setup:' '  dependencies:' '    git:' '      "@V@": {repo_key: nemo_run, install_method: {type: pip}}' \
	'run:' '  gpu_configs:' '    h100:' '      model_configs:' '        - {model_size: 15b, dtypes: [bf16], scales: [16]}' \
	>"$H/git.tmpl"
i=0
for k in 'h100\n      evil: [1]' 'h100: x' 'h100 #x' '- h100' 'h1\"00' "h1'00" 'h100]\n    - {package: evil}' \
	'x, repo: nemo_run}\n    - evil==1\n    - {package: y'; do
	i=$((i + 1))
	from bygpu "bygpu$i" "$k"
	hostile "bygpu$i" "(control character 0x0a in a value: expected a name|'.*' is not a name)"
	from git "git$i" "$k"
	hostile "git$i" "(control character 0x0a in a value: expected a name|'.*' is not a name)"
done
# Good keys still convert (the same templates).
from bygpu bygpu-ok b200
from git git-ok nemo_run
for n in bygpu-ok git-ok; do
	rc=0
	imp "$n" || rc=$?
	t_ok "hostile $n: a good key converts (exit 1, its gaps; got $rc)" test "$rc" = 1
done
t_grep "hostile bygpu-ok: the GPU type in its image's gpus" '^    gpus: \[b200, h100\]$' "$H/bygpu-ok.out"
t_grep "hostile git-ok: the pip entry of the git key" '^    - \{package: nemo_run, repo: nemo_run\}$' "$H/git-ok.out"
# The file's name is written into a comment of the output.
cp "$H/git-ok.yaml" "$H/nl
evil: 1.yaml"
(cd "$H" && "$LLMB" import -o nl.out "nl
evil: 1.yaml") >/dev/null 2>&1
t_grep "a newline in the file's name: the comment goes on" '^# Imported by llmb import from upstream nl\?evil: 1\.yaml\.' "$H/nl.out"
t_nogrep "a newline in the file's name: no key of it" '^evil' "$H/nl.out"
# A release is written into a comment of the output.
sed 's/framework: nemo2}/framework: nemo2, gsw_version: "25.08\\nevil: 1"}/' "$H/git-ok.yaml" >"$H/ver-nl.yaml"
hostile ver-nl "control character 0x0a in a value"

# Scales with a leading zero: YAML 1.1 (upstream's reader) takes 010 as
# octal 8, YAML 1.2 as 10; refused as ambiguous, never guessed.
sed 's/scales: \[16\]/scales: [8, @V@]/' "$H/git-ok.yaml" >"$H/scale.tmpl"
from scale scale-octal 010
hostile scale-octal "scale 010 has a leading zero: ambiguous, upstream's YAML 1.1 reader takes it as octal 8, a YAML 1.2 reader as 10"
from scale scale-08 08
hostile scale-08 "scale 08 has a leading zero: ambiguous, upstream's YAML 1.1 reader takes it as a string"
from scale scale-quoted "'016'"
hostile scale-quoted "scale 016 has a leading zero: ambiguous"

# Booleans as upstream's reader takes them: yes is true; a quoted 'false'
# (true to Python) is refused.
sed 's/scales: \[16\]}/scales: [16], exact_scales: @V@}/' "$H/git-ok.yaml" >"$H/exact.tmpl"
for v in true yes; do
	from exact "exact-$v" "$v"
	imp "exact-$v"
	sed -i "s/exact-$v/exact/" "$H/exact-$v.out" "$H/exact-$v.err"
done
t_cmp "exact_scales: yes is true, as upstream's reader takes it" "$H/exact-true.out" "$H/exact-yes.out"
t_cmp "exact_scales: yes is true: the same diagnostics" "$H/exact-true.err" "$H/exact-yes.err"
from exact exact-quoted "'false'"
hostile exact-quoted "exact_scales must be true or false"

# No silent caps: every dtype of a model config, every asset.
sed "s/dtypes: \[bf16\]/dtypes: [$(seq -s ', ' -f 'd%02g' 1 20)]/" "$H/git-ok.yaml" >"$H/dtypes20.yaml"
imp dtypes20
t_grep "20 dtypes: all in the row" "dtype: \[$(seq -s ', ' -f 'd%02g' 1 20)\]" "$H/dtypes20.out"
{
	cat "$H/git-ok.yaml"
	printf '%s\n' 'downloads:' '  huggingface:' '    - {repo_id: org/m, assets: [tokenizer, tokenizer, config]}'
} >"$H/assets.yaml"
imp assets
t_grep "assets: config after a repeated tokenizer is kept" '"--asset", "tokenizer", "--asset", "config"' "$H/assets.out"
t_grep "assets: the repeated one is said" 'note: asset tokenizer is listed twice' "$H/assets.err"
{
	cat "$H/git-ok.yaml"
	printf '%s\n' 'tools:' '  nsys:' '    by_gpu: {h100: "2025.5.1", b200: [2025]}'
} >"$H/tool-list.yaml"
hostile tool-list "tools.nsys.by_gpu: expected \{gpu: version\}"
sed 's/^  dependencies:$/  tasks: [{name: t, cmd: x.sh, env: {A: "1", B: {c: 1}}}]\n&/' "$H/git-ok.yaml" >"$H/task-env.yaml"
hostile task-env "task env B must be a string, not a mapping"

# Size: a mapping of 200,000 keys and a list of 100,000 items convert in
# linear time (the time limit guards against a hang and measures nothing:
# a quadratic duplicate-key check took minutes).
{
	cat "$H/git-ok.yaml"
	seq -f 'k%g: 1' 1 200000
} >"$H/keys.yaml"
t_rc "200,000 unknown top-level keys: each a note, converted" 1 timeout 60 "$LLMB" import -o "$H/keys.out" "$H/keys.yaml"
{
	cat "$H/git-ok.yaml"
	seq -f 'k%g: 1' 1 200000
	echo 'k99: 2'
} >"$H/dup.yaml"
t_rc "200,000 keys and a duplicate: refused" 2 timeout 60 "$LLMB" import -o "$H/dup.out" "$H/dup.yaml"
t_grep "200,000 keys and a duplicate: the duplicate named with its first place" \
	"^$H/dup.yaml:200015:1: error: duplicate key 'k99' \(first at 113:1\)" "$TRASH/.out"
seq -s , -f 'd%g' 1 100000 >"$H/dtypes.list"
awk -v l="$H/dtypes.list" '/dtypes: \[bf16\]/ { getline d <l; sub(/dtypes: \[bf16\]/, "dtypes: [" d "]") } 1' "$H/git-ok.yaml" >"$H/dtypes.yaml"
t_rc "100,000 dtypes: converted" 1 timeout 60 "$LLMB" import -o "$H/dtypes.out" "$H/dtypes.yaml"
t_grep "100,000 dtypes: all in the row" 'd99999, d100000\]$' "$H/dtypes.out"

# -o replaces a regular file only (atomically), never what it points to.
ln -s /dev/null "$H/null-link"
mkfifo "$H/fifo"
mkdir "$H/dir"
t_rc "-o a symbolic link (as /dev/stdout is): refused" 2 "$LLMB" import -o "$H/null-link" "$H/git-ok.yaml"
t_grep "-o a symbolic link: said" "error: --out .*null-link: a symbolic link, not a regular file: refusing to replace it" "$TRASH/.out"
t_ok "-o a symbolic link: still the link" test -L "$H/null-link"
t_rc "-o a FIFO: refused without blocking" 2 timeout 20 "$LLMB" import -o "$H/fifo" "$H/git-ok.yaml"
t_ok "-o a FIFO: still a FIFO" test -p "$H/fifo"
t_rc "-o a directory: refused" 2 "$LLMB" import -o "$H/dir" "$H/git-ok.yaml"
if mknod "$H/null-dev" c 1 3 2>/dev/null; then
	t_rc "-o a device node: refused" 2 "$LLMB" import -o "$H/null-dev" "$H/git-ok.yaml"
	t_ok "-o a device node: still the device" test -c "$H/null-dev"
fi
echo old >"$H/regular.out"
t_rc "-o a regular file: replaced" 1 sh -c 'cd "$1" && "$2" import -o regular.out git-ok.yaml' sh "$H" "$LLMB"
t_cmp "-o a regular file: the output" "$H/git-ok.out" "$H/regular.out"
(cd "$H" && "$LLMB" import -o - git-ok.yaml) >"$H/dash.out" 2>/dev/null
t_cmp "-o -: standard output" "$H/git-ok.out" "$H/dash.out"

t_rc "import without a file is a usage error" 2 "$LLMB" import
t_rc "import of a missing file" 2 "$LLMB" import "$TRASH/none.yaml"
printf 'general: [1\n' >"$TRASH/syntax.yaml"
t_rc "import of a YAML syntax error" 2 "$LLMB" import "$TRASH/syntax.yaml"
t_done
