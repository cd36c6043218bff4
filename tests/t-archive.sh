#!/usr/bin/env bash
# t-archive: make archive / llmb archive packs an install tree's results
# (built here by the pipeline on the shell-only workload, plus a repeat, a
# night, nightly files and history) into one archive with a MANIFEST;
# llmb verify-archive checks it. The archive round-trips (GNU tar unpacks
# it, sha256sum agrees with the MANIFEST), is the same bytes twice, leaves
# out everything that is not a result (job scripts and records, images,
# data, links), falls back to gzip without zstd, and a changed byte, a
# missing or an extra member is found.
. "$(dirname "$0")/lib.sh"
command -v mksquashfs >/dev/null || t_skip_all "mksquashfs (squashfs-tools) is not installed"
command -v gzip >/dev/null || t_skip_all "gzip is not installed"
T=$TRASH/top
t_quick_checkout "$T"
I=$TRASH/inst
export PATH=$TESTS_DIR/bin:$PATH
unset SOURCE_DATE_EPOCH
m() { make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=quick "$@"; }
SECRET=hf_tarchive_0123456789abcdef
# members NAME: the archive's member names, in order
members() { python3 -c 'import sys, tarfile; [print(n) for n in tarfile.open(sys.argv[1]).getnames()]' "$1"; }
# stream ARCHIVE: the tar stream
stream() { case $1 in *.zst) zstd -dcq "$1" ;; *) gzip -dc "$1" ;; esac; }

export HF_TOKEN=$SECRET
t_ok "make report builds the install tree" m report
grep -rl "$SECRET" "$I" >"$TRASH/secret-files"
t_ok "the token's value is nowhere in the install tree" test ! -s "$TRASH/secret-files"
run1=$I/workloads/quick/experiments/cpu_tiny_fp32_1
# A repeat and a night of run 1, nightly files, a history file; and what
# must stay out: a job script and a note with a secret, a link to a
# secret, a venv, a leftover of an atomic write, the night folder's state.
echo "export HF_TOKEN=$SECRET" >"$TRASH/secret.txt"
for d in repeat-2 night-2026-01-05; do
	mkdir -p "$run1/$d"
	cp "$run1"/log-*.out "$run1"/train.done "$run1"/result.json "$run1"/provenance.json "$run1/$d/"
done
cp "$TRASH/secret.txt" "$run1/job.sh"
cp "$TRASH/secret.txt" "$run1/repeat-2/env.txt"
cp "$TRASH/secret.txt" "$(ls "$I"/state/jobs/train.quick.cpu.tiny.fp32.1/job.*.sh)"
ln -s "$TRASH/secret.txt" "$run1/night-2026-01-05/provenance.json.link"
ln -sf "$TRASH/secret.txt" "$I/workloads/quick/reports/cpu_tiny_fp32.json.pdf"
mkdir -p "$I/venvs/venv_0123456789ab" "$I/nightly/2026-01-05" "$I/history"
echo pip >"$I/venvs/venv_0123456789ab/llmb-venv.txt"
for f in summary.txt verdict.json trend.html status llmb-version; do echo "$f of the night" >"$I/nightly/2026-01-05/$f"; done
echo 2026-01-06 >"$I/nightly/current"
: >"$I/nightly/.lock"
echo '{"night": "2026-01-05"}' >"$I/history/quick-cpu-tiny-fp32-1.jsonl"
: >"$I/history/.lock"
echo '{}' >"$I/history/"$'new\nline.jsonl'
echo half >"$I/workloads/quick/reports/cpu_tiny_fp32.json.tmp.123"
# A job printed the token into its log (a repeat's): packed with the value
# replaced. A report named with a space: sha256sum -c of the README's line.
log2=$(ls "$run1"/repeat-2/log-*.out)
echo "HF_TOKEN=$SECRET (printed by the job)" >>"$log2"
echo "a report" >"$I/workloads/quick/reports/cpu tiny notes.md"
# long paths: ustar's prefix (over 100 bytes), a pax header (a 120-byte name)
long=$run1/repeat-$(printf 'l%.0s' $(seq 90))
longer=$run1/repeat-$(printf 'x%.0s' $(seq 120))
mkdir -p "$long" "$longer"
cp "$run1/result.json" "$long/"
cp "$run1/result.json" "$longer/"

