#!/usr/bin/env bash
# llmb import: hand-written upstream metadata.yaml files (tests/import/<case>/)
# converted into llmb workloads. Goldens: the output (expect.yaml), the
# diagnostics (expect.err) and the exit status (expect.status). Round trips:
# the output fails `llmb check` exactly where its TODOs are; filled in
# (fill.sed), it passes, and where the case mirrors a seed workload its
# image and venv stages are the seed recipe's own (same configuration hash).
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

t_rc "import without a file is a usage error" 2 "$LLMB" import
t_rc "import of a missing file" 2 "$LLMB" import "$TRASH/none.yaml"
printf 'general: [1\n' >"$TRASH/syntax.yaml"
t_rc "import of a YAML syntax error" 2 "$LLMB" import "$TRASH/syntax.yaml"
t_done
