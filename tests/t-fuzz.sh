#!/usr/bin/env bash
# A short fuzzing run of the recipe checker, the log parser, the history
# reader, the archive reader and the importer of upstream recipes
# (libFuzzer, address and undefined sanitizers): 12 s each, no crash
# allowed. `make fuzz` runs the same targets longer. Needs clang with libFuzzer (in the
# test dependencies); skipped where it is missing. Inputs that crashed a
# fuzzer once are kept in tests/fuzz/regress/ and run first.
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || t_skip_all "clang is not installed (scripts/deps.sh installs it)"
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 ||
	t_skip_all "libFuzzer is not installed (libclang-rt-14-dev)"
t_ok "the fuzz targets build" make -C "$TOP" fuzz-build
# Inputs the fuzzers once crashed on (tests/fuzz/regress/TARGET-*) run
# first, once each: a fixed crash stays fixed. Their scratch files go to
# the test's trash.
mkdir -p "$TRASH/tmp" "$TRASH/scratch"
for f in "$TOP"/tests/fuzz/regress/*; do
	t=${f##*/}
	t=${t%%-*}
	t_ok "regress: ${f##*/} runs clean" env TMPDIR="$TRASH/tmp" "$TOP/build/fuzz/fuzz-$t" "$f"
done
t_ok "the regress inputs wrote where TMPDIR pointed" test -n "$(ls -A "$TRASH/tmp")"

secs=${LLMB_FUZZ_SECONDS:-12}
for t in recipe log history archive import; do
	TMPDIR="$TRASH/scratch" "$TOP/tests/fuzz/run.sh" "$secs" "$t" >"$TRASH/$t.out" 2>&1
	st=$?
	sed 's/^/# /' "$TRASH/$t.out"
	t_ok "fuzz-$t: no crash in $secs s" test "$st" = 0
	t_grep "fuzz-$t: it ran" "fuzz-$t: $secs s, [1-9][0-9]* executions" "$TRASH/$t.out"
done
# Fuzzing leaves nothing behind in the folder it was given for scratch files.
t_ok "fuzzing left no scratch files" test -z "$(ls -A "$TRASH/scratch")"

t_done