# a profiled run's nsys report and PyTorch trace: left out unless asked
mkdir -p "$run1/nsys_profile" "$run1/tb/torch_profile"
echo nsys >"$run1/nsys_profile/profile_1_2_node0_rank0.nsys-rep"
echo '{}' >"$run1/tb/torch_profile/rank0.pt.trace.json"

# ---- the gzip archive, always ----
mkdir -p "$TRASH/a" "$TRASH/b"
t_ok "make archive ARCHIVE_FORMAT=gzip" m archive ARCHIVE="$TRASH/a/res.tar.gz" ARCHIVE_FORMAT=gzip
t_grep "it says what it wrote" 'res\.tar\.gz: 35 members and the MANIFEST, [0-9]+ bytes \(gzip\)' "$TRASH/.out"
t_grep "a name a MANIFEST line cannot hold is left out, saying so" 'new$' "$TRASH/.out"
t_grep "...saying why" '^line\.jsonl: a control character in the name; left out$' "$TRASH/.out"
t_rc "verify-archive: ok" 0 "$LLMB" verify-archive "$TRASH/a/res.tar.gz"
t_grep "verify-archive counts the members" 'res\.tar\.gz: ok, 35 members match the MANIFEST$' "$TRASH/.out"
members "$TRASH/a/res.tar.gz" >"$TRASH/members"
t_ok "the MANIFEST first, in the folder named after the file" test "$(head -n 1 "$TRASH/members")" = res/MANIFEST
t_ok "the other members in byte order" sh -c "tail -n +2 '$TRASH/members' | LC_ALL=C sort -c"
for f in sysdesc.json \
	workloads/quick/experiments/cpu_tiny_fp32_1/train.done \
	workloads/quick/experiments/cpu_tiny_fp32_2/result.json \
	workloads/quick/experiments/cpu_tiny_fp32_1/repeat-2/provenance.json \
	'workloads/quick/experiments/cpu_tiny_fp32_1/night-2026-01-05/log-quick_cpu_tiny_fp32_1_.*\.out' \
	workloads/quick/reports/cpu_tiny_fp32.json.html workloads/quick/reports/cpu_tiny_fp32.json.csv \
	nightly/2026-01-05/verdict.json nightly/2026-01-05/trend.html nightly/2026-01-05/status \
	history/quick-cpu-tiny-fp32-1.jsonl "${long#"$I"/}/result.json" "${longer#"$I"/}/result.json"; do
	t_grep "a member: ${f:0:70}" "^res/$f\$" "$TRASH/members"
done
t_nogrep "no job script or record, state, image, data, venv, lock, temporary file or link" \
	'/state/|/images/|/data/|/venvs/|\.sh$|/record$|/job|env\.txt|\.lock$|/current$|\.tmp\.|\.link$|\.pdf$' "$TRASH/members"
# What upstream's archive gives a reviewer of each job: beside every
# provenance.json, configuration.json with the job, its image, environment,
# arguments and parallel configuration, secrets by name.
t_ok "a configuration.json beside each of the 4 provenance.json" \
	test "$(grep -c '/configuration\.json$' "$TRASH/members")" = "$(grep -c '/provenance\.json$' "$TRASH/members")"
python3 -c 'import sys, tarfile, json
t = tarfile.open(sys.argv[1])
c = json.load(t.extractfile("res/workloads/quick/experiments/cpu_tiny_fp32_1/configuration.json"))
p = json.load(t.extractfile("res/workloads/quick/experiments/cpu_tiny_fp32_1/provenance.json"))
ok = (c["image"] == p["software"]["image"] and c["environment"] == p["configuration"]["env"] and
      c["arguments"] == p["configuration"]["arguments"] and c["arguments"][:2] == ["bash", "{recipe_dir}/train.sh"] and
      c["parallel"] == p["configuration"]["knobs"] and c["job"] == p["machine"]["job"] and
      c["secrets_by_name"] == p["configuration"]["secrets_by_name"])
