#!/usr/bin/env bash
# run.sh SECONDS TARGET...: runs build/fuzz/fuzz-TARGET for SECONDS each on
# its corpus (build/fuzz/corpus-TARGET, grown across runs, seeded from the
# project's recipes or test logs) and prints one line of figures per target:
# executions, corpus size, crashes. A crash leaves its input in
# build/fuzz/crash-* and makes the exit status 1; each crash is replayed with
# the target's stderr kept (LLMB_FUZZ_STDERR=1), where the sanitizer's report shows.
# The targets' scratch files go to a folder of their own ($TMPDIR for them),
# removed on exit.
set -u
cd "$(dirname "$0")/../.." || exit 2
secs=$1
shift
B=${B:-build}
rc=0
scratch=$(mktemp -d "${TMPDIR:-/tmp}/llmb-fuzz.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
export TMPDIR=$scratch
for t in "$@"; do
	bin=$B/fuzz/fuzz-$t
	corpus=$B/fuzz/corpus-$t
	seeds=$B/fuzz/seeds-$t
	mkdir -p "$corpus" "$seeds"
	case $t in
	recipe) cp workloads/*.yaml tests/hardening/base/workloads/w.yaml "$seeds"/ 2>/dev/null ;;
	history) cp tests/hardening/history-one.jsonl "$seeds"/ 2>/dev/null
		[ -d build/trash/t-verdict ] && find build/trash/t-verdict -name '*.jsonl' -size -64k -exec cp {} "$seeds"/ \; 2>/dev/null ;;
	import) for f in tests/import/*/metadata.yaml; do c=${f%/metadata.yaml}; cp "$f" "$seeds/${c##*/}.yaml"; done 2>/dev/null
		cp tests/import/upstream/*.yaml "$seeds"/ 2>/dev/null ;;
	log) cp tests/parse/logs/*.out "$seeds"/ 2>/dev/null
		[ -d build/trash/t-hardening/logs ] && cp build/trash/t-hardening/logs/*.out "$seeds"/ ;;
	archive) # a small archive of llmb's (the MANIFEST, a long name), and t-archive's
		if [ -x "$B/llmb" ]; then
			mkdir -p "$scratch/seed/history" "$scratch/seed/workloads/w/reports/$(printf 'r%.0s' $(seq 120))"
			echo '{}' >"$scratch/seed/history/a b.jsonl"
			echo x >"$scratch/seed/workloads/w/reports/$(printf 'r%.0s' $(seq 120))/x.md"
			SOURCE_DATE_EPOCH=68719476736 "$B/llmb" archive --install "$scratch/seed" --out "$scratch/seed.tar.gz" \
				--format=gzip >/dev/null 2>&1 && gzip -dc "$scratch/seed.tar.gz" >"$seeds/small.tar"
			rm -rf "$scratch/seed" "$scratch/seed.tar.gz"
		fi
		[ -f build/trash/t-archive/a.tar ] && cp build/trash/t-archive/a.tar "$seeds"/ ;;
	esac
	log=$B/fuzz/$t.log
	"$bin" -max_total_time="$secs" -timeout=60 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$B/fuzz/crash-$t-" "$corpus" "$seeds" >"$log" 2>&1
	st=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	crashes=$(find "$B/fuzz" -maxdepth 1 -name "crash-$t-*" | wc -l)
	echo "fuzz-$t: ${secs} s, ${execs:-?} executions, corpus $(find "$corpus" -type f | wc -l) inputs, $crashes crash file(s), exit $st"
	if [ "$st" != 0 ]; then
		grep -E 'ERROR|SUMMARY|==[0-9]+==' "$log" | head -n 20
		# A crash inside the parser is reported while the target
		# silences stderr: replay each with it kept.
		for c in "$B/fuzz/crash-$t-"*; do
			[ -f "$c" ] || continue
			echo "replay of $c:"
			LLMB_FUZZ_STDERR=1 "$bin" "$c" 2>&1 | grep -E 'runtime error|ERROR|SUMMARY|^ +#[0-9]+ ' | head -n 20
		done
		rc=1
	fi
done
exit $rc
