#!/usr/bin/env bash
# t-verdict: the nightly verdict engine (llmb judge, llmb annotate) on
# generated histories (tests/verdict/histgen.c, seeded: the same bytes
# everywhere), one golden per outcome (text and JSON), and the bad-input
# diagnostics of the history reader (golden .err files, exit 2).
. "$(dirname "$0")/lib.sh"

G=$TESTS_DIR/verdict
FP=tinygpt_cpu_tiny_fp32_1_0123456789ab
cc -O2 -std=c11 -D_DEFAULT_SOURCE -o "$TRASH/histgen" "$G/histgen.c" -lm || { t_fail "histgen builds"; t_done; exit 1; }

# histgen's bimodal shapes (bench/detect-shapes.sh): without noise every
# night is 0.5 or 0.5 x F, so the slow nights' share, their runs and the
# first one can be read off the means
shape() {
	"$TRASH/histgen" -r 0 -w 0 -s 2 -n 4000 -S 3 "$@" | /usr/bin/python3 -c '
import itertools, json, sys
x = [json.loads(l)["summary"]["mean"] > 0.5005 for l in sys.stdin]
runs = [len(list(g)) for k, g in itertools.groupby(x) if k]
print("%.2f %.0f %d" % (sum(x) / len(x), sum(runs) / len(runs), x.index(True) + 1))'
}
t_ok "histgen: independent slow nights, 30% of them" test "$(shape bimodal:0.3:1.03 | cut -d" " -f1-2)" = "0.30 1"
t_ok "histgen: bimodal:P:F:1:1 is bimodal:P:F, byte for byte" cmp <("$TRASH/histgen" -n 50 -S 9 bimodal:0.3:1.03) <("$TRASH/histgen" -n 50 -S 9 bimodal:0.3:1.03:1:1)
t_ok "histgen: slow nights in runs of 4 on average, the share kept" test "$(shape bimodal:0.3:1.03:4 | cut -d" " -f1-2)" = "0.30 4"
t_ok "histgen: a slow mode from night 101 on" test "$(shape bimodal:0.5:1.03:3:101 | cut -d" " -f3)" -ge 101
t_rc "histgen: a share no chain has with these runs: exit 2" 2 "$TRASH/histgen" bimodal:0.9:1.03:2