sys.exit(not ok)' "$TRASH/a/res.tar.gz" >"$TRASH/.quiet" 2>&1
t_ok "configuration.json: the job's image, environment, arguments, parallel configuration, from its provenance" test $? = 0
t_nogrep "no profile (as upstream's archive)" 'nsys|torch_profile' "$TRASH/members"
t_ok "make archive ARCHIVE_PROFILES=1" m archive ARCHIVE="$TRASH/p.tar.gz" ARCHIVE_FORMAT=gzip ARCHIVE_PROFILES=1
members "$TRASH/p.tar.gz" >"$TRASH/pmembers"
t_grep "...holds the nsys report" '^p/workloads/quick/experiments/cpu_tiny_fp32_1/nsys_profile/profile_1_2_node0_rank0\.nsys-rep$' "$TRASH/pmembers"
t_grep "...and the PyTorch trace" '^p/workloads/quick/experiments/cpu_tiny_fp32_1/tb/torch_profile/rank0\.pt\.trace\.json$' "$TRASH/pmembers"
t_ok "...two members more" test "$(wc -l <"$TRASH/pmembers")" = "$(($(wc -l <"$TRASH/members") + 2))"
t_rc "ARCHIVE_PROFILES=maybe: refused" 2 m archive ARCHIVE="$TRASH/q.tar.gz" ARCHIVE_PROFILES=maybe
t_grep "...saying what it takes" 'ARCHIVE_PROFILES=maybe: expected 1 or 0' "$TRASH/.out"
stream "$TRASH/a/res.tar.gz" >"$TRASH/a.tar"
t_nogrep "no secret in the archive's bytes" "$SECRET" "$TRASH/a.tar"
t_grep "...the value the job printed is replaced by its name" "^HF_TOKEN=<redacted:HF_TOKEN> \\(printed by the job\\)\$" "$TRASH/a.tar"
m archive ARCHIVE="$TRASH/a/res.tar.gz" ARCHIVE_FORMAT=gzip >"$TRASH/redact.out" 2>&1
t_grep "...said on stderr, naming the member" \
	"${log2#"$I"/}: HF_TOKEN's value replaced by <redacted:HF_TOKEN> \\(1 time\\)\$" "$TRASH/redact.out"
t_nogrep "...and never printed" "$SECRET" "$TRASH/redact.out"
python3 -c '
import sys, tarfile
t = tarfile.open(sys.argv[1])
ms = t.getmembers()
print(len({(m.mode, m.uid, m.gid, m.uname, m.gname, m.mtime, m.type) for m in ms}), len(ms))
print(ms[0].mtime, ms[0].mode, ms[0].uid)' "$TRASH/a.tar" >"$TRASH/headers"
t_ok "tar headers normalised: one mode, owner and time for every member" \
	test "$(head -n 1 "$TRASH/headers")" = "1 36"
newest=$(cd "$I" && find workloads/quick/experiments workloads/quick/reports nightly/2026-01-05 history -type f \
	-printf '%T@\n' | cut -d. -f1 | sort -n | tail -n 1)
t_ok "...the newest result's time, mode 0644, owner 0" test "$(tail -n 1 "$TRASH/headers")" = "$newest 420 0"
python3 -c 'import sys, tarfile; sys.stdout.buffer.write(tarfile.open(sys.argv[1]).extractfile("res/MANIFEST").read())' \
	"$TRASH/a.tar" >"$TRASH/MANIFEST"
t_grep "MANIFEST: its format line" '^# llmb archive 1$' "$TRASH/MANIFEST"
t_grep "MANIFEST: llmb's version" "^# llmb: $(git -C "$T" describe --always --dirty)\$" "$TRASH/MANIFEST"
t_grep "MANIFEST: the install tree" "^# install: $I\$" "$TRASH/MANIFEST"
t_grep "MANIFEST: the time" "^# time: $(date -u -d "@$newest" +%Y-%m-%dT%H:%M:%SZ)\$" "$TRASH/MANIFEST"
t_grep "MANIFEST: what was redacted, where" "^# redacted: HF_TOKEN's value, 1 time, in ${log2#"$I"/}\$" "$TRASH/MANIFEST"
t_grep "MANIFEST: the sum of the redacted bytes" \
	"^$(sed "s/$SECRET/<redacted:HF_TOKEN>/" "$log2" | sha256sum | cut -c1-64)  ${log2#"$I"/}  " "$TRASH/MANIFEST"
t_grep "MANIFEST: sha256  path  size" \
	"^$(sha256sum <"$run1/result.json" | cut -c1-64)  workloads/quick/experiments/cpu_tiny_fp32_1/result.json  $(wc -c <"$run1/result.json")\$" \
	"$TRASH/MANIFEST"
