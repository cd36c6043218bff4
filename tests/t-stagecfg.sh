#!/usr/bin/env bash
# t-stagecfg: the stage configuration codec (generator/store/stagecfg.c)
# through tests/stagecfg/rt-driver.c. Over every instance `llmb check`
# plans, of the checkout's recipes and of the test recipes: the text gen
# writes is the record rendered, parse(render(x)) == x and
# render(parse(text)) == text byte for byte; the files gen writes parse
# back to themselves; a malformed file is refused with its line.
. "$(dirname "$0")/lib.sh"

DRV=$TRASH/rt-driver
objs=()
for src in "$TOP"/generator/*/*.c; do
	case $src in */cmd/main.c) continue ;; esac
	o=${src#"$TOP/generator/"}
	objs+=("$TOP/build/obj/${o%.c}.o")
done
for f in "$TOP/build/CFLAGS" "${objs[@]}"; do
	[ -f "$f" ] || t_skip_all "missing $f (run make)"
done
read -r -a cc <"$TOP/build/CFLAGS"
t_ok "build the driver" "${cc[@]}" -I "$TOP/generator" -o "$DRV" "$TESTS_DIR/stagecfg/rt-driver.c" "${objs[@]}" \
	$(pkg-config --libs yaml-0.1 jansson) -lm

# the checkout's recipes, the exemplar suite's plans with them
t_ok "every instance of the checkout round trips" "$DRV" plans "$TOP"
t_grep "none left out" "^[1-9][0-9]* instances, 0 not round trips$" "$TRASH/.out"

# the test recipes, each in a checkout of its own
n=0
for y in "$TESTS_DIR"/pipeline/quick.yaml "$TESTS_DIR"/slurm-pipeline/sq.yaml "$TESTS_DIR"/slurm-states/ss.yaml \
	"$TESTS_DIR"/confirm/cf.yaml "$TESTS_DIR"/gen/*/workloads/*.yaml; do
	co=$TRASH/co$n
	n=$((n + 1))
	t_checkout "$co"
	cp "$y" "$co/workloads/"
	"$LLMB" check --top "$co" >/dev/null 2>&1 || continue # a recipe t-gen holds to its errors
	t_ok "${y#"$TESTS_DIR/"}: every instance round trips" "$DRV" plans "$co"
done
t_ok "tests/hardening/base: every instance round trips" "$DRV" plans "$TESTS_DIR/hardening/base"

# the files gen writes for the checkout's default selection (on Slurm,
# which runs them all), every kind of stage among them
t_ok "gen" env -C "$TOP" EXECUTOR=slurm "$LLMB" gen --gen "$TRASH/gen"
t_ok "every configuration file round trips" "$DRV" files "$TRASH"/gen/cfg/*
for k in image venv data train parse report; do
	t_grep "among them a $k stage" "^kind=$k$" <(cat "$TRASH"/gen/cfg/*)
done

# malformed files: refused at their line, none read
cfg=$TRASH/gen/cfg/train.tinygpt.cpu.tiny.fp32.2
bad=$TRASH/bad
mkdir -p "$bad"
sed 's/^nodes=1$/nodes=one/' "$cfg" >"$bad/nodes"
sed '/^nodes=/{p;}' "$cfg" >"$bad/twice"
sed 's/^kind=train$/kind=trian/' "$cfg" >"$bad/kind"
sed 's/^run=/run /' "$cfg" >"$bad/noeq"
printf 'id=x\n' >"$bad/header"
line() { grep -n "$1" "$2" | head -1 | cut -d: -f1; }
t_rc "a malformed file is refused" 1 "$DRV" files "$bad/nodes"
t_grep "its line and why" "^$bad/nodes:$(line '^nodes=' "$bad/nodes"):1: error: not a whole number: nodes=one$" "$TRASH/.out"
t_rc "a repeated line" 1 "$DRV" files "$bad/twice"
t_grep "where it is repeated" "^$bad/twice:$(($(line '^nodes=' "$bad/twice") + 1)):1: error: a line missing, repeated or out of the order llmb writes$" "$TRASH/.out"
t_rc "an unknown kind" 1 "$DRV" files "$bad/kind"
t_grep "said" "^$bad/kind:3:1: error: not a stage kind: kind=trian$" "$TRASH/.out"
t_rc "a line without =" 1 "$DRV" files "$bad/noeq"
t_grep "said" "^$bad/noeq:$(line '^run ' "$bad/noeq"):1: error: not a key=value line: run " "$TRASH/.out"
t_rc "not a configuration" 1 "$DRV" files "$bad/header"
t_grep "said" "^$bad/header:1:1: error: not a stage configuration" "$TRASH/.out"
# a second kind= line would read the first kind's fields as the second's
# (a train's nodes= as an image's reference: a crash before); a second
# run= would lose the first's copy
cp "$cfg" "$bad/kind2"
echo kind=image >>"$bad/kind2"
t_rc "a second kind line" 1 "$DRV" files "$bad/kind2"
t_grep "said at it" "^$bad/kind2:$(wc -l <"$bad/kind2"):1: error: a second kind line: kind=image$" "$TRASH/.out"
sed '/^run=/{p;s/^run=.*/run=other/;}' "$cfg" >"$bad/run2"
t_rc "a second run line" 1 "$DRV" files "$bad/run2"
t_grep "said at it" "^$bad/run2:$(line '^run=other' "$bad/run2"):1: error: a second line of the key: run=other$" "$TRASH/.out"

# llmb script reads the configuration through the codec: a file cut short
# is refused at its line, no job script made from what is left.
sgen=$TRASH/sgen
mkdir -p "$sgen"
cp -r "$TRASH/gen/cfg" "$sgen/"
id=train.tinygpt.cpu.tiny.fp32.2
grep -v '^steps=' "$cfg" >"$sgen/cfg/$id"
t_rc "llmb script: a configuration not as gen writes it" 2 "$LLMB" script --top "$TOP" --gen "$sgen" --install "$TRASH/inst" "$id"
t_grep "said at its line" "^$sgen/cfg/$id:$(line '^model_flops=\|^arg=' "$sgen/cfg/$id"):1: error: a line missing, repeated or out of the order llmb writes$" "$TRASH/.out"
t_nogrep "no job script" '^#!' "$TRASH/.out"
cp "$bad/kind2" "$sgen/cfg/$id"
t_rc "llmb script: a second kind line" 2 "$LLMB" script --top "$TOP" --gen "$sgen" --install "$TRASH/inst" "$id"
t_grep "said at its line" "^$sgen/cfg/$id:$(wc -l <"$bad/kind2"):1: error: a second kind line" "$TRASH/.out"

t_done