# mk NAME HISTGEN-ARGS...: a fresh install tree $TRASH/NAME with one history.
mk() {
	local d=$TRASH/$1; shift
	rm -rf "$d" && mkdir -p "$d/history"
	"$TRASH/histgen" -f "$FP" "$@" >"$d/history/$FP.jsonl"
}
# judge NAME RC [JUDGE-ARGS...]: text and JSON against the goldens, exit status.
# NAME may be DIR:TAG when one history is judged twice (goldens DIR-TAG.*).
judge() {
	local d=${1%%:*} n=${1/:/-} rc=$2; shift 2
	t_rc "$n: exit $rc" "$rc" env -C "$TRASH/$d" "$LLMB" judge --install . "$@"
	cp "$TRASH/.out" "$TRASH/$n.txt"
	t_cmp "$n: text" "$G/$n.txt" "$TRASH/$n.txt"
	(cd "$TRASH/$d" && "$LLMB" judge --install . --format=json "$@") >"$TRASH/$n.json" 2>&1
	t_cmp "$n: json" "$G/$n.json" "$TRASH/$n.json"
	[ "$n" = "$d" ] || cp "$TRASH/$n.json" "$TRASH/$d.json"
}
# json DIR OUT [JUDGE-ARGS...]: DIR's verdicts as JSON in $TRASH/OUT.json (no golden).
json() { local d=$1 o=$2; shift 2; (cd "$TRASH/$d" && "$LLMB" judge --install . --format=json "$@") >"$TRASH/$o.json"; }
state() { /usr/bin/python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["configurations"][0]; print(c["state"], c.get("first_bad_night","-"), c.get("first_bad_how","-"))' "$TRASH/$1.json"; }
expect_state() { local n=$1; shift; t_ok "$n: $*" test "$(state "$n")" = "$*"; }
# state_on NAME NIGHT STATE...: NAME judged as of NIGHT (its JSON NAME-DD, DD the day) has STATE
state_on() { local n=$1 night=$2; shift 2; json "$n" "$n-${night##*-}" --night "$night"; expect_state "$n-${night##*-}" "$@"; }
# confirmed_from NAME NIGHT: every night of NAME's JSON from NIGHT on is CONFIRMED
confirmed_from() {
	t_ok "$1: CONFIRMED on every night from $2" /usr/bin/python3 -c '
import json, sys
ns = json.load(open(sys.argv[1]))["configurations"][0]["nights"]
sys.exit(any(n["state"] != "CONFIRMED" for n in ns if n["night"] >= sys.argv[2]))' "$TRASH/$1.json" "$2"
}
# state_days NAME: NAME's CONFIRMED episodes as FIRST..LAST nights
state_days() {
	/usr/bin/python3 -c '
import json, sys
ns = json.load(open(sys.argv[1]))["configurations"][0]["nights"]
out, start = [], None
for i, n in enumerate(ns + [{"state": "", "night": ""}]):
    c = n["state"] == "CONFIRMED"
    if c and start is None: start = i
    if not c and start is not None: out.append(ns[start]["night"] + ".." + ns[i - 1]["night"]); start = None
print(" ".join(out))' "$TRASH/$1.json"
}
# alarms NAME NIGHT...: the nights on which NAME's confirmed episodes began
alarms() {
	local n=$1; shift
	t_ok "$n: alarms on $*" test "$(/usr/bin/python3 -c '
import json, sys
ns = json.load(open(sys.argv[1]))["configurations"][0]["nights"]
c = [x["state"] == "CONFIRMED" for x in ns]
print(" ".join(ns[i]["night"] for i in range(len(ns)) if c[i] and (i == 0 or not c[i - 1])))' "$TRASH/$n.json")" = "$*"
}

mk pass -n 8
judge pass 0
expect_state pass "OK - -"

mk suspect -n 8 shift:8:1.3
judge suspect 0
expect_state suspect "SUSPECT - -"

# The end-to-end shape: 2 good nights, then 40% slower. Night 3 SUSPECT,
# night 4 CONFIRMED by 2 of 3, first bad night 3 (too short for a change-point test).
mk short -n 4 shift:3:1.4
judge short:night3 0 --night 2026-01-03
expect_state short "SUSPECT - -"
judge short 1
expect_state short "CONFIRMED 2026-01-03 first night of the confirmed streak"

# Five earlier nights flag a large shift at once.
mk large -n 6 shift:6:1.3
judge large 0
expect_state large "SUSPECT - -"

mk confirmed -n 14 shift:12:1.08
judge confirmed 1
expect_state confirmed "CONFIRMED 2026-01-12 first night of the shifted tail"

# A 5% rise at 1% noise (the detection bench's series): confirmed on its
# second night, 2026-02-01, with its first night, 3.3% up and 2.8
# deviations off, named at once (one half of the 6.7% night after it was
# the rule before: it named 2026-02-01 and only the next night 2026-01-31).
NOISE1="-w 0.01 -a 0.6 -s 34 -r 0.01 -n 40"
mk renamed $NOISE1 -S 100059 shift:31:1.05
state_on renamed 2026-02-01 "CONFIRMED 2026-01-31 first night of the shifted tail"
state_on renamed 2026-02-03 "CONFIRMED 2026-01-31 first night of the shifted tail"
json renamed renamed
expect_state renamed "CONFIRMED 2026-01-31 first night of the shifted tail"

# One where the next night decides: the rise's first night, 3.1% up after
# a night 3% down, is likelier noise than the first of a step to the 7.8%
# night after it, and 2026-02-01 names itself; the next night (5.9%) shows
# the level, and the first bad night is named again, 2026-01-31.
mk renamed2 $NOISE1 -S 2010075 shift:31:1.05
state_on renamed2 2026-02-01 "CONFIRMED 2026-02-01 first night of the shifted tail"
state_on renamed2 2026-02-02 "CONFIRMED 2026-01-31 first night of the shifted tail"
json renamed2 renamed2
expect_state renamed2 "CONFIRMED 2026-01-31 first night of the shifted tail"

# One night 2.4 deviations low inside that rise (2026-02-03, 2.3% up) does
# not end it: it stays one confirmed regression, not two alarms.
mk onelow $NOISE1 -S 100007 shift:31:1.05
state_on onelow 2026-02-03 "CONFIRMED 2026-01-31 first night of the shifted tail"
json onelow onelow
expect_state onelow "CONFIRMED 2026-01-31 first night of the shifted tail"
confirmed_from onelow 2026-02-01

# Two low nights in a row inside a 5% rise (2026-02-05 and -06, +3.4% and
# +2.7%, the level some +5.4%): the first is above the middle, so the
# second does not end the regression (it did, and 2026-02-07 alarmed again).
mk twolow $NOISE1 -S 100261 shift:31:1.05
json twolow twolow
confirmed_from twolow 2026-02-01

# A 2% rise at 1% noise that lasts (150 nights): an established
# regression ends only on strong odds. At the odds of a young one (e^2.5)
# lasting1 was declared over on 2026-02-14 and alarmed again on
# 2026-02-21 (and again later), and lasting4, confirmed from 2026-02-05,
# was declared over on 2026-02-25 and never confirmed again: the gate went
# silent on a regression that went on for 94 nights more.
mk lasting1 $NOISE1 -n 150 -S 7000001 shift:31:1.02
json lasting1 lasting1
alarms lasting1 2026-02-02
confirmed_from lasting1 2026-02-02
mk lasting4 $NOISE1 -n 150 -S 7000004 shift:31:1.02
json lasting4 lasting4
alarms lasting4 2026-02-05
confirmed_from lasting4 2026-02-05
# Its first three nights (+2.0%, +1.5%, -0.4%) fit the rise as well as
# the old level: one step from 2026-01-31 and one from 2026-02-03 are
# near equally likely, and the odds that weigh the unknown new level
# (step_odds) favour the later, as they favour a 5% rise's own night
# over a run of a little high nights before it.
expect_state lasting4 "CONFIRMED 2026-02-03 first night of the shifted tail"

# A 2% rise at 1% noise declared over by a young episode's odds: confirmed
# on 2026-02-02 and -03, over on 2026-02-04 (+0.7%). Its nights go on about
# 2% up, and the baseline took them in as they came: no tail stood out
# against it, and from 2026-02-04 the gate said OK for 46 nights, a
# regression going on. The nights since the end, together, against the
# baseline before the episode confirm it again on 2026-02-15, named from
# its first bad night.
mk resumed $NOISE1 -n 80 -S 7160 shift:31:1.02
state_on resumed 2026-02-03 "CONFIRMED 2026-02-01 first night of the shifted tail"
state_on resumed 2026-02-04 "OK - -"
state_on resumed 2026-02-14 "OK - -"
state_on resumed 2026-02-15 "CONFIRMED 2026-02-01 a regression declared over whose nights since stand at its level"
json resumed resumed
alarms resumed 2026-02-02 2026-02-15
confirmed_from resumed 2026-02-15

# A 2% rise at 2% noise that lasts (150 nights; the first lasting 2% rise
# of bench/detect.sh's draw at 2% noise alone, seed 0): one deviation up,
# where two nights cannot tell its level from the old one. Confirmed on
# 2026-02-10. Without hold_alpha one night 2.3% under the old level
# (2026-03-16) ended it, and its nights, 2% up as before, were not
# confirmed again in the 75 nights left. Its nights after the night that
# confirmed it, together, stand off the old level by a t-test at
# hold_alpha: it ends as a larger established regression does, on odds
# of e^7.
mk held2 -w 0.01 -a 0.6 -s 34 -r 0.02 -n 150 -S 1171 shift:31:1.02
json held2 held2
alarms held2 2026-02-10
confirmed_from held2 2026-02-10
json held2 held2-0 --hold-alpha=0
alarms held2-0 2026-02-10
t_ok "held2: with --hold-alpha=0, over on 2026-03-16 and CONFIRMED on no night after" test "$(state_days held2-0)" = "2026-02-10..2026-03-15"

# A slow mode that appeared is not held so: 30% of nights 5% slower from
# night 101 at 2% noise (a shapes draw's history), a false alarm from
# 2026-04-26 whose nights after its confirmation stand off the old level
# together, and come and go between it and the mode's (alt_llr's chains):
# over on 2026-05-07, as without hold_alpha. Without the chains
# (--alt-llr=0) it was held until 2026-05-31.
mk heldmode -w 0.01 -a 0.6 -s 34 -r 0.02 -n 300 -S 10006652 bimodal:0.3:1.05:1:101
for a in "" "--hold-alpha=0" "--alt-llr=0 --hold-alpha=0"; do
	# shellcheck disable=SC2086 # the knobs, split
	json heldmode heldmode $a
	alarms heldmode 2026-04-26
	t_ok "heldmode: ${a:-as it is}, over on 2026-05-07" test "$(state_days heldmode)" = "2026-04-26..2026-05-06"
done
json heldmode heldmode --alt-llr=0
t_ok "heldmode: --alt-llr=0 (the rule without the chains): held until 2026-05-31" test "$(state_days heldmode)" = "2026-04-26..2026-05-30"

# A chance run on stationary nights at 1% noise (2026-08-22 to -28 some
# 1.4% up), confirmed on 2026-08-27. Its nights came back: on 2026-09-09
# their median lies within half the minimum effect of the old level, and
# that night, below it, ends the episode. Before, it waited for a night 2
# deviations below the episode's level, until 2026-09-22 (26 nights).
mk chancerun $NOISE1 -n 300 -S 8000132
json chancerun chancerun
alarms chancerun 2026-08-27
state_on chancerun 2026-09-08 "CONFIRMED 2026-08-22 change point"
state_on chancerun 2026-09-09 "OK - -"

# Run-to-run noise that doubles on 2026-01-31, the level unchanged. Until
# the baseline has taken in the noisier nights, runs of high ones look like
# a shift against the old deviation; the tail tests divide by the
# deviation of the nights now (the window's about their mean, the ten
# baseline nights before it about theirs) once an F-test finds it above
# the older nights'. Without that (noise_nights 0, as before), a false
# alarm; the second one there was, 5 nights after the first ended, is now
# taken for the mode of that episode's nights (2026-02-14: episodes
# counted as ended only 5 nights after). That alarm was a pair whose level
# lay under short_effect (3.3% under 5 nights, noise_nights 0 and
# short_effect at min_effect are as before); with short_effect alone a
# later pair, 5.3% up, is the alarm; with the deviation of the nights now
# alone, nothing is. (At chain_odds 7: the pair's alarm is 2026-02-09. At
# the default, two modes e^-5 as likely a priori as one on a baseline no
# noisier than noise_ref, the grid of chains takes that pair for a slow
# mode's run, and the later pair is the alarm.)
mk noisier $NOISE1 -n 60 -S 90034 noisier:31:2
json noisier noisier
alarms noisier
json noisier noisier-before --noise-nights=0 --short-effect=0.015 --short-rise=0 --chain-odds=7
alarms noisier-before 2026-02-09
json noisier noisier-before5 --noise-nights=0 --short-effect=0.015 --short-rise=0
alarms noisier-before5 2026-02-14
json noisier noisier-short --noise-nights=0
alarms noisier-short 2026-02-14
json noisier noisier-short2 --short-effect=0.015
alarms noisier-short2

# A 5% rise after a chance high night (2026-01-28, 3% up): confirmed on
# its second night, 2026-02-01, as a tail from 2026-01-28; while it goes
# on, 2026-02-06 still names 2026-01-28, and on 2026-02-07 one step from
# 2026-01-31 fits the episode better than one step or ramp from
# 2026-01-28, and names it.
mk prerun $NOISE1 -S 50258 shift:31:1.05
state_on prerun 2026-02-01 "CONFIRMED 2026-01-28 first night of the shifted tail"
state_on prerun 2026-02-06 "CONFIRMED 2026-01-28 first night of the shifted tail"
state_on prerun 2026-02-07 "CONFIRMED 2026-01-31 one step or ramp from it fits the episode best"
json prerun prerun
expect_state prerun "CONFIRMED 2026-01-31 one step or ramp from it fits the episode best"
confirmed_from prerun 2026-02-01

# A 2% rise at 1% noise after 30 nights of one normal whose best split
# lies 3.1 deviations apart: no slow mode at 30 nights (one normal's split
# lies that far apart in about 1 baseline in 5), so the rise is no run of
# slow-mode nights and is confirmed, from its first night. With modes at 3
# deviations at any length it was never confirmed.
mk nomode -w 0.01 -a 0.6 -s 34 -r 0.01 -n 45 -S 40397 shift:31:1.02
json nomode nomode
expect_state nomode "CONFIRMED 2026-01-31 change point"

# One normal at 1% noise for 116 nights; the last two stand 1.5% and 3.5%
# up, against 30 nights whose deviation is low by chance (0.80%; 0.94%
# over 90 nights). Against the 30-night deviation the pair confirmed (a
# false alarm); against the larger it is a suspect night.
mk lowdev -w 0.01 -a 0.6 -s 34 -r 0.01 -n 116 -S 200124
json lowdev lowdev
expect_state lowdev "SUSPECT - -"

# A 2% rise at 1% noise whose first three nights stood near 4% up,
# confirmed on its second night; its fourth night, 1.4% up, lies below the
# middle and 2 deviations below the episode's level. One such night is no
# fix (the last nights are far from 12 times likelier at the old level):
# the regression stays CONFIRMED with its first night, instead of ending
# and being confirmed again five nights later.
mk flap -w 0.01 -a 0.6 -s 34 -r 0.01 -n 45 -S 400141 shift:31:1.02
json flap flap
expect_state flap "CONFIRMED 2026-01-31 first night of the shifted tail"
confirmed_from flap 2026-02-01

# Bimodal nights at 0.5% noise (30% of them 3% slower): a run of slow
# nights is confirmed on 2026-04-18 and its episode's median comes back
# to the old level as fast nights follow. It ends there, by the fall-back
# rule alone: no night at the old level can be likelier there than at a
# level that is the same, and the likelihood test kept it CONFIRMED to
# the last night.
mk stuck -w 0.01 -a 0.6 -s 34 -r 0.005 -n 200 -S 300217 bimodal:0.3:1.03
json stuck stuck
expect_state stuck "INCONCLUSIVE - -"

# Bimodal nights at 0.5% noise (30% of them 3% slower) whose first run of
# slow nights is confirmed on 2026-01-11 and falls back two nights
# later. Those nights return into the baseline, so the slow mode is
# learned and its later runs are no regression: one alarm in 100 nights.
# With a confirmed episode's nights kept out for good there were seven.
mk recur -w 0.01 -a 0.6 -s 34 -r 0.005 -n 100 -S 300217 bimodal:0.3:1.03
json recur recur
alarms recur 2026-01-11

mk drift -n 40 drift:21:0.004
judge drift 1
t_grep "drift: confirmed, first bad night within the drift" '"first_bad_night": "2026-01-(2[1-9]|3[0-9])"' "$TRASH/drift.json"

# A single spike never gates: SUSPECT on its night, OK after.
mk spike -n 12 spike:8:1.3
judge spike 0
judge spike:night8 0 --night 2026-01-08
expect_state spike "SUSPECT - -"

# A spike followed by a noisy but normal night (and a slightly high night
# before it) is never CONFIRMED: neither by 2 of 3, nor by the tail or the
# change-point test with the spike inside their window.
mk spike-noisy -n 14 spike:7:1.02 spike:8:1.3 spike:9:1.025 spike:10:1.015
for night in 09 10 11 14; do
	json spike-noisy "spike-noisy-$night" --night "2026-01-$night"
	t_ok "spike-noisy: night $night not confirmed" test "$(state spike-noisy-$night | cut -d' ' -f1)" != CONFIRMED
done
judge spike-noisy 0

# A stall night (3 of 20 steps 5x slower) is no slow night: the stalled
# steps leave its mean, and it is OK (it was SUSPECT at +35%).
mk stall -n 12 stall:10:5:3
judge stall 0 --night 2026-01-10
expect_state stall "OK - -"

# Bimodal nights (30% of them 3% slower, at random: node placement), one
# seeded series of 80 nights at 0.5% run-to-run noise: the slow mode is
# part of the baseline, and no night is ever CONFIRMED (the 2-of-3 rule
# confirmed 6 of them). The last night, in the slow mode at +2.2%, is
# INCONCLUSIVE: an effect that matters, which the noise can explain.
mk bimodal -n 80 -s 34 -a 0.6 -S 3 -r 0.005 bimodal:0.3:1.03
judge bimodal 4
nightstates() { /usr/bin/python3 -c 'import json,sys; print("".join(n["state"][0] for n in json.load(open(sys.argv[1]))["configurations"][0]["nights"]))' "$TRASH/$1.json"; }
t_ok "bimodal: no night confirmed" test "$(nightstates bimodal | tr -cd C)" = ""

# Cases of bench/detect.sh (its seeds; 34 steps, step noise 1% AR(1) 0.6)
# that the previous detector confirmed and the present one does not.
# episodes NAME [JUDGE-ARGS]: the nights (0-based) that start a CONFIRMED run.
episodes() {
	local n=$1; shift
	"$LLMB" judge --format=json "$@" "$TRASH/$n/history/$FP.jsonl" >"$TRASH/$n.ep.json" 2>&1
	/usr/bin/python3 -c 'import json,sys; ns=json.load(open(sys.argv[1]))["configurations"][0]["nights"]
print(" ".join(str(i) for i,n in enumerate(ns) if n["state"]=="CONFIRMED" and (i==0 or ns[i-1]["state"]!="CONFIRMED")) or "none")' "$TRASH/$n.ep.json"
}
# Bimodal nights at 1% noise (30% of them 3% slower): 30 nights show no
# slow mode, and two slow nights close together at night 216 were
# confirmed; the modes learned over 90 nights know them, and so does the
# two-mode chain of the 180 nights before them (vchain) when the modes
# have only 30.
mk bimodal1 -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 1187 bimodal:0.3:1.03
t_ok "bimodal at 1% noise: nothing confirmed (modes over 90 nights)" test "$(episodes bimodal1)" = none
t_ok "bimodal at 1% noise: modes over 30 nights, no chain, confirm night 216" test "$(episodes bimodal1 --regime-window=30 --chain-llr=0)" = 215
t_ok "bimodal at 1% noise: modes over 30 nights, the chain knows the slow nights" test "$(episodes bimodal1 --regime-window=30)" = none
# A 5% regression at 2% noise, fixed after five nights: confirmed once;
# its change point confirmed it a second time after the fix.
mk fixed2 -w 0.01 -a 0.6 -s 34 -r 0.02 -n 45 -S 3379 shift:31:1.05 shift:36:0.952381
t_ok "fixed at 2% noise: one confirmed episode, not two" test "$(episodes fixed2)" = 31
# A stall night at 2% noise that is 3.5 deviations slow even without its
# stalled steps, and a next night 1.2 deviations slow: no shift.
mk stall2 -w 0.01 -a 0.6 -s 34 -r 0.02 -n 40 -S 2948 stall:31:5:3
t_ok "stall night at 2% noise and a slightly slow night: not confirmed" test "$(episodes stall2)" = none
# A 2% rise at 1% noise (bench seed): its nights accumulate, and a ramp
# over the last four nights (the night before the rise among them)
# confirms it on its third night, first bad night exact (the previous
# detector needed six nights).
mk small1 -w 0.01 -a 0.6 -s 34 -r 0.01 -n 40 -S 1364 shift:31:1.02
t_ok "2% rise at 1% noise: confirmed on its third night, first bad night 31" test "$(episodes small1)" = 32
json small1 small1 --night 2026-02-02
expect_state small1 "CONFIRMED 2026-01-31 first night of the shifted tail"
# A drift of 0.3% a night at 1% noise: the ramp test (a steady rise, the
# latest night weighted most) confirms it on its seventh night, the flat
# means of the last nights three nights later.
mk drift1 -w 0.01 -a 0.6 -s 34 -r 0.01 -n 45 -S 1515 drift:31:0.003
t_ok "drift at 1% noise: the ramp confirms on night 38" test "$(episodes drift1)" = 37
t_ok "drift at 1% noise: without the ramp, night 41" test "$(episodes drift1 --ramp-min=1000 --ramp-max=1000)" = 40
# Bimodal nights at 1% noise: a run of slow-mode nights (night 140 on)
# that the previous detector confirmed on night 145 is likely under the
# baseline as two normals (fitted by EM over 90 nights), though the
# 2-means split finds no mode there.
mk bimodal2 -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 1172 bimodal:0.3:1.03
t_ok "bimodal at 1% noise: a run of slow-mode nights is not confirmed" test "$(episodes bimodal2)" = none
# Bimodal nights at 1% noise (bench seed): the change-point test splits
# off the first seven nights (all of the fast mode), but the nights after
# the split lie off the baseline before it by less than the t-test asks.
# Confirmed on night 26 as a shift, the false alarm lasted 88 nights.
mk bimodal3 -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 2399 bimodal:0.3:1.03
t_ok "bimodal at 1% noise: a change point whose later nights are not off the baseline by a t-test confirms nothing" test "$(episodes bimodal3)" = none
t_ok "bimodal at 1% noise: without that t-test, nights 26 and 121" test "$(episodes bimodal3 --cp-level-alpha=0.5 --alt-llr=0)" = "25 120"
# Bimodal nights at 1% noise (a bench seed) whose first four nights were
# fast ones: a change point at night 5, on a baseline of those four (fewer
# than min_nights), confirmed the bimodal nights after as a +2% regression
# and stayed CONFIRMED for the 286 nights after. Such a baseline calls only
# large shifts: nothing is confirmed.
mk younghist -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 4004707 bimodal:0.3:1.03
t_ok "younghist: a change point on a baseline of four nights confirms nothing" test "$(episodes younghist)" = none
# Bimodal nights at 1% noise (a bench seed): two runs of slow-mode nights in
# the first weeks were confirmed and kept out of every baseline, and a
# third run, confirmed from 2026-01-27 against a baseline of the fast mode
# alone, stayed CONFIRMED for 146 nights at +1.3% (+0.2% against the
# nights before it). It is no shift after all once established: it ends,
# its nights return into the baseline. The slow nights of the episodes
# that ended stay in the modes' window, and the single-night alarms of
# 2026-03-01 and 2026-03-04 that came after are gone, and so are those of
# 2026-01-22 and 2026-01-31: each came a few nights after an episode of
# slow nights ended, before the 5 nights after it that said it ended.
mk longbimodal -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 3004717 bimodal:0.3:1.03
json longbimodal longbimodal
alarms longbimodal 2026-01-15
state_on longbimodal 2026-02-07 OK - -
t_ok "longbimodal: nothing CONFIRMED from 2026-03-05 on" /usr/bin/python3 -c '
import json, sys
ns = json.load(open(sys.argv[1]))["configurations"][0]["nights"]
sys.exit(any(n["state"] == "CONFIRMED" for n in ns if n["night"] >= "2026-03-05"))' "$TRASH/longbimodal.json"
# A rare slow mode in runs (bench/detect-shapes.sh's seed: 10% of nights
# 5% slower, runs of 3, 1% noise): the run of 5 slow nights confirmed at
# night 53 lasted past a brief episode and left the slow mode out of every
# later regime window, and the next run was confirmed on its second night
# (night 76). The modes are learned with the nights of an episode that
# ended (the nights after it back at the level before it).
mk purged -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10003338 bimodal:0.1:1.05:3:1
t_ok "purged: an episode of slow-mode nights that ended is a mode later, not a new alarm" test "$(episodes purged)" = 53
# Slow nights in runs of 3 (30% of nights 3% slower, 1% noise, the
# shapes' seed): the modes lie under 3 deviations apart, the mixture
# decides, and it drew each night's mode on its own: runs of 4 to 5 slow
# nights were confirmed at nights 66 and 117 (the ramp's mean, weighted
# to its last nights, taken for a plain one). With the mode's persistence
# from the baseline's autocorrelation, and the ramp's weights, neither is.
mk slowruns -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10003899 bimodal:0.3:1.03:3:1
t_ok "slowruns: runs of slow-mode nights, as likely as the baseline's runs say, confirm nothing" test "$(episodes slowruns)" = none
# A rare slow mode in runs (10% of nights 3% slower, runs of 3, 1% noise,
# a seed of the shapes' draw): a run or two of slow nights in the window
# tell the mode's share poorly, and its point estimate made the run at
# night 149 a change. The share's posterior (and the runs counted
# whenever the nights' autocovariance is positive) where the fit has two
# modes: the same history keeps only its first episode (night 43).
mk sharepost -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10000012 bimodal:0.1:1.03:3:1
t_ok "sharepost: a run of a rare mode, likely under the share's posterior, confirms nothing" test "$(episodes sharepost)" = 43
# A rare slow mode in runs (10% of nights 3% slower, runs of 3, 1% noise,
# a seed of the shapes' draw): the 90 nights before the run of nights 96
# to 98 hold one earlier run, 2.97 nights by responsibility, under the 3
# nights that made the fit two modes; the share's point (3.3%) with the
# nights independent made the run a ramp confirmed on night 99. From 2
# nights in each mode the share's posterior and the runs count.
mk rarerun -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10003072 bimodal:0.1:1.03:3:1
t_ok "rarerun: a run of a mode seen in one earlier run, likely under the share's posterior, confirms nothing" test "$(episodes rarerun)" = none
# A slow mode that appears at night 101 (30% of nights 3% slower, runs of
# 3, 1% noise, a seed of the shapes' draw): its first run is confirmed on
# night 102, as any gate would; that episode ended on night 106, and the
# next run, from night 110, came before the 5 nights after it that said
# it ended, without it in the modes' window: confirmed again on night 112.
# From 2 nights after the episode (the first left out under 5), its
# nights are a mode, and the second run confirms nothing.
mk onsetrun -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10003957 bimodal:0.3:1.03:3:101
t_ok "onsetrun: a run soon after an episode of the same slow mode ended is no new alarm" test "$(episodes onsetrun)" = 102
# A slow mode that appears at night 101 (half the nights 3% slower, runs
# of 3, 1% noise, a seed of the shapes' draw): its first run is confirmed
# on night 101, and that episode ended. 84 nights later the nights since
# it, half of them slow, stood together above the level before it, and
# were confirmed on night 185 as the regression declared over going on,
# against the baseline before the episode, which holds no slow mode. An
# episode 3.5 deviations above that level, whose nights came back to it,
# is a mode that came and went: the level must also lie beyond the modes
# of the night judged, which hold it, and nothing more is confirmed.
mk resumedmode -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10004793 bimodal:0.5:1.03:3:101
t_ok "resumedmode: a slow mode's next runs after its first episode ended are no regression going on" test "$(episodes resumedmode)" = 101
# A slow mode that appears at night 101 (half the nights 5% slower, runs
# of 3, 1% noise, a seed of the shapes' draw): its first run, nights 107
# to 113, is confirmed on night 108; two fast nights end it, and the next
# run, from night 116, was confirmed on night 120. With none of the 2 to 4
# nights after an episode 3.5 deviations above its baseline left out when
# they say whether it ended (its nights then a mode), it confirms nothing.
mk endedfar -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10005054 bimodal:0.5:1.05:3:101
t_ok "endedfar: a run 2 to 4 nights after a far episode of the same slow mode ended is no new alarm" test "$(episodes endedfar)" = 108
# A rare slow mode in runs from the first night (a tenth of the nights 3%
# slower, runs of 3, 1% noise, a seed of the shapes' draw): 90 nights hold
# too few slow nights for the modes, and the run at night 142 was
# confirmed. The chain of the 180 nights before it (vchain) has seen such
# runs come, and explains it better than one new level by less than
# chain_llr: nothing is confirmed.
mk chainrun -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10000018 bimodal:0.1:1.03:3:1
t_ok "chainrun: without the chain, a run of the rare slow mode is confirmed" test "$(episodes chainrun --chain-llr=0)" = 141
t_ok "chainrun: with it, that run is no alarm" test "$(episodes chainrun)" = none
# The same shape, another seed of the shapes' draw: five slow nights in
# three runs in the first 32 nights, none for a hundred, then the run of
# nights 134 to 137, confirmed on night 137. The chain fitted to the 133
# nights before explains them better than one normal by 6.5, under its
# BIC (7.3), so that chain is not believed. Chains of every shape of the grid
# (vchain.c), each weighed by what it explains of those nights, favour two
# modes; with two modes e^-chain_odds (e^-7) as likely a priori as one,
# one new level explains the run better than they do by 9.4, under
# chain_llr: nothing is confirmed.
mk gridrun -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10003038 bimodal:0.1:1.03:3:1
t_ok "gridrun: without the grid (chain_odds 1000), the rare mode's run is confirmed" test "$(episodes gridrun --chain-odds=1000)" = 136
t_ok "gridrun: weighed over the grid, that run is no alarm" test "$(episodes gridrun)" = none
t_ok "gridrun: asked on nights noisier than noise_ref too" test "$(episodes gridrun --noise-ref=0.008)" = none
# The grid at 2% noise (30% of nights 3% slower in runs of 3, a seed of
# the shapes' draw): a run at night 41 that one new level explained better
# than one normal, and that the grid explains as the mode's.
mk gridrun2 -w 0.01 -a 0.6 -s 34 -r 0.02 -n 50 -S 10006452 bimodal:0.3:1.03:3:1
t_ok "gridrun2: at 2% noise, without the grid, the run is confirmed" test "$(episodes gridrun2 --chain-odds-noisy=1000)" = 41
t_ok "gridrun2: weighed over the grid, no alarm" test "$(episodes gridrun2)" = none
# A 2% rise from night 151 after 150 quiet nights at 1% noise (a series
# of bench/detect.sh's late rows) is confirmed on its fifth night, by the
# tail (on its third, by a ramp of 5 nights that a shorter step under
# short_effect fits better: short_step). A
# quiet history's chains explain its first nights too, when two modes
# are as likely a priori as one: at chain_odds 0 it is confirmed on its
# 14th night, and at 3 on its 9th, both too late for the 2% row's 5.
mk gridrise -w 0.01 -a 0.6 -s 34 -r 0.01 -n 165 -S 5315 shift:151:1.02
t_ok "gridrise: a 2% rise after 150 quiet nights is confirmed on its fifth night" test "$(episodes gridrise)" = 154
t_ok "gridrise: the same without the grid" test "$(episodes gridrise --chain-odds=1000)" = 154
t_ok "gridrise: two modes as likely a priori as one: its 14th night" test "$(episodes gridrise --chain-odds=0)" = 163
t_ok "gridrise: at chain_odds 3: its 9th night" test "$(episodes gridrise --chain-odds=3)" = 158
# A rare slow mode 3% up in runs from the first night at 0.5% noise (a
# seed of the shapes' draw): pairs of its nights were confirmed on nights
# 76 and 157. A shift seen over fewer than short_nights (5) nights on a
# whole baseline no noisier than noise_ref must be short_effect (3.3%) or
# more: a pair 3% up is left to the longer windows, and no run here is
# long enough for them.
mk shortrun -w 0.01 -a 0.6 -s 34 -r 0.005 -n 300 -S 10000020 bimodal:0.1:1.03:3:1
# (The grid of chains, asked alone, leaves the first pair: the nights
# before it hold too few of the mode.)
t_ok "shortrun: with short_effect at min_effect, no grid and no chain_seen, two pairs of the slow mode are confirmed" test "$(episodes shortrun --short-effect=0.015 --short-rise=0 --chain-odds=1000 --chain-seen=0)" = "75 156"
t_ok "shortrun: with short_effect at min_effect and no grid, the chain that learns from the first pair (chain_seen) explains the second" test "$(episodes shortrun --short-effect=0.015 --short-rise=0 --chain-odds=1000)" = 75
t_ok "shortrun: with short_effect at min_effect, the grid explains the second pair" test "$(episodes shortrun --short-effect=0.015 --short-rise=0)" = 75
t_ok "shortrun: a pair 3% up is under short_effect: nothing" test "$(episodes shortrun)" = none
# A slow mode 3% up from night 101 at 0.5% noise, a tenth of the nights,
# in runs of 3 (seeds of the shapes' draw). At such noise the 5% row lets
# a short window ask more than short_effect: 5% less 3.5 deviations of
# its mean (short_rise; about 3.65% for a pair). A pair of the mode,
# 3.47% and 3.23% up, was confirmed on night 150.
mk shortrise -w 0.01 -a 0.6 -s 34 -r 0.005 -n 300 -S 10000614 bimodal:0.1:1.03:3:101
t_ok "shortrise: a pair of a slow mode 3% up at 0.5% noise, under 5% less 3.5 of its deviations: nothing" test "$(episodes shortrise)" = none
t_ok "shortrise: held to short_effect alone, the pair is confirmed" test "$(episodes shortrise --short-rise=0)" = 150
# The same shape: two fast nights and a run of 3 nights 3%
# up reach about 1.8% over five, and the tail of 5 nights confirmed them on
# night 114. The run alone fits those nights better than one level (or a
# ramp) by more than short_llr (2): a short step, held to short_effect.
mk shortllr -w 0.01 -a 0.6 -s 34 -r 0.005 -n 300 -S 10000590 bimodal:0.1:1.03:3:101
t_ok "shortllr: a run of 3 nights 3% up inside a tail of 5: nothing" test "$(episodes shortllr)" = none
t_ok "shortllr: without short_llr, the tail of 5 nights confirms it" test "$(episodes shortllr --short-llr=0)" = 114
# A drift of 0.3% a night from night 31 at 0.5% noise (a seed of
# bench/detect.sh): its latest nights fit a short step better than one
# level, but not better than a ramp, and a drift is a ramp: its tail of 5
# nights confirms it on night 37, as without short_llr (on night 40 when
# the step was weighed against one level alone).
mk shortdrift -w 0.01 -a 0.6 -s 34 -r 0.005 -n 45 -S 504 drift:31:0.003
t_ok "shortdrift: a drift at 0.5% noise, confirmed on night 37" test "$(episodes shortdrift)" = 37
t_ok "shortdrift: the same without short_llr" test "$(episodes shortdrift --short-llr=0)" = 37
# A rare slow mode 3% up in runs from the first night at 0.5% noise (a
# seed of the shapes' draw): two nights of it, 53 and 54, came and went
# unconfirmed, too few for the modes; the pair of nights 76 and 77 was
# confirmed on night 77. Nights 53 and 54 lie more than seen_sd (4.5)
# deviations up, at the pair's level: a mode seen before, and nothing is
# confirmed.
mk seenrun -w 0.01 -a 0.6 -s 34 -r 0.005 -n 80 -S 10000484 bimodal:0.1:1.03:3:1
t_ok "seenrun: without seen_sd or short_rise, a pair of the rare slow mode is confirmed" test "$(episodes seenrun --seen-sd=0 --short-rise=0)" = 76
t_ok "seenrun: without seen_sd, the pair is under short_rise: nothing" test "$(episodes seenrun --seen-sd=0)" = none
t_ok "seenrun: at the level of two far nights seen before, it is no alarm" test "$(episodes seenrun)" = none
# What it costs: a 5% rise at 0.5% noise from night 60, one night 5% up
# 40 nights before it. Alone, the rise is confirmed on its second night;
# after the far night, on its fifth (a run of more than 4 nights at the
# level is no mode seen once), named from its first.
mk seenrise -w 0.01 -a 0.6 -s 34 -r 0.005 -n 80 -S 9 spike:20:1.05 shift:60:1.05
t_ok "seenrise: without seen_sd, a 5% rise after a far night is confirmed on its second night" test "$(episodes seenrise --seen-sd=0)" = 60
t_ok "seenrise: with it, on its fifth" test "$(episodes seenrise)" = 63
json seenrise seenrise
expect_state seenrise "CONFIRMED 2026-03-01 change point"
# Half the nights 5% slower from night 101, each on its own, at 0.5%
# noise (a seed of the shapes' draw): night 101 slow, 102 fast, 103 and
# 104 slow. Three nights back under the middle were asked before the far
# night counted as a mode seen once, so the pair was confirmed on night
# 104. Night 102 alone lies 7 deviations under the far night's level:
# odds past e^seen_llr that it is at the old level, and the far night
# came back by itself. What it costs: a 5% rise two nights after a night
# at its level is confirmed a night later (seenback2).
mk seenback -w 0.01 -a 0.6 -s 34 -r 0.005 -n 115 -S 10002347 bimodal:0.5:1.05:1:101
t_ok "seenback: a pair of the slow mode one fast night after its first night: no alarm" test "$(episodes seenback)" = none
t_ok "seenback: with 3 nights back asked always (--seen-llr=0), confirmed on night 104" test "$(episodes seenback --seen-llr=0)" = 103
mk seenback2 -w 0.01 -a 0.6 -s 34 -r 0.005 -n 80 -S 9 spike:58:1.05 shift:60:1.05
t_ok "seenback2: a 5% rise two nights after a far night at its level, on its third night" test "$(episodes seenback2)" = 61
t_ok "seenback2: with --seen-llr=0, on its second" test "$(episodes seenback2 --seen-llr=0)" = 60
# young_sep (off by default): a young baseline's modes learn from a slow
# night that came back. 30% of the nights 3% slower at 0.5% noise (seed
# 66): by night 22 the baseline has shown the slow level on two nights
# that stay out of it (the latest two quarantined), and a pair of slow
# nights is a step. With young_sep 3 the modes see them, and no alarm.
mk youngmode -w 0.01 -a 0.6 -s 34 -r 0.005 -n 60 -S 66 bimodal:0.3:1.03
t_ok "youngmode: a pair of slow nights in the first month, confirmed on night 21" test "$(episodes youngmode)" = 20
t_ok "youngmode: with --young-sep=3, nothing confirmed" test "$(episodes youngmode --young-sep=3)" = none
# What it costs: a 5% rise at night 16 after one night at its level
# (night 8) is confirmed on its second night; with young_sep 3 the far
# night is a mode and the rise waits for its seventh. The data cannot
# tell the two apart (docs/history.md, "A young baseline's slow mode
# seen once").
mk youngrise -w 0.01 -a 0.6 -s 34 -r 0.005 -n 25 -S 1 spike:8:1.05 shift:16:1.05
t_ok "youngrise: a 5% rise after one far night, confirmed on its second night" test "$(episodes youngrise)" = 16
t_ok "youngrise: with --young-sep=3, on its seventh" test "$(episodes youngrise --young-sep=3)" = 21
t_rc "young_sep: a negative value is refused (exit 2)" 2 "$LLMB" judge --young-sep=-1 "$TRASH/youngrise/history/$FP.jsonl"
# When a suspect night returns into the baseline: once two later nights
# were quarantined too (released in vbase.c), so the two latest stay out
# however old. Three nights 5% up at 1% noise, nights 41, 51 and 61: the
# baseline of night 67 is its 30 nights before, 41 among them, 51 and 61
# not. Counted by the nights between instead (confirm_k - 1 of any kind,
# as the docs once said), all three would return, and a lasting rise that
# no rule confirms within 3 nights returns night by night: seenrise's was
# then never confirmed (docs/history.md, "A suspect night's return").
mk release -w 0.01 -a 0.6 -s 34 -r 0.01 -n 70 -S 7 spike:41:1.05 spike:51:1.05 spike:61:1.05
json release release
t_ok "release: the 5% nights are SUSPECT, and no night is confirmed" test "$(/usr/bin/python3 -c '
import json, sys
ns = json.load(open(sys.argv[1]))["configurations"][0]["nights"]
print(" ".join(str(i + 1) for i, n in enumerate(ns) if n["state"] in ("SUSPECT", "CONFIRMED") and i + 1 in (41, 51, 61)), "CONFIRMED" in [n["state"] for n in ns])' "$TRASH/release.json")" = "41 51 61 False"
t_ok "release: night 67's baseline holds night 41 and leaves out 51 and 61" /usr/bin/python3 -c '
import json, sys
ns = json.load(open(sys.argv[1]))["configurations"][0]["nights"]
def base(i, out):
    xs, k = [], i - 1
    while len(xs) < 30:
        if k + 1 not in out:
            xs.append(ns[k]["mean"])
        k -= 1
    return sum(xs) / len(xs)
b = ns[66]["baseline"]
sys.exit(not (ns[66]["baseline_n"] == 30 and abs(b - base(66, (51, 61))) < 5e-6 and abs(b - base(66, ())) > 5e-5 and abs(b - base(66, (41, 51, 61))) > 5e-5))' "$TRASH/release.json"
# A broken night inside a rise: 30% of the nights 3% slower, 0.5% noise,
# a 5% rise from night 101, and one night of it 50% slow. That night
# stands some 100 deviations from any level, its density under the
# smallest double: the two-mode chain (vchain.c) took log(0) for the
# episode as one new level, so every episode holding that night was "a
# slow mode's run", and the rise was never confirmed (to night 115).
# Weighed as log-densities, it is confirmed on its fifth night, and the
# broken night alone is not.
mk broken2 -w 0.01 -a 0.6 -s 34 -r 0.005 -n 115 -S 1 bimodal:0.3:1.03 shift:101:1.05 spike:102:1.5
t_ok "broken2: a 5% rise with its second night 50% slow is confirmed on its fifth night" test "$(episodes broken2)" = 104
mk broken3 -w 0.01 -a 0.6 -s 34 -r 0.005 -n 115 -S 3 bimodal:0.3:1.03 shift:101:1.05 spike:103:1.5
t_ok "broken3: a 5% rise with its third night 50% slow is confirmed on its fifth night" test "$(episodes broken3)" = 104
mk brokenonly -w 0.01 -a 0.6 -s 34 -r 0.005 -n 115 -S 1 bimodal:0.3:1.03 spike:102:1.5
t_ok "brokenonly: the 50% night alone is not confirmed" test "$(episodes brokenonly)" = none
# A rise at the level of two far nights: 0.5% noise, nights 41 and 71 5%
# up, a lasting 5% rise from night 101. The two nights are a slow mode
# (find_regime: two nights a group), and the rise's nights were that
# mode's, night after night: OK, or a run of it to the grid of chains
# (a mean run of 5 nights, for 20 nights), until they returned into
# the baseline; 6 of 10 seeds never confirmed it (to night 200). Now a
# mode explains a run no longer than twice its nights before it and two
# more: in the grid (twice3: never before, the rise's fifth night now)
# and in the modes that call a night no change (twice4: with the grid's
# bound alone, not in its 30 nights; its ninth night then, its eleventh
# since the chain also learns from nights the baseline left out that its
# own nights vouch for, chain_seen).
mk twice3 -w 0.01 -a 0.6 -s 34 -r 0.005 -n 130 -S 3 spike:41:1.05 spike:71:1.05 shift:101:1.05
t_ok "twice3: a 5% rise at the level of two far nights is confirmed on its fifth night" test "$(episodes twice3)" = 104
mk twice4 -w 0.01 -a 0.6 -s 34 -r 0.005 -n 130 -S 4 spike:41:1.05 spike:71:1.05 shift:101:1.05
t_ok "twice4: the same on another seed, on its eleventh night" test "$(episodes twice4)" = 110
# A 2% rise at 0.5% noise from night 31: each night stands about 3.4
# deviations up. The tail test winsorized its nights at 3 deviations of
# the baseline, about 1.3%, under min_effect (1.5%), so no window of three
# nights or more could confirm it; its first nights returned into the
# baseline as a mode, and the rise was confirmed on night 38. Winsorized
# at twice min_effect (clip_at), the tail of the last five nights confirms
# it on night 34, the rise's fourth.
mk lownoise2 -w 0.01 -a 0.6 -s 34 -r 0.005 -n 45 -S 9 shift:31:1.02
t_ok "lownoise2: a 2% rise at 0.5% noise is confirmed by its fourth night" test "$(episodes lownoise2)" = 33
# Half the nights 5% slower in runs from the first night, 2% noise (a seed
# of the shapes' draw): a run confirmed by the ramp on night 21 ends, and
# each later run of the same mode stood above the baseline before that
# episode, which holds no slow mode: a regression declared over that goes
# on, eight times. The episode lay MODE_SEP deviations up, so the nights
# since it ended are also asked against a chain of every night before
# them, the episode's too, whose slow mode came and went: nothing more.
mk resumedchain -w 0.01 -a 0.6 -s 34 -r 0.02 -n 300 -S 10007582 bimodal:0.5:1.05:3:1
t_ok "resumedchain: without the chain, the slow mode confirmed again as a regression going on" test "$(episodes resumedchain --chain-llr=0 --alt-llr=0)" = "20 65 73 85 108 152 188 254 296"
t_ok "resumedchain: with it, the runs after the first episode are its mode" test "$(episodes resumedchain)" = 20
t_ok "resumedchain: without the chain, the nights since come and go between the old level and the mode's (alt_llr): the same" \
	test "$(episodes resumedchain --chain-llr=0)" = 20
# Half the nights 5% slower in runs of 3 from night 101, 1% noise (seeds
# of the shapes' draw): the mode's first run is confirmed (night 102), one
# fast night ends it, and the next run comes before a second fast night.
# The episode stayed out of the modes until two nights after it were
# back, so that run was a new regression: confirmed again on night 105
# (flap1), on nights 107 and 111 (flap2). An episode of at most tail_max
# nights far above its baseline now ends with one night back, and its
# nights are the mode the next run belongs to.
mk flap1 -w 0.01 -a 0.6 -s 34 -r 0.01 -n 130 -S 10005043 bimodal:0.5:1.05:3:101
t_ok "flap1: a slow mode's run that one fast night ended is its mode's, not a new regression" test "$(episodes flap1)" = 101
mk flap2 -w 0.01 -a 0.6 -s 34 -r 0.01 -n 130 -S 10005090 bimodal:0.5:1.05:3:101
t_ok "flap2: the same on another seed (two more runs)" test "$(episodes flap2)" = 101
# A slow mode from the first night, 30% of nights 3% slower at 0.5% noise
# and 5% slower at 2% noise, in runs of 3 (seeds of the shapes' draw): the
# baseline keeps a slow night out until two more were quarantined, so the
# two-mode chain, learning from its nights alone, had seen too few of the
# mode's and took the next run for a step (night 34; night 43). It learns
# now from a night left out when two of its nights that no rule confirmed
# lie nearer that night than their median (chain_seen).
mk seen1 -w 0.01 -a 0.6 -s 34 -r 0.005 -n 40 -S 10001337 bimodal:0.3:1.03:3:1
t_ok "seen1: a run of a slow mode whose last run the baseline left out: no alarm" test "$(episodes seen1)" = none
t_ok "seen1: without chain_seen, confirmed" test "$(episodes seen1 --chain-seen=0)" = 34
mk seen2 -w 0.01 -a 0.6 -s 34 -r 0.02 -n 50 -S 10006742 bimodal:0.3:1.05:3:1
t_ok "seen2: the same at 2% noise, 5% slower" test "$(episodes seen2)" = none
t_ok "seen2: without chain_seen and the grid, confirmed" test "$(episodes seen2 --chain-seen=0 --chain-odds-noisy=1000)" = 43
# Half the nights 5% slower, in runs of 3, at 1% noise (a seed of the
# shapes' draw): a long run of slow nights filled the baseline, and five
# fast ones after it were confirmed as an improvement (night 112), which
# started a new segment of fast nights alone; the next slow pair was
# confirmed against them (night 121). An improvement is taken now only
# when it has held gain_nights nights and the two-mode chain does not
# explain it: either alone keeps this alarm out (without the chain, the
# run is never taken: the mean of its nights does not stand under a
# baseline that holds both modes at tail_alpha).
mk gain1 -w 0.01 -a 0.6 -s 34 -r 0.01 -n 125 -S 10005010 bimodal:0.5:1.05:3:1
# gains NAME [JUDGE-ARGS...]: the nights an improvement was taken on (a
# first bad night on a night not CONFIRMED), as episodes lists alarms
gains() {
	local n=$1; shift
	"$LLMB" judge --format=json "$@" "$TRASH/$n/history/$FP.jsonl" >"$TRASH/$n.gains.json" 2>&1
	/usr/bin/python3 -c 'import json,sys; ns=json.load(open(sys.argv[1]))["configurations"][0]["nights"]
print(" ".join(str(i) for i,n in enumerate(ns) if n.get("first_bad_index") is not None and n["state"]!="CONFIRMED") or "none")' "$TRASH/$n.gains.json"
}
t_ok "gain1: a run of the fast mode after a long slow one: no alarm" test "$(episodes gain1)" = none
t_ok "gain1: at once and without the chain, the fast run is an improvement" test "$(gains gain1 --gain-nights=1 --chain-llr=0)" = "21 112"
t_ok "gain1: ... and the slow pair after it is confirmed" test "$(episodes gain1 --gain-nights=1 --chain-llr=0)" = 121
t_ok "gain1: the chain alone keeps it out" test "$(episodes gain1 --gain-nights=1)" = none
t_ok "gain1: waiting gain_nights alone, the run is never taken" test "$(gains gain1 --chain-llr=0)" = 21
t_ok "gain1: ... and no alarm" test "$(episodes gain1 --chain-llr=0)" = none
# A 5% improvement at night 31 (1% noise): the new level from its tenth
# night (gain_nights), and a rise back to the old level 15 nights after
# it confirmed on its second night against the new level.
mk gain2 -w 0.01 -a 0.6 -s 34 -r 0.01 -n 50 -S 4242 shift:31:0.95 shift:46:1.0526316
t_ok "gain2: a real improvement is the new level on its tenth night" test "$(gains gain2)" = 39
t_ok "gain2: ... on its fifth night with gain_nights 1" test "$(gains gain2 --gain-nights=1)" = 34
t_ok "gain2: the rise back 15 nights after it is confirmed on its second night" test "$(episodes gain2)" = 46
# A tenth of the nights 1.5% slower in runs of 3 at 0.5% noise (a seed of
# the shapes' draw): three nights at the level, then two of a slow run
# (+1.9% and +2.2%) scored as a ramp of 5 nights, which a step of 2 nights under
# short_effect fits better: no tail window of 2 nights confirms that
# (too_small), and no ramp now does (short_step). A drift from night 200
# is still the ramp's, on night 207 (206 at chain_odds 7: on a baseline
# no noisier than noise_ref two modes are now e^-5 as likely a priori as
# one, and the grid holds the drift's first nights a night longer); a 2%
# step there is the tail's on its fifth night.
rampof() {
	local d=$1; shift
	"$LLMB" judge --format=json "$@" "$TRASH/$d/history/$FP.jsonl" 2>&1 | /usr/bin/python3 -c 'import json,sys; ns=json.load(sys.stdin)["configurations"][0]["nights"]
print(" ".join("%d:%s" % (i, n["confirmed_by"]["rule"]) for i,n in enumerate(ns) if n["state"]=="CONFIRMED" and (i==0 or ns[i-1]["state"]!="CONFIRMED")) or "none")'
}
mk rstep1 -w 0.01 -a 0.6 -s 34 -r 0.005 -n 300 -S 10000222 bimodal:0.1:1.015:3:1
t_ok "rstep1: a slow mode's 2-night run as a ramp's end: nothing confirmed" test "$(rampof rstep1)" = none
mk rstep2 -w 0.01 -a 0.6 -s 34 -r 0.005 -n 300 -S 10000222 bimodal:0.1:1.015:3:1 drift:200:0.003
t_ok "rstep2: a drift from night 200 on the same nights: the ramp's, night 207" test "$(rampof rstep2)" = 207:ramp
t_ok "rstep2: at the odds of a noisy baseline, night 206" test "$(rampof rstep2 --chain-odds=7)" = 206:ramp
mk rstep3 -w 0.01 -a 0.6 -s 34 -r 0.005 -n 300 -S 10000222 bimodal:0.1:1.015:3:1 shift:200:1.02
t_ok "rstep3: a 2% step from night 200: the tail's, on its fifth night" test "$(rampof rstep3)" = 203:tail
# A drift of 0.3% a night from night 31 at 2% noise (a seed drawn for
# this test): the ramp's on night 40. With the ramp's level shrunk by the
# square of noise_ref over the deviation, as the tail's is, night 43.
mk rdrift2 -w 0.01 -a 0.6 -s 34 -r 0.02 -n 45 -S 10007017 drift:31:0.003
t_ok "rdrift2: a drift at 2% noise: the ramp's, night 40" test "$(rampof rdrift2)" = 40:ramp
# A slow mode that appeared (half the nights 3% or 5% slower, in runs of
# 3, from night 101; seeds of the shapes' draw, 1% and 2% noise): its
# first run is confirmed, as any gate that keeps the 5% row must. Later,
# the change point or the regression going on names night 101 again, and
# the nights since come and go between the old level and the mode's,
# which no step explains: episode_alternates (alt_llr) calls them the mode.
mk appear1 -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10004778 bimodal:0.5:1.03:3:101
t_ok "appear1: a mode that appeared, after its first run: nothing more" test "$(episodes appear1)" = 108
t_ok "appear1: without alt_llr, confirmed three times more" test "$(episodes appear1 --alt-llr=0)" = "108 150 172 234"
mk appear2 -w 0.01 -a 0.6 -s 34 -r 0.02 -n 300 -S 10007636 bimodal:0.5:1.05:3:101
t_ok "appear2: the same at 2% noise, 5% slower" test "$(episodes appear2)" = 101
t_ok "appear2: without alt_llr, confirmed twice more" test "$(episodes appear2 --alt-llr=0)" = "101 162 255"
# A 5% regression at 1% noise (bench seed), fixed on night 36, and an 8%
# one from night 39, confirmed on night 40. Its first bad night is its
# own, not the change point of the regression that ended (night 31). (A
# chance run from night 39 was the later alarm here; 3 nights after the
# fix, the fixed regression's nights are a mode now, and it is none.)
mk refixed -w 0.01 -a 0.6 -s 34 -r 0.01 -n 42 -S 4518 shift:31:1.05 shift:36:0.952381 shift:39:1.08
json refixed refixed
expect_state refixed "CONFIRMED 2026-02-08 first night of the shifted tail"

# A 5% rise at 1% noise (bench seed) on its first night, after a night
# that lay 3% high by chance: both are one step, named from the night
# before the rise. The range to bisect holds the rise's own night too, and
# the image that changed on it; a series without the rise names no range.
mk range5 -w 0.01 -a 0.6 -s 34 -r 0.01 -n 31 -S 2662 shift:31:1.05 image:31:nvcr.io/nvidia/pytorch:25.02
json range5 range5
expect_state range5 "CONFIRMED 2026-01-30 first night of the shifted tail"
range_of() { /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["configurations"][0].get("first_bad_range"); print(r and "%s %s %.2f" % (r["from"], r["to"], r["share"]))' "$TRASH/$1.json"; }
t_ok "range5: the range to bisect holds the rise's night" test "$(range_of range5 | cut -d" " -f1-2)" = "2026-01-27 2026-01-31"
t_ok "range5: the named night holds under 60% of the odds" /usr/bin/python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < 0.6)' "$(range_of range5 | cut -d" " -f3)"
t_ok "range5: the text says the range" grep -q "the step's first night: 2026-01-27 .. 2026-01-31, 95% sure (2026-01-30 alone" <("$LLMB" judge "$TRASH/range5/history/$FP.jsonl")
t_ok "range5: nothing changed on the night named" grep -q "^  changed: nothing recorded" <("$LLMB" judge "$TRASH/range5/history/$FP.jsonl")
t_ok "range5: the image changed on the rise's night, in the range" grep -qx "  changed in those nights: 2026-01-31: image.ref: nvcr.io/nvidia/pytorch:25.01 -> nvcr.io/nvidia/pytorch:25.02" <("$LLMB" judge "$TRASH/range5/history/$FP.jsonl")
t_ok "range5: and in the HTML table's changed cell" grep -q "<td class=\"l\">2026-01-31: image.ref: nvcr.io/nvidia/pytorch:25.01 &rarr; nvcr.io/nvidia/pytorch:25.02<br></td>" <("$LLMB" judge --format=html "$TRASH/range5/history/$FP.jsonl")
t_ok "range5: the HTML table says it under the first bad night" grep -q "<td class=\"l\">2026-01-30<br>(2026-01-27 .. 2026-01-31)</td>" <("$LLMB" judge --format=html "$TRASH/range5/history/$FP.jsonl")
# An image that changed on a night whose run was invalid, two nights
# before a 4% rise: what changed over the range starts from the last
# valid night before it.
mk rangeinv -n 40 -S 62 -w 0.01 -r 0.01 shift:31:1.04 image:29:new/img:1 invalid:29:x invalid:30:y
t_ok "rangeinv: the image's change, on its invalid night, is in the range's list" grep -qx "  changed in those nights: 2026-01-29: image.ref: nvcr.io/nvidia/pytorch:25.01 -> new/img:1" <("$LLMB" judge "$TRASH/rangeinv/history/$FP.jsonl")
mk range5ok -w 0.01 -a 0.6 -s 34 -r 0.01 -n 30 -S 2662 shift:31:1.05
json range5ok range5ok
t_ok "range5ok: before the rise, no range" test "$(range_of range5ok)" = None

# A chance run of high nights at 1% noise (2026-01-21 .. 01-24, up to
# 3.9%) confirmed as a small regression, then nights at the old level, none
# of them low enough alone to end it (a bench seed): it ends on the third,
# and a 5% rise a few nights later is a new regression named from its own
# night, not from the chance run's first night.
mk lowback -w 0.01 -a 0.6 -s 34 -r 0.01 -n 33 -S 2567 shift:31:1.05
state_on lowback 2026-01-23 CONFIRMED 2026-01-21 change point
state_on lowback 2026-01-26 CONFIRMED 2026-01-21 change point
state_on lowback 2026-01-27 OK - -
state_on lowback 2026-01-30 OK - -
state_on lowback 2026-02-01 CONFIRMED 2026-01-31 first night of the shifted tail
# A 5% rise (2026-01-31) during a chance run confirmed from 2026-01-22 (up
# to +2%), fixed on 2026-02-05 (a bench seed): the episode's level is the
# rise's, not the median of all its nights (+2%, under which the old
# level lay within 2 deviations: it stayed CONFIRMED for good), and the
# fix is recognised on its second night.
mk secondstep -w 0.01 -a 0.6 -s 34 -r 0.01 -n 45 -S 4168 shift:31:1.05 shift:36:0.952381
state_on secondstep 2026-02-05 CONFIRMED 2026-01-22 change point
state_on secondstep 2026-02-06 OK - -
json secondstep secondstep
alarms secondstep 2026-01-30

# A regression that is fixed: CONFIRMED while it lasts, OK from the first
# night back at the old level, and never confirmed again.
mk fixed -n 20 shift:11:1.08 shift:16:0.925926
judge fixed:night15 1 --night 2026-01-15
expect_state fixed "CONFIRMED 2026-01-11 change point"
judge fixed 0
t_ok "fixed: confirmed on nights 12-15 only" test "$(nightstates fixed | cut -c11-)" = "SCCCCOOOOO"

# Why the gate alarmed: the rule that confirmed each shift, on the night
# it was confirmed and on no other (confirmed_by in --format=json; the
# nights after it go on CONFIRMED by the episode, not by a rule).
# rules NAME: NIGHT:RULE[:L] of each night of NAME's JSON that says one.
rules() {
	json "$1" "$1-rules"
	/usr/bin/python3 -c '
import json, sys
ns = json.load(open(sys.argv[1]))["configurations"][0]["nights"]
print(" ".join(n["night"] + ":" + r["rule"] + (":%d" % r["nights"] if "nights" in r else "")
               for n in ns for r in [n.get("confirmed_by")] if r))' "$TRASH/$1-rules.json"
}
t_ok "rule: a 40% step on a young baseline, by M of K" test "$(rules short)" = "2026-01-04:streak"
t_ok "rule: an 8% step, by the pair of its first two nights" test "$(rules confirmed)" = "2026-01-13:pair:2"
t_ok "rule: a 5% rise at 1% noise, by the pair, and none on the 8 CONFIRMED nights after" test "$(rules renamed)" = "2026-02-01:pair:2"
t_ok "rule: a 4% rise after two invalid nights, by the tail of 4 nights" test "$(rules rangeinv)" = "2026-02-03:tail:4"
t_ok "rule: a drift of 0.3% a night, by the ramp of 6 nights" test "$(rules drift1)" = "2026-02-07:ramp:6"
t_ok "rule: a chance run before a 5% rise, by the change point" test "$(rules secondstep)" = "2026-01-30:change-point"
t_ok "rule: a 2% rise by a ramp, then the regression declared over that goes on" test "$(rules resumed)" = "2026-02-02:ramp:4 2026-02-15:resumed"
t_ok "rule: a regression fixed after 4 nights, by the pair" test "$(rules fixed)" = "2026-01-12:pair:2"
t_ok "rule: a 2% rise that lasts, by a ramp, and none on the 117 CONFIRMED nights after" test "$(rules lasting1)" = "2026-02-02:ramp:4"
t_ok "rule: bimodal nights, never confirmed, say none" test "$(rules bimodal)" = ""
# Where one is said, a shift was confirmed on that night and its first bad
# night named, and the night before (eligible) was not CONFIRMED; every
# CONFIRMED night after one that was not says its rule.
t_ok "rule: said on exactly the nights a shift is newly confirmed" /usr/bin/python3 -c '
import json, sys
for f in sys.argv[1:]:
    prev = None
    for n in json.load(open(f))["configurations"][0]["nights"]:
        if not n["valid"] or n.get("acked"):
            continue
        new = n["state"] == "CONFIRMED" and (prev is None or prev["state"] != "CONFIRMED")
        said = "confirmed_by" in n
        if said and not (n.get("confirmed") and "first_bad_index" in n and not (prev and prev["state"] == "CONFIRMED")) or new and not said:
            sys.exit("%s: %s" % (f, n["night"]))
        prev = n' "$TRASH"/{short,confirmed,renamed,rangeinv,drift1,secondstep,resumed,bimodal,fixed,lasting1}-rules.json
# The configuration, CONFIRMED, says the rule and night that confirmed its
# episode, in the text too, however long ago (lasting1: 117 nights).
t_ok "rule: the text of a regression that lasts says what confirmed it" grep -qx "  confirmed on 2026-02-02 by the ramp rule: the last 4 nights against a steady rise" <("$LLMB" judge --install "$TRASH/lasting1")
t_ok "rule: ...and of one declared over that went on" grep -qx "  confirmed on 2026-02-15 by the resumed rule: the nights since it was declared over, together at its level" <("$LLMB" judge --install "$TRASH/resumed")
t_ok "rule: the JSON's configuration says it with its night" test "$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["configurations"][0]["confirmed_by"])' "$TRASH/drift1-rules.json")" = "{'night': '2026-02-07', 'nights': 6, 'rule': 'ramp'}"

# Invalid nights: exit 3 on the night; never in a baseline later.
mk invalid -n 8 invalid:8:nan-grad-norm
judge invalid 3
mk nan -n 8 nan:8 short:7
judge nan:night8 3 --night 2026-01-08
t_grep "nan: own check" 'non-finite step time' "$TRASH/nan.json"
judge nan:night7 3 --night 2026-01-07
t_grep "short window: own check" 'incomplete window' "$TRASH/nan.json"
mk excluded -n 14 invalid:5:profiled failed:6
judge excluded 0
t_grep "excluded: 11 baseline nights of 13 (two left out)" '"n": 11$' "$TRASH/excluded.json"
mk failed -n 6 failed:6
judge failed 3

# Inconclusive: one baseline night; or noise that can explain the effect.
mk few -n 2 shift:2:1.05
judge few 4
mk noisy -n 10 -r 0.04 shift:10:1.05
judge noisy 4

# A human decision: the new level from night 6 on is accepted.
mk accept -n 10 shift:6:1.3
judge accept:before 1
t_ok "annotate: accept-baseline" "$LLMB" annotate --install "$TRASH/accept" "$FP" --accept-baseline 2026-01-06 --reason "image upgrade, intended"
judge accept 0
t_grep "accept: the annotation is one whole line" '^\{"action":"accept-baseline","by":"user","fingerprint":"'"$FP"'","night":"2026-01-06","reason":"image upgrade, intended","recorded_at":"[0-9T:Z-]+","type":"annotation","v":1\}$' "$TRASH/accept/history/$FP.jsonl"

# A false alarm acknowledged: the night is OK, out of baselines, counted.
mk ack -n 8 shift:8:1.3
t_ok "annotate: ack" "$LLMB" annotate --install "$TRASH/ack" "$FP" --ack 2026-01-08 --reason 'node "n3" throttled	(ECC) — ack'
judge ack 0
t_grep "ack: counted" '"acks": 1,' "$TRASH/ack.json"
t_grep "ack: the reason read back whole" '"reason": "node \\"n3\\" throttled\\t\(ECC\) — ack"' "$TRASH/ack.json"
t_rc "annotate: ack of a night without a run" 2 "$LLMB" annotate --install "$TRASH/ack" "$FP" --ack 2026-03-01 --reason x
t_rc "annotate: unknown fingerprint" 2 "$LLMB" annotate --install "$TRASH/ack" nosuch_fp --ack 2026-01-08 --reason x
t_rc "annotate: bad night" 2 "$LLMB" annotate --install "$TRASH/ack" "$FP" --ack 2026-13-01 --reason x
# A writer never appends what the reader refuses: a reason that is not
# UTF-8 is refused (exit 2), nothing is written, judge still reads the file.
cp "$TRASH/ack/history/$FP.jsonl" "$TRASH/ack-before.jsonl"
t_rc "annotate: a reason that is not UTF-8 is refused" 2 "$LLMB" annotate --install "$TRASH/ack" "$FP" --ack 2026-01-08 --reason "$(printf 'bad \377 byte')"
t_grep "annotate: the refusal names the byte" 'not valid UTF-8 \(byte 5\)' "$TRASH/.out"
t_cmp "annotate: nothing appended" "$TRASH/ack-before.jsonl" "$TRASH/ack/history/$FP.jsonl"
t_rc "annotate: judge still reads the history" 0 "$LLMB" judge --install "$TRASH/ack"

# A false alarm on a two-mode cluster answered as a mode (10% of nights 3%
# slower in runs of 3 from night 101, 1% noise, a seed of the shapes'
# draw). Unanswered, the mode's second run is confirmed on 2026-05-28 (its
# first, on 2026-05-04, was a ramp a short step fits better: short_step).
# An ack leaves the answered night out of every baseline, so the mode is
# learned later: its next run is confirmed on 2026-06-06. --accept-mode
# keeps it in, and runs at its level are no change: nothing more is
# confirmed. These alarms are those of two modes e^-7 as likely a priori
# as one (chain_odds 7); at the default odds (e^-5 on a baseline no
# noisier than noise_ref) the grid of chains takes the runs for a mode:
# no alarm to answer.
mk modeans -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10003109 bimodal:0.1:1.03:3:101
json modeans modeans5
alarms modeans5
json modeans modeans --chain-odds=7
alarms modeans 2026-05-28
cp -r "$TRASH/modeans" "$TRASH/modeack"
t_ok "annotate: ack on a two-mode cluster" "$LLMB" annotate --install "$TRASH/modeack" "$FP" --ack 2026-05-28 --reason "slow rack"
json modeack modeack --chain-odds=7
alarms modeack 2026-06-06
t_ok "annotate: accept-mode" "$LLMB" annotate --install "$TRASH/modeans" "$FP" --accept-mode 2026-05-28 --reason "slow rack, a second mode"
t_grep "accept-mode: the annotation is one whole line" '^\{"action":"accept-mode","by":"user","fingerprint":"'"$FP"'","night":"2026-05-28","reason":"slow rack, a second mode","recorded_at":"[0-9T:Z-]+","type":"annotation","v":1\}$' "$TRASH/modeans/history/$FP.jsonl"
json modeans modeans --chain-odds=7
alarms modeans
t_ok "accept-mode: the answered night is OK, marked, counted" /usr/bin/python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["configurations"][0]
n = [x for x in c["nights"] if x["night"] == "2026-05-28"][0]
sys.exit(not (n["state"] == "OK" and n.get("mode") is True and c["modes"] == 1 and c["acks"] == 0
              and c["annotations"][-1]["action"] == "accept-mode"))' "$TRASH/modeans.json"
# A regression after the answer: at the mode's level (+3% from night 231)
# it is the share shifting, confirmed once its nights outlast the mode's
# runs (2026-09-09, answered or not); above it (+6%) on its ninth night
# (2026-08-27; its third unanswered).
for f in 1.03:2026-09-09 1.06:2026-08-27; do
	mk "modereg${f%%:*}" -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10003109 bimodal:0.1:1.03:3:101 "shift:231:${f%%:*}"
	"$LLMB" annotate --install "$TRASH/modereg${f%%:*}" "$FP" --accept-mode 2026-05-28 --reason x
	json "modereg${f%%:*}" "modereg${f%%:*}"
	alarms "modereg${f%%:*}" "${f#*:}"
done
# An answer on a night less than min_effect above its baseline is no mode
# (it would hide every small regression): the alarms stay.
mk modelow -w 0.01 -a 0.6 -s 34 -r 0.01 -n 300 -S 10003109 bimodal:0.1:1.03:3:101
"$LLMB" annotate --install "$TRASH/modelow" "$FP" --accept-mode 2026-04-01 --reason x
json modelow modelow --chain-odds=7
alarms modelow 2026-05-28
t_rc "annotate: accept-mode of a night without a run" 2 "$LLMB" annotate --install "$TRASH/modelow" "$FP" --accept-mode 2027-03-01 --reason x
t_grep "annotate: says what it would not do" 'no run on night 2027-03-01 to accept as a mode' "$TRASH/.out"
t_rc "annotate: --accept-mode and --ack together are refused" 2 "$LLMB" annotate --install "$TRASH/modelow" "$FP" --accept-mode 2026-05-28 --ack 2026-05-28 --reason x
t_grep "annotate: one action of three" 'one action per annotation: --accept-baseline, --ack or --accept-mode' "$TRASH/.out"

# --out writes a regular file (or - for stdout); a directory, FIFO, device
# or symbolic link is refused, never replaced.
mkdir -p "$TRASH/outs/dir" && mkfifo "$TRASH/outs/fifo" && : >"$TRASH/outs/target" && ln -sf target "$TRASH/outs/link"
for o in dir fifo link; do
	t_rc "judge --out onto a $o: refused (exit 2)" 2 timeout 10 "$LLMB" judge --install "$TRASH/ack" --out "$TRASH/outs/$o"
	t_grep "judge --out onto a $o: says why" 'not a regular file: refusing to replace it' "$TRASH/.out"
done
t_ok "judge --out onto a symlink: the link and its target are as they were" test -L "$TRASH/outs/link" -a ! -s "$TRASH/outs/target"
# a device node of our own, never a system one such as /dev/null (a writer
# that failed this test would replace it), where this user may make one
if mknod "$TRASH/outs/dev" c 1 3 2>/dev/null; then
	t_rc "judge --out onto a device: refused (exit 2)" 2 "$LLMB" judge --install "$TRASH/ack" --out "$TRASH/outs/dev"
	t_ok "the device node is still one" test -c "$TRASH/outs/dev"
fi
t_rc "judge --out -: stdout" 0 "$LLMB" judge --install "$TRASH/ack" --out -
t_grep "judge --out -: the verdict on stdout" 'OK' "$TRASH/.out"

# The published reference: reported, beside the baseline verdict.
mk reference -n 6 ref:0.45:0.05
judge reference 0
t_grep "reference: slower than published" '"verdict": "SLOWER"' "$TRASH/reference.json"

# Repeats of a night and a missed night.
mk repeat -n 7 repeat:7 skip:4
judge repeat 0
t_grep "repeat: two runs in the night" '"runs": 2,' "$TRASH/repeat.json"

# A matrix: every configuration judged, the worst decides the exit; --select narrows.
mkdir -p "$TRASH/matrix/history"
cp "$TRASH/short/history/$FP.jsonl" "$TRASH/matrix/history/"
"$TRASH/histgen" -f llama3_h100_70b_bf16_8_aaaaaaaaaaaa -S 2 -n 4 >"$TRASH/matrix/history/llama3_h100_70b_bf16_8_aaaaaaaaaaaa.jsonl"
sed -i 's/"workload":"tinygpt"/"workload":"llama3"/' "$TRASH/matrix/history/llama3_h100_70b_bf16_8_aaaaaaaaaaaa.jsonl"
judge matrix 1
t_rc "matrix: --select llama3 passes" 0 "$LLMB" judge --install "$TRASH/matrix" --select llama3
t_rc "matrix: --select tinygpt,llama3 fails" 1 "$LLMB" judge --install "$TRASH/matrix" --select tinygpt,llama3
# The policy from a nightly: block (knobs beside the pipeline's own keys).
printf 'nightly:\n  matrix: [tinygpt]\n  large_effect: 0.5\n' >"$TRASH/pol2.yaml"
t_rc "policy: large_effect 50% leaves a 40% shift on 2 nights unknown" 4 "$LLMB" judge --policy "$TRASH/pol2.yaml" --install "$TRASH/short"
printf 'nightly:\n  matrix: [tinygpt]\n  larg_effect: 0.5\n' >"$TRASH/pol2.yaml"
t_rc "policy: a misspelt knob beside pipeline keys" 2 "$LLMB" judge --policy "$TRASH/pol2.yaml" --install "$TRASH/short"

# The trend page: self-contained, the change point and confirmed nights marked.
t_rc "html: exit 1 (confirmed)" 1 env -C "$TRASH/confirmed" "$LLMB" judge --install . --format=html --out trend.html
t_grep "html: an svg chart" '<svg' "$TRASH/confirmed/trend.html"
t_grep "html: change point marked" 'class="cp' "$TRASH/confirmed/trend.html"
t_grep "html: first bad night marked" 'class="cp first-bad".*>first bad night 01-12<' "$TRASH/confirmed/trend.html"
t_nogrep "html: no network, no script" '<script|src=|href="https?:|url\(' "$TRASH/confirmed/trend.html"

# ---- bad input: file:line:col diagnostics, exit 2, nothing judged --------
# An option after the history file is no file: said as an option, exit 2;
# after "--" a name that starts with '-' is a file.
t_rc "judge FILE --night N: exit 2" 2 "$LLMB" judge "$TRASH/range5/history/$FP.jsonl" --night 2026-01-31
cp "$TRASH/.out" "$TRASH/optafter.err"
t_ok "judge FILE --night N: the option named, options first" grep -qx "llmb judge: option '--night' after the history files: options come first" "$TRASH/optafter.err"
mkdir -p "$TRASH/dash/-d" && cp "$TRASH/range5/history/$FP.jsonl" "$TRASH/dash/-d/"
t_rc "judge -- -DIR/FILE: a path that starts with '-' is judged" 1 env -C "$TRASH/dash" "$LLMB" judge -- "-d/$FP.jsonl"
t_rc "judge -DIR/FILE: an existing path is a file, not an option" 1 env -C "$TRASH/dash" "$LLMB" judge "$TRASH/range5/history/$FP.jsonl" "-d/$FP.jsonl"
B=$TRASH/bad
mkdir -p "$B"
"$TRASH/histgen" -f "$FP" -n 3 >"$B/good"
bad() {
	local n=$1 file=${3:-$FP.jsonl}
	mkdir -p "$B/$n"
	eval "$2" <"$B/good" >"$B/$n/$file"
	t_rc "bad $n: exit 2" 2 env -C "$B/$n" "$LLMB" judge "$file"
	cp "$TRASH/.out" "$B/$n.err"
	t_cmp "bad $n: diagnostics" "$G/$n.err" "$B/$n.err"
}
bad not-json "sed '2s/^{/{\"oops\" /'"
bad torn "head -c -1"
bad newer "sed '2s/\"v\":1/\"v\":2/'"
bad date "sed '3s/2026-01-03/2026-02-30/'"
bad duplicate "sed '\$p'"
bad fingerprint "cat" other_fp.jsonl
bad type "sed '1s/\"valid\":true/\"valid\":\"yes\"/'"
bad missing "sed '2s/\"job\":\"1001\",//'"
bad unknown-type "sed '3s/\"type\":\"run\"/\"type\":\"rerun\"/'"
bad duplicate-key "sed '2s/\"v\":1/\"v\":1,\"v\":1/'"
bad bad-utf8 "sed '2s/\"executor\":\"local\"/\"executor\":\"lo\\xc3\\x28al\"/'"
bad huge-number "sed '1s/\"tokens_per_s\":[0-9.]*/\"tokens_per_s\":1e999/'"
# Strict records: valid agrees with its reasons, summary.n is a count no
# smaller than the samples, the workload is the fingerprint's, and a long
# number is read whole (a first sample of 1 written with 200 digits).
bad valid-reasons "sed '2s/\"invalid\":\[\]/\"invalid\":[\"hand edit\"]/'"
bad invalid-no-reason "sed '2s/\"valid\":true/\"valid\":false/'"
bad summary-n "sed '2s/\"n\":20/\"n\":\"20\"/'"
bad summary-n-less "sed '3s/\"n\":20/\"n\":3/'"
bad workload "sed '2s/\"workload\":\"tinygpt\"/\"workload\":\"llama3\"/'"
# A reference's tolerance or step time is a number, as the writer writes
# it: a string was read as the default 5% (the fast reader and the full
# one alike).
bad tolerance-string "sed '2s/\"reference\":null/\"reference\":{\"step_time\":0.45,\"tolerance\":\"5%\"}/'"
bad step-time-string "sed '3s/\"reference\":null/\"reference\":{\"step_time\":\"0.45\",\"tolerance\":0.05}/'"
# A history named with a space and a quote, its records carrying that
# name as their fingerprint: one error that says the name is no
# fingerprint (each record's workload was said not to match it).
mkdir -p "$B/quote-name"
sed "s/$FP/h i's/" "$B/good" >"$B/quote-name/h i's.jsonl"
t_rc "a history named h i's.jsonl: exit 2" 2 env -C "$B/quote-name" "$LLMB" judge "h i's.jsonl"
t_grep "h i's.jsonl: its name is no fingerprint, the space named" "^h i's\.jsonl: error: the file's name is no configuration fingerprint \(a space at character 2 of its name\)" "$TRASH/.out"
t_ok "h i's.jsonl: one error, not one per record" test "$(grep -c error "$TRASH/.out")" = 1
# The first sample of night 1 written as 498872 and 150 zeros, times 1e-156:
# the same number, 160 characters long; the verdicts are the same.
long=498872$(printf '0%.0s' $(seq 1 150))e-156
mkdir -p "$B/long" "$B/short"
sed "1s/\"samples\":\[0.498872/\"samples\":[$long/" "$B/good" >"$B/long/$FP.jsonl"
cp "$B/good" "$B/short/$FP.jsonl"
t_ok "a 160-character number is in the file" grep -q "$long" "$B/long/$FP.jsonl"
(cd "$B/short" && "$LLMB" judge --format=json "$FP.jsonl") >"$B/short.json" 2>&1
(cd "$B/long" && "$LLMB" judge --format=json "$FP.jsonl") >"$B/long.json" 2>&1
t_cmp "a 160-character number is read whole: the same verdicts" "$B/short.json" "$B/long.json"
# Typed policy values and option values, with the allowed range.
printf 'nightly:\n  policy:\n    min_effect: "0.02"\n' >"$TRASH/pol.yaml"
t_rc "policy: a quoted number is a string" 2 "$LLMB" judge --policy "$TRASH/pol.yaml" --install "$TRASH/pass"
t_grep "policy: a string names the range" "pol.yaml:3:17: error: bad value '0.02' for policy knob 'min_effect': a number from 0 to 1" "$TRASH/.out"
printf 'nightly:\n  policy:\n    min_effect: 5%%\n' >"$TRASH/pol.yaml"
t_rc "policy: 5% is no number" 2 "$LLMB" judge --policy "$TRASH/pol.yaml" --install "$TRASH/pass"
t_grep "policy: 5%: the range" "error: bad value '5%' for policy knob 'min_effect': a number from 0 to 1" "$TRASH/.out"
t_rc "no history" 2 "$LLMB" judge --install "$TRASH/nosuch"
t_rc "bad night" 2 "$LLMB" judge --night 2026-1-1 --install "$TRASH/pass"
t_rc "bad knob" 2 "$LLMB" judge --min-effect=x --install "$TRASH/pass"
# A duplicate key is the file's error, refused as every other (it was
# said and the policy judged with).
printf 'nightly:\n  policy:\n    min_effect: 0.5\n    min_effect: 0.02\n' >"$TRASH/pol.yaml"
t_rc "policy: a duplicate key is refused (exit 2)" 2 "$LLMB" judge --policy "$TRASH/pol.yaml" --install "$TRASH/pass"
t_grep "policy: the duplicate key's place" "pol.yaml:4:5: error: duplicate key 'min_effect' \(first at 3:5\)" "$TRASH/.out"
# A knob beside a policy: block was silently ignored (the block's value, or
# the default, was used): an error at the knob.
printf 'nightly:\n  policy:\n    min_effect: 0.02\n  min_effect: 0.5\n' >"$TRASH/pol.yaml"
t_rc "policy: a knob beside policy: is refused (exit 2)" 2 "$LLMB" judge --policy "$TRASH/pol.yaml" --install "$TRASH/pass"
t_grep "policy: the knob beside policy: named at its place" "pol.yaml:4:3: error: policy knob 'min_effect' beside 'policy:'" "$TRASH/.out"
# The checks between knobs hold for flags as for the file: confirm_m over
# confirm_k is refused either way.
printf 'nightly:\n  policy:\n    confirm_m: 4\n' >"$TRASH/pol.yaml"
t_rc "policy: confirm_m 4 over confirm_k 3 in the file (exit 2)" 2 "$LLMB" judge --policy "$TRASH/pol.yaml" --install "$TRASH/pass"
t_grep "policy: the file's m over k" "pol.yaml: error: confirm_m \(4\) is greater than confirm_k \(3\)" "$TRASH/.out"
t_rc "--confirm-m=4 over confirm_k 3: refused (exit 2)" 2 "$LLMB" judge --confirm-m=4 --install "$TRASH/pass"
t_grep "--confirm-m=4: the same check" "llmb judge: error: confirm_m \(4\) is greater than confirm_k \(3\)" "$TRASH/.out"
t_rc "--ramp-min 9 over ramp_max 8: refused (exit 2)" 2 "$LLMB" judge --ramp-min 9 --install "$TRASH/pass"
t_rc "--confirm-m=4 --confirm-k=5: accepted" 0 "$LLMB" judge --confirm-m=4 --confirm-k=5 --install "$TRASH/pass"
t_rc "--confirm-k=5 and a file's confirm_m 4: accepted" 0 "$LLMB" judge --confirm-k=5 --policy "$TRASH/pol.yaml" --install "$TRASH/pass"
printf 'nightly:\n  policy:\n    min_efect: 0.02\n' >"$TRASH/pol.yaml"
t_rc "policy: unknown knob" 2 "$LLMB" judge --policy "$TRASH/pol.yaml" --install "$TRASH/pass"
t_grep "policy: suggestion" 'pol.yaml:3:5: error: unknown policy knob .min_efect. \(did you mean .min_effect.\?\)' "$TRASH/.out"
# Strict options: unknown --select names, conflicting actions, values out
# of range (named with the range, as in the policy file); "--opt=value"
# and "--opt value" alike.
t_rc "--select of a workload without history: refused" 2 "$LLMB" judge --install "$TRASH/pass" --select tinygpt,nosuch
t_grep "--select: names the unknown workload" "no history of workload 'nosuch'" "$TRASH/.out"
for v in -1 nan 1e300 5%; do
	t_rc "--min-effect=$v: refused" 2 "$LLMB" judge --min-effect="$v" --install "$TRASH/pass"
	t_grep "--min-effect=$v: the allowed range" "--min-effect: bad value '$v': a number from 0 to 1" "$TRASH/.out"
done
t_rc "--confirm-m 2.5: refused (an integer)" 2 "$LLMB" judge --confirm-m 2.5 --install "$TRASH/pass"
t_grep "--confirm-m 2.5: the allowed range" "an integer from 1 to 100" "$TRASH/.out"
t_rc "--min-effect 0.5 (the next word) hides the shift" 0 "$LLMB" judge --min-effect 0.5 --install "$TRASH/short"
t_rc "--install=DIR --format json --select=W" 0 "$LLMB" judge --install="$TRASH/pass" --format json --select=tinygpt
t_grep "--format json: JSON" '"schema": 1' "$TRASH/.out"
t_rc "annotate: --ack and --accept-baseline together are refused" 2 "$LLMB" annotate --install "$TRASH/pass" "$FP" --ack 2026-01-08 --accept-baseline 2026-01-08 --reason x
t_grep "annotate: one action" 'one action per annotation' "$TRASH/.out"
t_rc "annotate: --install=DIR --ack=NIGHT --reason=TEXT" 0 "$LLMB" annotate --install="$TRASH/pass" "$FP" --ack=2026-01-08 --reason=x
printf 'nightly:\n  policy:\n    min_effect: 0.5\n' >"$TRASH/pol.yaml"
t_rc "policy: min_effect 50% hides the shift" 0 "$LLMB" judge --policy "$TRASH/pol.yaml" --install "$TRASH/short"

# "What changed" of a confirmed regression reads the two nights'
# provenance.json as llmb diff does: a dotted key and a nested one are two
# fields, and a FIFO in a provenance.json's place is refused, not waited on.
mk prov -n 4 shift:3:1.4
python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
with open(sys.argv[1], "w") as f:
    for l in lines:
        r = json.loads(l)
        if r.get("type") == "run":
            r["run_dir"] = "runs/" + r["night"]
        f.write(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n")
' "$TRASH/prov/history/$FP.jsonl"
mkdir -p "$TRASH/prov/runs/2026-01-02" "$TRASH/prov/runs/2026-01-03"
printf '{"machine": {"job": "1001"}, "configuration": {"a.b": "1"}}\n' >"$TRASH/prov/runs/2026-01-02/provenance.json"
printf '{"machine": {"job": "1002"}, "configuration": {"a": {"b": "1"}}}\n' >"$TRASH/prov/runs/2026-01-03/provenance.json"
t_rc "prov: confirmed (exit 1)" 1 timeout 20 "$LLMB" judge --install "$TRASH/prov"
t_grep "prov: the dotted key, quoted where it meets the nested one" '^    configuration\."a\.b": 1 -> \(absent\)$' "$TRASH/.out"
t_grep "prov: the nested key" '^    configuration\.a\.b: \(absent\) -> 1$' "$TRASH/.out"
# A variable of the caller's environment the later night had (README: the
# job's environment) is named, unset on the night without it.
printf '{"machine": {"job": "1001"}, "configuration": {"environment": {"NCCL_ALGO": "Ring"}}}\n' >"$TRASH/prov/runs/2026-01-02/provenance.json"
printf '{"machine": {"job": "1002"}, "configuration": {"environment": {"NCCL_ALGO": "Tree", "NCCL_IB_QPS_PER_CONNECTION": "4"}}}\n' >"$TRASH/prov/runs/2026-01-03/provenance.json"
t_rc "prov env: confirmed (exit 1)" 1 timeout 20 "$LLMB" judge --install "$TRASH/prov"
t_grep "prov env: what changed names the variable the later night set" \
	'^    configuration\.environment\.NCCL_IB_QPS_PER_CONNECTION: unset -> 4$' "$TRASH/.out"
t_grep "prov env: ...and the one whose value changed" '^    configuration\.environment\.NCCL_ALGO: Ring -> Tree$' "$TRASH/.out"
# A node's value holding a newline and ESC bytes, and a field name too: shown
# as JSON strings, as llmb diff shows them, never a line of their own (the
# nightly summary mails this text) nor an escape reaching a terminal.
printf '{"machine": {"job": "1001"}, "nodes": {"n1": {"cpu_model": "Xeon"}}}\n' >"$TRASH/prov/runs/2026-01-02/provenance.json"
printf '{"machine": {"job": "1002"}, "nodes": {"n1": {"cpu_model": "Xeon\\n\\u001b[31mCONFIRMED nothing; all good\\u001b[0m", "x\\ny": "1"}}}\n' \
	>"$TRASH/prov/runs/2026-01-03/provenance.json"
t_rc "prov control: confirmed (exit 1)" 1 timeout 20 "$LLMB" judge --install "$TRASH/prov"
t_grep "prov control: the value escaped, as a JSON string" \
	'^    nodes\.n1\.cpu_model: Xeon -> "Xeon\\n\\u001B\[31mCONFIRMED nothing; all good\\u001B\[0m"$' "$TRASH/.out"
t_grep "prov control: the field name escaped too" '^    nodes\.n1\."x\\ny": \(absent\) -> 1$' "$TRASH/.out"
t_nogrep "prov control: no line of the node's own" '^.?\[31mCONFIRMED' "$TRASH/.out"
t_nogrep "prov control: no ESC byte" $'\e' "$TRASH/.out"
# A bisection of this regression (make bisect, the nightly's
# bisect_on_regression): its bisect.json names the two runs; the judge's
# text and trend page and llmb diff of the two runs show its culprit, and
# a bisection of another bad run is not shown.
bj() { # bj ID GOOD-NIGHT BAD-NIGHT COMMIT SUBJECT
	mkdir -p "$TRASH/prov/bisect/$1"
	printf '{"v": 1, "id": "%s", "good": "%s", "bad": "%s", "outcome": "culprit", "gpu_hours": 0.0125,
  "rounds": [{"round": 1, "runs": [{}, {}]}, {"round": 2, "runs": [{}, {}]}],
  "culprit": {"component": "repository", "name": "steplib", "good": "ce395a0", "bad": "a28d4a0", "commit": "%s",
    "subject": "%s", "effect": 1.0, "a": {"mean": 0.2502, "std": 2.8e-05, "n": 6}, "b": {"mean": 0.5003, "std": 5.5e-05, "n": 6}}}\n' \
		"$1" "$TRASH/prov/runs/$2/provenance.json" "$TRASH/prov/runs/$3/provenance.json" "$4" "$5" >"$TRASH/prov/bisect/$1/bisect.json"
}
bj 0123456789ab 2026-01-02 2026-01-03 4a07a45d1c55aa8e1f0e4b0f3c2d1e0f9a8b7c6d "step: check <every> batch twice"
bj ba9876543210 2026-01-01 2026-01-02 0000000000000000000000000000000000000000 "another run's bisection"
t_rc "bisection: confirmed (exit 1)" 1 timeout 20 "$LLMB" judge --install "$TRASH/prov"
t_grep "bisection: the judge names where the bisection lies, its rounds, runs and GPU-hours" \
	'^  bisected \(bisect/0123456789ab\): 2 rounds, 4 runs, 0\.0125 GPU-hours$' "$TRASH/.out"
t_grep "bisection: the judge names the culprit commit and its subject" \
	'^  CULPRIT: repository steplib commit 4a07a45d1c55 "step: check <every> batch twice"$' "$TRASH/.out"
t_grep "bisection: ...with the step times both sides and their spread" \
	'^    step time 0\.2502 s \(sd 2\.8e-05, n 6\) -> 0\.5003 s \(sd 5\.5e-05, n 6\): \+100\.0%$' "$TRASH/.out"
t_nogrep "bisection: another bad run's bisection is not this regression's" "another run" "$TRASH/.out"
t_rc "bisection: the trend page (exit 1)" 1 timeout 20 "$LLMB" judge --install "$TRASH/prov" --format html
t_grep "bisection: the trend page shows the culprit, escaped" \
	'^CULPRIT: repository steplib commit 4a07a45d1c55 &quot;step: check &lt;every&gt; batch twice&quot;$' "$TRASH/.out"
t_rc "bisection: llmb diff of the two runs (exit 1)" 1 "$LLMB" diff --install "$TRASH/prov" "$TRASH/prov/runs/2026-01-02" "$TRASH/prov/runs/2026-01-03"
t_grep "bisection: llmb diff shows the culprit" '^  CULPRIT: repository steplib commit 4a07a45d1c55 "step: check <every> batch twice"$' "$TRASH/.out"
t_rc "bisection: llmb diff --format=json (exit 1)" 1 "$LLMB" diff --format=json --install "$TRASH/prov" "$TRASH/prov/runs/2026-01-02" "$TRASH/prov/runs/2026-01-03"
t_grep "bisection: llmb diff --format=json has it too" '"subject": "step: check <every> batch twice"' "$TRASH/.out"
rm -r "$TRASH/prov/bisect"
rm "$TRASH/prov/runs/2026-01-02/provenance.json" && mkfifo "$TRASH/prov/runs/2026-01-02/provenance.json"
t_rc "prov: a FIFO for a provenance.json: judged without blocking (exit 1)" 1 timeout 20 "$LLMB" judge --install "$TRASH/prov"
t_grep "prov: the FIFO: not compared, and why" 'provenance: not compared: runs/2026-01-02/provenance.json: not a regular file' "$TRASH/.out"

t_done