mkdir -p "$TRASH/x"
t_ok "GNU tar unpacks it" tar -xzf "$TRASH/a/res.tar.gz" -C "$TRASH/x"
# The README's line, as it is written there, in the unpacked folder: a
# name with a space is one name.
readme_check=$(sed -n 's/^    cd llmb-archive && //p' "$TOP/README.md")
t_ok "the README's sha256sum -c line is there" test -n "$readme_check"
t_ok "...it agrees with the MANIFEST, member by member (a name with a space among them)" \
	sh -c "cd '$TRASH/x/res' && test -f 'workloads/quick/reports/cpu tiny notes.md' && { $readme_check; } >'$TRASH/sums.out'"
t_ok "...it checked every member" test "$(grep -c ': OK$' "$TRASH/sums.out")" = 35
t_ok "the system description is llmb sysdesc of the runs" \
	sh -c "'$LLMB' sysdesc \$(find '$I/workloads' -name provenance.json | sort) | cmp - '$TRASH/x/res/sysdesc.json'"

t_ok "archived again" "$LLMB" archive --top "$T" --install "$I" --out "$TRASH/b/res.tar.gz" --format=gzip
t_ok "the same install tree, the same bytes" cmp "$TRASH/a/res.tar.gz" "$TRASH/b/res.tar.gz"
SOURCE_DATE_EPOCH=86400 "$LLMB" archive --top "$T" --install "$I" --out "$TRASH/b/res.tar.gz" --format=gzip >"$TRASH/.quiet" 2>&1
t_ok "SOURCE_DATE_EPOCH sets the time" sh -c "gzip -dc '$TRASH/b/res.tar.gz' | TZ=UTC tar -tvf - | grep -c ' 1970-01-02 00:00 ' | grep -qx 36"

# ---- zstd when installed; gzip when not ----
if command -v zstd >/dev/null; then
	t_ok "make archive: zstd by default" env -C "$TRASH/a" make -C "$T" B="$TOP/build" LLMB_INSTALL="$I" archive
	t_ok "...named llmb-archive.tar.zst in the current folder" test -f "$T/llmb-archive.tar.zst"
	mv "$T/llmb-archive.tar.zst" "$TRASH/a/"
	t_ok "...zstd data" sh -c "head -c 4 '$TRASH/a/llmb-archive.tar.zst' | od -An -tx1 | grep -q '28 b5 2f fd'"
	t_rc "verify-archive: the zstd archive is ok" 0 "$LLMB" verify-archive "$TRASH/a/llmb-archive.tar.zst"
	"$LLMB" archive --top "$T" --install "$I" --out "$TRASH/b/llmb-archive.tar.zst" >"$TRASH/.quiet" 2>&1
	t_ok "zstd: the same bytes twice" cmp "$TRASH/a/llmb-archive.tar.zst" "$TRASH/b/llmb-archive.tar.zst"
else
	echo "# zstd is not installed: its checks skipped"
fi
mkdir -p "$TRASH/nozstd"
for p in gzip git; do ln -s "$(command -v "$p")" "$TRASH/nozstd/$p"; done
t_rc "without zstd: gzip" 0 env -C "$TRASH/b" PATH="$TRASH/nozstd" "$LLMB" archive --top "$T" --install "$I"
t_grep "...llmb-archive.tar.gz" '^llmb-archive\.tar\.gz: 35 members and the MANIFEST, [0-9]+ bytes \(gzip\)$' "$TRASH/.out"
t_rc "...which verifies without zstd" 0 env PATH="$TRASH/nozstd" "$LLMB" verify-archive "$TRASH/b/llmb-archive.tar.gz"
t_rc "--format=zstd without zstd: exit 2" 2 env PATH="$TRASH/nozstd" "$LLMB" archive --install "$I" --format=zstd --out "$TRASH/b/z.tar.zst"
t_grep "...it says so" 'zstd is not installed' "$TRASH/.out"

# ---- what verify-archive finds ----
# repack SRC DST SCRIPT: the tar stream of SRC changed by python lines
# (members: a list of [TarInfo, bytes]) and written with GNU tar's format
repack() {
	stream "$1" | python3 -c '
import io, sys, tarfile
src = tarfile.open(fileobj=io.BytesIO(sys.stdin.buffer.read()))
members = [[m, src.extractfile(m).read()] for m in src.getmembers()]
exec(sys.argv[1])
out = io.BytesIO()
with tarfile.open(fileobj=out, mode="w", format=tarfile.GNU_FORMAT) as dst:
    for m, d in members:
        m.size = len(d)
        dst.addfile(m, io.BytesIO(d))
sys.stdout.buffer.write(out.getvalue())' "$3" "${4:-}" | gzip -n >"$2"
}
repack "$TRASH/a/res.tar.gz" "$TRASH/same.tar.gz" 'pass'
t_rc "unpacked and packed again by another tar: still ok" 0 "$LLMB" verify-archive "$TRASH/same.tar.gz"
repack "$TRASH/a/res.tar.gz" "$TRASH/flip.tar.gz" '
for m in members:
    if m[0].name.endswith("cpu_tiny_fp32_2/result.json"):
        m[1] = bytearray(m[1]); m[1][10] ^= 1; m[1] = bytes(m[1])'
