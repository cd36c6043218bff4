#!/usr/bin/env bash
# t-proc: the process runner (generator/base/capture.c) through
# tests/proc/proc-driver.c: megabytes through stdin and back on stdout and
# stderr at once without a pipe deadlock, a time limit that kills the whole
# process group, and the message when a program cannot be run.
. "$(dirname "$0")/lib.sh"

DRV=$TRASH/proc-driver
objs=("$TOP"/build/obj/base/{capture,util}.o)
for f in "$TOP/build/CFLAGS" "${objs[@]}"; do
	[ -f "$f" ] || t_skip_all "missing $f (run make)"
done
# build/CFLAGS holds one line: the compiler and every flag build/llmb used.
read -r -a cc <"$TOP/build/CFLAGS"
t_ok "build the driver" "${cc[@]}" -I "$TOP/generator" -o "$DRV" "$TESTS_DIR/proc/proc-driver.c" "${objs[@]}" -lm

# 8 MiB in while 8 MiB come back on each of stdout and stderr: a runner
# that writes all of stdin before reading blocks on the full pipes (timeout
# turns that hang into a failure).
big=$((8 * 1024 * 1024))
t_ok "8 MiB through cat" timeout 60 "$DRV" echo $big cat
t_grep "cat: all of it back, in order" "^rc=0 out=$big err=0 out_same=1 err_same=0$" "$TRASH/.out"
t_ok "8 MiB through tee to stdout and stderr" timeout 60 "$DRV" echo $big sh -c 'tee /dev/stderr'
t_grep "tee: both streams whole" "^rc=0 out=$big err=$big out_same=1 err_same=1$" "$TRASH/.out"
# a child that exits without reading its stdin does not take the caller down
t_ok "child ignores its stdin" timeout 60 "$DRV" echo $big sh -c 'exit 3'
t_grep "its exit status comes back" "^rc=3 out=0 err=0 " "$TRASH/.out"

# The limit kills the process group: the background sleep of the child too.
pidf=$TRASH/grandchild.pid
t_ok "time limit" timeout 60 "$DRV" limit 1 sh -c "sleep 300 & echo \$! >$pidf; echo started; wait"
t_grep "killed by SIGKILL at the limit, output kept" "^rc=137 timed_out=1 out=started$" "$TRASH/.out"
# gone, or a zombie waiting for init to reap it
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
gc=$(cat "$pidf" 2>/dev/null)
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -n "$gc" ] && alive "$gc" && sleep 0.5; done
if [ -n "$gc" ] && ! alive "$gc"; then
	t_pass "the grandchild is gone too"
else
	t_fail "the grandchild $(cat "$pidf" 2>/dev/null) still runs"
	kill "$(cat "$pidf")" 2>/dev/null
fi
t_ok "within the limit" timeout 60 "$DRV" limit 30 sh -c 'echo quick'
t_grep "not killed" "^rc=0 timed_out=0 out=quick$" "$TRASH/.out"

t_ok "a program that does not exist" "$DRV" run llmb-no-such-program
t_grep "cannot run it" "^rc=-1 err=cannot run 'llmb-no-such-program': No such file or directory$" "$TRASH/.out"
t_ok "exit status and signal" "$DRV" run sh -c 'kill -TERM $$'
t_grep "128+signal" "^rc=143 " "$TRASH/.out"

t_done