t_rc "a byte changed in a member: exit 1" 1 "$LLMB" verify-archive "$TRASH/flip.tar.gz"
t_grep "...naming the member" 'flip\.tar\.gz: workloads/quick/experiments/cpu_tiny_fp32_2/result\.json: sha256 differs' "$TRASH/.out"
t_grep "...and counting" 'flip\.tar\.gz: 1 mismatch$' "$TRASH/.out"
repack "$TRASH/a/res.tar.gz" "$TRASH/cut.tar.gz" '
for m in members:
    if m[0].name.endswith("reports/cpu_tiny_fp32.json.md"):
        m[1] = m[1][:-1]
members = [m for m in members if not m[0].name.endswith("nightly/2026-01-05/status")]
x = tarfile.TarInfo("res/workloads/quick/experiments/extra.json"); members.append([x, b"{}"])'
t_rc "a member cut short, one missing, one added: exit 1" 1 "$LLMB" verify-archive "$TRASH/cut.tar.gz"
t_grep "...the short one" 'reports/cpu_tiny_fp32\.json\.md: size [0-9]+, the MANIFEST says [0-9]+$' "$TRASH/.out"
t_grep "...the missing one" 'nightly/2026-01-05/status: listed in the MANIFEST, not in the archive$' "$TRASH/.out"
t_grep "...the added one" 'experiments/extra\.json: not in the MANIFEST$' "$TRASH/.out"
repack "$TRASH/a/res.tar.gz" "$TRASH/noman.tar.gz" 'members = members[1:]'
t_rc "no MANIFEST first: exit 2" 2 "$LLMB" verify-archive "$TRASH/noman.tar.gz"
cp "$TRASH/a/res.tar.gz" "$TRASH/z.tar.gz"
python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 0x55; open(p, "wb").write(b)' \
	"$TRASH/z.tar.gz"
t_rc "a byte changed in the compressed stream: exit 2" 2 "$LLMB" verify-archive "$TRASH/z.tar.gz"
head -c 2000 "$TRASH/a.tar" | gzip -n >"$TRASH/short.tar.gz"
t_rc "a tar cut short: exit 2" 2 "$LLMB" verify-archive "$TRASH/short.tar.gz"
echo 'not an archive' >"$TRASH/text"
t_rc "not compressed data: exit 2" 2 "$LLMB" verify-archive "$TRASH/text"
t_rc "a file that is not there: exit 2" 2 "$LLMB" verify-archive "$TRASH/nothere.tar.gz"
mkfifo "$TRASH/fifo"
t_rc "a FIFO: refused at once, exit 2" 2 timeout 20 "$LLMB" verify-archive "$TRASH/fifo"

# ---- where it writes, and what it refuses ----
t_rc "--out a FIFO: refused, exit 2" 2 timeout 20 "$LLMB" archive --install "$I" --out "$TRASH/fifo" --format=gzip
t_grep "...saying why" 'fifo exists and is not a regular file; not replaced' "$TRASH/.out"
t_ok "...the FIFO is left as it was" test -p "$TRASH/fifo"
t_rc "--out a folder: refused, exit 2" 2 "$LLMB" archive --install "$I" --out "$TRASH/a" --format=gzip
t_ok "...the folder is left as it was" test -d "$TRASH/a"
ln -s "$TRASH/secret.txt" "$TRASH/link.tar.gz"
t_rc "--out a symbolic link: refused, exit 2" 2 "$LLMB" archive --install "$I" --out "$TRASH/link.tar.gz" --format=gzip
t_ok "--out replaces a regular file" "$LLMB" archive --top "$T" --install "$I" --out "$TRASH/b/res.tar.gz" --format=gzip
t_ok "...with the archive" cmp "$TRASH/a/res.tar.gz" "$TRASH/b/res.tar.gz"
t_ok "...leaving no temporary file" test -z "$(find "$TRASH/b" -name "*.tmp.*")"
mkdir -p "$TRASH/empty"
t_rc "an install tree without results: exit 2" 2 "$LLMB" archive --install "$TRASH/empty" --out "$TRASH/e.tar.gz"
t_grep "...saying so" 'no results under' "$TRASH/.out"
mkdir -p "$TRASH/"$'bad\ntree/history'
echo '{}' >"$TRASH/"$'bad\ntree/history/a.jsonl'
t_rc "an install tree whose path has a newline: exit 2" 2 "$LLMB" archive --install "$TRASH/"$'bad\ntree' --out "$TRASH/e.tar.gz"
t_rc "no install tree: exit 2" 2 "$LLMB" archive --install "$TRASH/nothere" --out "$TRASH/e.tar.gz"
t_rc "--format=xz: exit 2" 2 "$LLMB" archive --install "$I" --format=xz --out "$TRASH/e.tar.xz"
t_rc "an operand: usage, exit 2" 2 "$LLMB" archive "$I"
t_rc "verify-archive without a file: usage, exit 2" 2 "$LLMB" verify-archive
# ---- nothing from outside the install tree -----------------------------------
# A small tree of every kind of result, and outside it a private key. A
# folder of the tree's own (workloads/, a workload's, its experiments/ and
# reports/, nightly/ and a night's, history/, exemplar/) that is a link is
# refused, named: what it points to is never packed.
KEY='-----BEGIN OPENSSH PRIVATE KEY----- planted outside the tree'
mktree() {
	rm -rf "$1" && mkdir -p "$1"/workloads/w/experiments/r1 "$1"/workloads/w/reports "$1"/nightly/2026-01-05 \
		"$1"/history "$1"/exemplar
	echo '{}' >"$1"/workloads/w/experiments/r1/result.json
	echo log >"$1"/workloads/w/experiments/r1/log-w_r1_1.out
	echo report >"$1"/workloads/w/reports/r.md
	echo ok >"$1"/nightly/2026-01-05/status
	echo '{}' >"$1"/history/h.jsonl
	echo '{}' >"$1"/exemplar/exemplar.json
}
for f in workloads workloads/w workloads/w/experiments workloads/w/reports nightly nightly/2026-01-05 history exemplar; do
	L=$TRASH/lt
	mktree "$L"
	rm -rf "$TRASH/outside" && mkdir -p "$TRASH/outside"
	mv "$L/$f" "$TRASH/outside/dir"
	# the key, where each walk would take it
	for d in "$TRASH/outside/dir" "$TRASH/outside/dir/w/experiments/r1" "$TRASH/outside/dir/experiments/r1" \
		"$TRASH/outside/dir/r1" "$TRASH/outside/dir/2026-01-05" "$TRASH/outside/dir/w/reports"; do
		[ -d "$d" ] || continue
		for n in id_rsa log-id_rsa.out id_rsa.jsonl; do echo "$KEY" >"$d/$n"; done
	done
	ln -s "$TRASH/outside/dir" "$L/$f"
	rm -f "$TRASH/l.tar.gz"
	t_rc "$f a symbolic link: refused, exit 2" 2 "$LLMB" archive --install "$L" --out "$TRASH/l.tar.gz" --format=gzip
	t_grep "...naming the link" "^llmb archive: $L/$f: a symbolic link where the install tree has a folder; refused" "$TRASH/.out"
	t_ok "...no archive written" test ! -e "$TRASH/l.tar.gz"
done
# A link among the results (a run folder, a file) is left out, named.
mktree "$L"
rm -rf "$TRASH/outside" && mkdir -p "$TRASH/outside/run"
echo "$KEY" >"$TRASH/outside/id_rsa"
echo "$KEY" >"$TRASH/outside/run/result.json"
ln -s "$TRASH/outside/run" "$L/workloads/w/experiments/latest"
ln -s "$TRASH/outside/id_rsa" "$L/workloads/w/reports/id_rsa"
ln -s "$TRASH/outside/id_rsa" "$L/history/id_rsa.jsonl"
t_rc "links among the results: archived" 0 "$LLMB" archive --install "$L" --out "$TRASH/l.tar.gz" --format=gzip
for f in workloads/w/experiments/latest workloads/w/reports/id_rsa history/id_rsa.jsonl; do
	t_grep "...$f left out, named" "^llmb archive: $L/$f: a symbolic link; left out\$" "$TRASH/.out"
done
t_ok "...the key is not in it" sh -c "! gzip -dc '$TRASH/l.tar.gz' | grep -q 'PRIVATE KEY'"
t_rc "...which verifies" 0 "$LLMB" verify-archive "$TRASH/l.tar.gz"

# ---- secrets by every name llmb knows -----------------------------------------------
# Beyond HF_TOKEN: a name a recipe of --top lists under secrets:, one a run's
# provenance says its job was given; a value too short to look for is said.
mktree "$L"
mkdir -p "$TRASH/top2/workloads"
printf 'name: x\ntraining:\n  secrets: [RECIPE_KEY]\n' >"$TRASH/top2/workloads/x.yaml"
echo '{"configuration": {"secrets_by_name": ["PROV_KEY"]}}' >"$L/workloads/w/experiments/r1/provenance.json"
printf 'a=recipe-secret-value-1\nb=prov-secret-value-22\nc=prov-secret-value-22\nd=tiny\n' \
	>"$L/workloads/w/experiments/r1/log-w_r1_1.out"
t_ok "secrets named by a recipe and by a provenance: archived" env RECIPE_KEY=recipe-secret-value-1 \
	PROV_KEY=prov-secret-value-22 HF_TOKEN=tiny "$LLMB" archive --top "$TRASH/top2" --install "$L" --out "$TRASH/s.tar.gz" --format=gzip
t_grep "...the recipe's" "r1/log-w_r1_1\.out: RECIPE_KEY's value replaced by <redacted:RECIPE_KEY> \(1 time\)" "$TRASH/.out"
t_grep "...the provenance's" "r1/log-w_r1_1\.out: PROV_KEY's value replaced by <redacted:PROV_KEY> \(2 times\)" "$TRASH/.out"
t_grep "...a value too short to look for, said" "HF_TOKEN's value is shorter than 8 bytes: not looked for" "$TRASH/.out"
t_ok "...neither value in the archive" sh -c "! gzip -dc '$TRASH/s.tar.gz' | grep -aq 'secret-value'"
t_rc "...which verifies" 0 "$LLMB" verify-archive "$TRASH/s.tar.gz"
# Names that are secrets' by their spelling, in any case: this
# environment's (TOKEN, SLURM_JWT, db_pass), and one a provenance recorded
# in clear, its job's GITHUB_PAT, which this environment does not hold.
mktree "$L"
echo '{"job_environment": {"variables": {"GITHUB_PAT": "ghp-secret-value-4", "NCCL_ALGO": "Ring"}}}' \
	>"$L/workloads/w/experiments/r1/provenance.json"
printf 'a=tok-secret-value-2\nb=jwt-secret-value-3\nc=ghp-secret-value-4\nd=pass-secret-value-5\n' \
	>"$L/workloads/w/experiments/r1/log-w_r1_1.out"
t_ok "secrets named by their spelling: archived" env -u HF_TOKEN TOKEN=tok-secret-value-2 SLURM_JWT=jwt-secret-value-3 \
	db_pass=pass-secret-value-5 "$LLMB" archive --install "$L" --out "$TRASH/n.tar.gz" --format=gzip
for n in TOKEN SLURM_JWT GITHUB_PAT db_pass; do
	t_grep "...$n's value replaced" "r1/log-w_r1_1\.out: $n's value replaced by <redacted:$n> \(1 time\)" "$TRASH/.out"
done
t_ok "...no value in the archive" sh -c "! gzip -dc '$TRASH/n.tar.gz' | grep -aq 'secret-value'"

# ---- the archive's own name, place and time ------------------------------------
# The members' folder is the file's name without its suffixes; a name that
# would make it . or .. (members ./x, ../x) gives llmb-archive/ instead.
for o in '...tar.gz' '..tar.gz'; do
	mkdir -p "$TRASH/o"
	t_ok "--out $o: written" "$LLMB" archive --install "$L" --out "$TRASH/o/$o" --format=gzip
	members "$TRASH/o/$o" >"$TRASH/o.members"
	t_nogrep "...no member outside llmb-archive/" '^([^l]|l[^l])|^llmb-archive/[.]' "$TRASH/o.members"
	t_ok "...the MANIFEST first, in llmb-archive/" test "$(head -n 1 "$TRASH/o.members")" = llmb-archive/MANIFEST
done
# An archive written inside the tree is not packed into the next one.
t_ok "an archive written into a folder of results" "$LLMB" archive --install "$L" --out "$L/workloads/w/reports/old.tar.gz" --format=gzip
t_ok "the next archive" "$LLMB" archive --install "$L" --out "$TRASH/l2.tar.gz" --format=gzip
t_grep "...leaves the first out, saying so" "reports/old\.tar\.gz: compressed data \(an archive\?\), no result; left out" "$TRASH/.out"
t_nogrep "...it is not a member" 'old\.tar\.gz' "$(members "$TRASH/l2.tar.gz" >"$TRASH/l2.members"; echo "$TRASH/l2.members")"
cp "$L/workloads/w/experiments/r1/result.json" "$TRASH/result.kept"
t_rc "--out one of the results: refused, exit 2" 2 "$LLMB" archive --install "$L" --out "$L/workloads/w/experiments/r1/result.json" --format=gzip
t_grep "...saying so" 'r1/result\.json: the --out file is one of the results; not replaced' "$TRASH/.out"
t_ok "...the result as it was" cmp "$TRASH/result.kept" "$L/workloads/w/experiments/r1/result.json"
# A time after 2242 does not fit the header's 11 octal digits: a pax
# "mtime" record carries it, read back exactly; the header holds no cut one.
far=68719476736 # 8^12: 2147 years after 1970
SOURCE_DATE_EPOCH=$far "$LLMB" archive --install "$L" --out "$TRASH/far.tar.gz" --format=gzip >"$TRASH/.quiet" 2>&1
t_ok "SOURCE_DATE_EPOCH=$far: every member keeps that time" \
	test "$(python3 -c 'import sys, tarfile; print(sorted({int(m.mtime) for m in tarfile.open(sys.argv[1])}))' "$TRASH/far.tar.gz")" = "[$far]"
t_rc "...and verifies" 0 "$LLMB" verify-archive "$TRASH/far.tar.gz"
t_rc "SOURCE_DATE_EPOCH beyond the year 9999: ignored, saying so" 0 env SOURCE_DATE_EPOCH=99999999999999999999 \
	"$LLMB" archive --install "$L" --out "$TRASH/far.tar.gz" --format=gzip
t_grep "...saying so" 'SOURCE_DATE_EPOCH=99999999999999999999 is not a time in seconds' "$TRASH/.out"

# ---- verify-archive: a name that leaves the folder is not ok ----------------------
# Listed in the MANIFEST with its right sum and size, still not ok: tar
# would write it elsewhere.
for bad in 'res/../../evil.sh' 'res/x/../../../evil.sh' 'res//evil.sh' 'res/./evil.sh' 'res/evil/..'; do
	repack "$TRASH/a/res.tar.gz" "$TRASH/evil.tar.gz" '
import hashlib
d = b"#!/bin/sh\necho evil\n"
members[0][1] += ("%s  %s  %d\n" % (hashlib.sha256(d).hexdigest(), sys.argv[2][4:], len(d))).encode()
x = tarfile.TarInfo(sys.argv[2]); members.append([x, d])' "$bad"
	t_rc "verify-archive: a member named $bad is not ok, exit 1" 1 "$LLMB" verify-archive "$TRASH/evil.tar.gz"
	t_grep "...naming it" "^$TRASH/evil\.tar\.gz: $(printf '%s' "$bad" | sed 's/[.]/\\./g'): not a plain name below the archive's folder" "$TRASH/.out"
done
repack "$TRASH/a/res.tar.gz" "$TRASH/evil.tar.gz" '
for m in members:
    m[0].name = "../" + m[0].name[4:]'
t_rc "verify-archive: the archive's folder is .., exit 1" 1 "$LLMB" verify-archive "$TRASH/evil.tar.gz"
t_grep "...naming it" "^$TRASH/evil\.tar\.gz: \.\./MANIFEST: not a plain name" "$TRASH/.out"
repack "$TRASH/a/res.tar.gz" "$TRASH/evil.tar.gz" '
x = tarfile.TarInfo("/etc/evil.sh"); members.append([x, b"x"])'
t_rc "verify-archive: an absolute name, exit 1" 1 "$LLMB" verify-archive "$TRASH/evil.tar.gz"
t_grep "...naming it" "^$TRASH/evil\.tar\.gz: /etc/evil\.sh: outside the archive's folder" "$TRASH/.out"
t_done
