/* judge: `llmb judge`. Loads every history file (all errors first: bad
 * input is exit 2 and nothing is judged), judges each configuration at one
 * night (verdict.c), builds one JSON model and renders it as text, JSON or
 * the HTML trend page (trend.c). Exit: 0 pass, 1 a confirmed regression,
 * 3 invalid or failed runs, 4 inconclusive only, 2 bad input or usage.
 * judge_night() is the same judging for `llmb nightly`: the history read
 * once, the three formats rendered from one model. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/diag.h"
#include "base/util.h"
#include "results/bisectfind.h"
#include "results/nodes.h"
#include "results/whatchanged.h"
#include "store/history.h"
#include "store/layout.h"
#include "verdict/judge.h"
#include "verdict/verdict.h"

#define JUDGE_SCHEMA 1

static const char usage_text[] =
	"usage: llmb judge [--format=text|json|html] [--out FILE] [--night NIGHT] [--policy FILE.yaml]\n"
	"                  [--KNOB=VALUE...] [--select WORKLOAD[,...]] (--install DIR | HISTORY_FILE...)\n"
	"Judges every configuration's nightly history at NIGHT (default: the latest night).\n"
	"Exit status: 0 pass (SUSPECT only warns), 1 a CONFIRMED regression, 3 invalid or\n"
	"failed runs in the judged night (and no confirmed regression), 4 inconclusive only\n"
	"(UNKNOWN: too little history or too much noise), 2 bad input or usage.\n"
	"Policy knobs (--KNOB=VALUE or a 'nightly:' block of --policy):\n";

struct opts {
	const char *fmt, *out, *night, *install, *select;
	struct policy pol;
};

/* A message of the judge's own, where diag.c puts its diagnostics (held in
 * diag_hold when set, as judge_night has them). */
static void __attribute__((format(printf, 1, 2)))
judge_say(const char *fmt, ...)
{
	struct sb s = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_addf(&s, "llmb judge: ");
	sb_vaddf(&s, fmt, ap);
	va_end(ap);
	if (diag_hold)
		sb_addf(diag_hold, "%s\n", s.buf);
	else
		fprintf(stderr, "%s\n", s.buf);
	sb_free(&s);
}

static void
usage(FILE *f)
{
	struct policy d;
	policy_defaults(&d);
	fputs(usage_text, f);
	for (size_t i = 0; i < policy_count(); i++) {
		fputs("  --", f);
		for (const char *c = policy_name(i); *c; c++)
			fputc(*c == '_' ? '-' : *c, f);
		fprintf(f, "=%g\n", policy_get(&d, i));
	}
}

/* ---- inputs ------------------------------------------------------------- */

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR/history/<fingerprint>.jsonl, sorted by name. */
static char **
install_files(const char *install, size_t *n)
{
	char *dir = layout_history(install, NULL);
	DIR *d = opendir(dir);
	char **v = NULL;
	*n = 0;
	if (!d) {
		free(dir);
		return NULL;
	}
	for (struct dirent *e; (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l < 7 || strcmp(e->d_name + l - 6, ".jsonl"))
			continue;
		v = xrealloc(v, (*n + 1) * sizeof *v);
		v[(*n)++] = xasprintf("%s/%s", dir, e->d_name);
	}
	closedir(d);
	free(dir);
	if (*n)
		qsort(v, *n, sizeof *v, cmpstr);
	return v;
}

static int
selected(const struct history *h, const char *select)
{
	if (!select)
		return 1;
	const char *w = json_string_value(json_object_get(h->key, "workload"));
	if (!w)
		return 0;
	size_t wl = strlen(w);
	for (const char *s = select; *s;) {
		size_t l = strcspn(s, ",");
		if (l == wl && !strncmp(s, w, l))
			return 1;
		s += l + (s[l] == ',');
	}
	return 0;
}

/* ---- the model ---------------------------------------------------------- */

static json_t *
jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
jpct(double v)
{
	return isfinite(v) ? json_real(round(v * 1e4) / 1e2) : json_null();
}

static json_t *
jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The rule that newly confirmed a shift on night v (with the nights it
 * weighed), NULL when none did. */
static json_t *
rule_json(const struct vnight *v)
{
	if (v->rule == VR_NONE)
		return NULL;
	json_t *r = json_pack("{s:s}", "rule", rule_names[v->rule]);
	if (v->rule_nights)
		json_object_set_new(r, "nights", json_integer(v->rule_nights));
	return r;
}

static json_t *
night_json(const struct vnight *v)
{
	json_t *o = json_pack("{s:s, s:b, s:s, s:i, s:i, s:o, s:o}", "night", v->night, "valid", v->valid, "state",
			      state_names[v->state], "runs", (int)v->nruns, "valid_runs", (int)v->nvalid, "mean",
			      jnum(v->mean), "se", jnum(v->se));
	if (!v->valid) {
		json_object_set_new(o, "invalid", jstr(v->rep->why));
		return o;
	}
	json_object_set_new(o, "verdict", json_string(vb_names[v->vb]));
	json_object_set_new(o, "effect_pct", jpct(v->effect));
	json_object_set_new(o, "p", jnum(verdict_p(v)));
	json_object_set_new(o, "baseline_n", json_integer((json_int_t)v->base_n));
	json_object_set_new(o, "baseline", jnum(v->base_mean));
	json_object_set_new(o, "band", v->base_n ? json_pack("[o,o]", jnum(v->band_lo), jnum(v->band_hi)) : json_null());
	json_object_set_new(o, "reference_verdict", json_string(vb_names[v->vref]));
	if (v->acked)
		json_object_set_new(o, "acked", json_true());
	if (v->mode)
		json_object_set_new(o, "mode", json_true());
	if (v->cp)
		json_object_set_new(o, "change_point", json_true());
	if (v->confirmed)
		json_object_set_new(o, "confirmed", json_true());
	if (v->first_bad >= 0)
		json_object_set_new(o, "first_bad_index", json_integer(v->first_bad));
	/* why the gate alarmed: the rule that newly confirmed a shift on this night */
	json_t *r = rule_json(v);
	if (r)
		json_object_set_new(o, "confirmed_by", r);
	if (v->state == ST_CONFIRMED)
		json_object_set_new(o, "first_bad_range_index", json_pack("[I,I]", (json_int_t)v->range_lo, (json_int_t)v->range_hi));
	return o;
}

/* What the provenance fields say on the last good and the first bad night. */
static json_t *
changed_json(const struct hrun *a, const struct hrun *b)
{
	json_t *o = json_object();
	const char *names[] = {"image.ref", "image.digest", "config_hash", "llmb_version", "nodes", "knobs"};
	const char *va[] = {a->image_ref, a->image_digest, a->config_hash, a->llmb_version, a->nodes, a->knobs};
	const char *vb[] = {b->image_ref, b->image_digest, b->config_hash, b->llmb_version, b->nodes, b->knobs};
	for (size_t i = 0; i < 6; i++) {
		if ((va[i] && vb[i] && !strcmp(va[i], vb[i])) || (!va[i] && !vb[i]))
			continue;
		json_object_set_new(o, names[i], json_pack("[o,o]", jstr(va[i]), jstr(vb[i])));
	}
	return o;
}

/* with_nights: the per-night detail (for JSON and HTML; the text needs
 * none of it, and on long histories it is most of the work). */
static json_t *
config_json(const struct vconfig *c, int with_nights, const char *install)
{
	const struct history *h = c->h;
	json_t *o = json_pack("{s:s, s:s, s:O, s:i, s:i, s:i}", "fingerprint", h->fingerprint, "file", h->file, "key",
			      h->key ? h->key : json_null(), "acks", (int)c->count[ANN_ACK], "accepts",
			      (int)c->count[ANN_ACCEPT], "modes", (int)c->count[ANN_MODE]);
	json_t *nights = json_array(), *cps = json_array();
	for (size_t i = 0; i < c->n && (long)i <= c->judged; i++) {
		if (with_nights)
			json_array_append_new(nights, night_json(&c->nights[i]));
		if (c->nights[i].cp)
			json_array_append_new(cps, json_pack("{s:s, s:o}", "night", c->nights[i].night, "p",
							     jnum(c->nights[i].cp_p)));
	}
	json_object_set_new(o, "nights", nights);
	json_object_set_new(o, "change_points", cps);
	json_t *anns = json_array();
	for (size_t i = 0; i < h->nanns; i++)
		json_array_append_new(anns, json_pack("{s:s, s:s, s:s}", "night", h->anns[i].night, "action",
						      history_action_name(h->anns[i].action),
						      "reason", h->anns[i].reason));
	json_object_set_new(o, "annotations", anns);
	if (c->judged < 0) {
		json_object_set_new(o, "state", json_string("NOT-RUN"));
		return o;
	}
	const struct vnight *v = &c->nights[c->judged];
	json_object_set_new(o, "night", json_string(v->night));
	json_object_set_new(o, "state", json_string(state_names[c->state]));
	json_object_set_new(o, "mean", jnum(v->mean));
	json_object_set_new(o, "baseline", json_pack("{s:i, s:o, s:o, s:o}", "n", (int)v->base_n, "mean",
						     jnum(v->base_mean), "low", jnum(v->band_lo), "high", jnum(v->band_hi)));
	json_object_set_new(o, "verdict_baseline", json_pack("{s:s, s:o, s:o}", "verdict", v->valid ? vb_names[v->vb] : "NONE",
							     "effect_pct", jpct(v->effect), "p", jnum(verdict_p(v))));
	json_object_set_new(o, "reference", isnan(v->ref) ? json_null() : json_pack("{s:f, s:f}", "step_time", v->ref, "tolerance", v->tol));
	json_object_set_new(o, "verdict_reference", json_pack("{s:s, s:o}", "verdict", vb_names[v->vref],
							      "effect_pct", jpct(v->ref_effect)));
	if (!v->valid)
		json_object_set_new(o, "invalid", jstr(v->rep->why));
	if (c->first_bad >= 0) {
		const struct vnight *fb = &c->nights[c->first_bad];
		json_object_set_new(o, "first_bad_night", json_string(fb->night));
		json_object_set_new(o, "first_bad_how", json_string(c->first_bad_how));
		/* why the gate alarmed: the rule and night that confirmed the
		 * episode the judged night is in (the nights after that one go
		 * on CONFIRMED and name no rule) */
		for (long k = c->judged; v->state == ST_CONFIRMED && k >= 0; k--) {
			const struct vnight *w = &c->nights[k];
			json_t *cb = eligible(w) ? rule_json(w) : NULL;
			if (cb) {
				json_object_set_new(cb, "night", json_string(w->night));
				json_object_set_new(o, "confirmed_by", cb);
			}
			if (cb || (eligible(w) && w->state != ST_CONFIRMED))
				break;
		}
		if (v->state == ST_CONFIRMED && v->range_lo >= 0 && v->range_hi >= v->range_lo) {
			json_t *r = json_pack("{s:s, s:s, s:f, s:o}", "from", c->nights[v->range_lo].night, "to",
					      c->nights[v->range_hi].night, "level", VRANGE_LEVEL, "share", jnum(v->range_share));
			/* What changed from each night of the range to the next, from
			 * the night before it: where the step may lie, so may the
			 * change that made it. */
			if (v->range_hi > v->range_lo) {
				json_t *a = json_array();
				/* from the last valid night before it: a change may come
				 * in on a night whose run failed */
				long k0 = v->range_lo - 1;
				while (k0 > 0 && !eligible(&c->nights[k0]))
					k0--;
				for (long k = k0 >= 0 ? k0 + 1 : 1, prev = k - 1; k <= v->range_hi; prev = k++) {
					json_t *ch = changed_json(c->nights[prev].rep, c->nights[k].rep);
					if (json_object_size(ch))
						json_array_append_new(a, json_pack("{s:s, s:o}", "night", c->nights[k].night, "changed", ch));
					else
						json_decref(ch);
				}
				json_object_set_new(r, "changed", a);
			}
			json_object_set_new(o, "first_bad_range", r);
		}
		if (c->last_good >= 0) {
			const struct vnight *lg = &c->nights[c->last_good];
			json_object_set_new(o, "last_good_night", json_string(lg->night));
			json_object_set_new(o, "changed", changed_json(lg->rep, fb->rep));
			/* the provenance of both runs, where the records say where it is */
			if (install && (lg->rep->run_dir || fb->rep->run_dir))
				json_object_set_new(o, "provenance_changed", whatchanged(install, lg->rep, fb->rep));
			/* the bisection of this regression, where one ran (the nightly's
			 * bisect_on_regression, or make bisect of these two nights) */
			char *gp = install ? whatchanged_provenance(install, lg->rep) : NULL;
			char *bp = install ? whatchanged_provenance(install, fb->rep) : NULL;
			json_t *bf = v->state == ST_CONFIRMED && bp ? bisect_find(install, bp, gp) : NULL;
			if (bf)
				json_object_set_new(o, "bisection", bf);
			free(gp);
			free(bp);
		}
	}
	return o;
}

static int
exit_of(const json_t *summary)
{
	if (json_integer_value(json_object_get(summary, "CONFIRMED")))
		return 1;
	if (json_integer_value(json_object_get(summary, "INVALID")) || json_integer_value(json_object_get(summary, "FAILED")))
		return 3;
	if (json_integer_value(json_object_get(summary, "INCONCLUSIVE")))
		return 4;
	return 0;
}

static json_t *
policy_json(const struct policy *p)
{
	json_t *o = json_object();
	for (size_t i = 0; i < policy_count(); i++)
		json_object_set_new(o, policy_name(i), json_real(policy_get(p, i)));
	return o;
}

/* ---- text --------------------------------------------------------------- */

static const char *
jget(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "-";
}

/* A "changed" object's fields, a line each: "  changed: [NIGHT: ]FIELD: A -> B". */
static void
text_fields(struct sb *o, const char *lead, const json_t *ch, const char *night)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)ch, k, v) {
		const char *a = json_string_value(json_array_get(v, 0)), *b = json_string_value(json_array_get(v, 1));
		sb_addf(o, "  %s: %s%s%s: %s -> %s\n", lead, night ? night : "", night ? ": " : "", k, a ? a : "(none)",
			b ? b : "(none)");
	}
}

static void
text_changed(struct sb *o, const json_t *ch)
{
	if (!ch)
		return;
	if (!json_object_size(ch)) {
		sb_add(o, "  changed: nothing recorded (image, config hash, llmb version, nodes, knobs are the same)\n");
		return;
	}
	text_fields(o, "changed", ch, NULL);
}

/* Why the gate alarmed: "  confirmed on NIGHT by the RULE rule: what it
 * weighed" (docs/history.md, "The verdicts" 4), by enum vrule as
 * rule_names names the rules; %d is the rule's nights. */
static const char *const rule_weighed[] = {
	[VR_NONE] = "",
	[VR_STREAK] = "M of the last K nights different the same way, on a young baseline",
	[VR_PAIR] = "the last %d nights together",
	[VR_TAIL] = "the last %d nights together",
	[VR_RAMP] = "the last %d nights against a steady rise",
	[VR_CP] = "a new level since a change point",
	[VR_RESUMED] = "the nights since it was declared over, together at its level",
};

static void
text_confirmed_by(struct sb *o, const json_t *cb)
{
	if (!cb)
		return;
	const char *rule = jget(cb, "rule");
	size_t r = VR_RESUMED;
	for (size_t k = VR_STREAK; k < VR_RESUMED; k++)
		if (!strcmp(rule, rule_names[k]))
			r = k;
	sb_addf(o, "  confirmed on %s by the %s rule: ", jget(cb, "night"), rule);
	sb_addf(o, rule_weighed[r], (int)json_integer_value(json_object_get(cb, "nights")));
	sb_add(o, "\n");
}

static void
text_suspect_nodes(struct sb *o, const json_t *sus)
{
	size_t i;
	json_t *x;
	json_array_foreach(sus, i, x) {
		json_int_t es = json_integer_value(json_object_get(x, "earlier_slow_runs"));
		sb_addf(o, "  suspect node %s: in %lld earlier slow run%s; slow in %lld of %lld runs with it, "
			"%lld of %lld without\n", jget(x, "node"), (long long)es, es == 1 ? "" : "s",
			(long long)json_integer_value(json_object_get(x, "slow_runs")),
			(long long)json_integer_value(json_object_get(x, "runs")),
			(long long)json_integer_value(json_object_get(x, "slow_runs_elsewhere")),
			(long long)json_integer_value(json_object_get(x, "runs_elsewhere")));
	}
}

static void
text_config(struct sb *o, const json_t *c)
{
	const char *st = jget(c, "state"), *fp = jget(c, "fingerprint");
	const json_t *vb = json_object_get(c, "verdict_baseline"), *b = json_object_get(c, "baseline");
	double e = json_number_value(json_object_get(vb, "effect_pct"));
	if (!strcmp(st, "CONFIRMED") || !strcmp(st, "SUSPECT")) {
		sb_addf(o, "%s %s: step time %+.1f%% (%.4g s vs baseline %.4g s of %d nights)\n", st, fp, e,
			json_number_value(json_object_get(c, "mean")), json_number_value(json_object_get(b, "mean")),
			(int)json_integer_value(json_object_get(b, "n")));
		if (!strcmp(st, "CONFIRMED")) {
			sb_addf(o, "  first bad night %s (%s), last good night %s\n", jget(c, "first_bad_night"),
				jget(c, "first_bad_how"), jget(c, "last_good_night"));
			text_confirmed_by(o, json_object_get(c, "confirmed_by"));
			text_changed(o, json_object_get(c, "changed"));
			whatchanged_text(o, json_object_get(c, "provenance_changed"));
			if (json_object_get(c, "bisection"))
				bisect_found_text(o, json_object_get(c, "bisection"), "  ");
			const json_t *r = json_object_get(c, "first_bad_range");
			if (r) {
				/* what a bisection covers: the nights that may hold the step */
				const json_t *js = json_object_get(r, "share");
				double share = 100 * json_number_value(js);
				char sh[16];
				snprintf(sh, sizeof sh, !json_is_number(js) ? "?" : share >= 99.5 ? ">99%%" : share < 0.5 ? "<1%%" : "%.0f%%", share);
				if (!strcmp(jget(r, "from"), jget(r, "to")) && !json_is_number(js))
					sb_addf(o, "  the step's first night: %s alone (the noise unknown)\n", jget(r, "from"));
				else if (!strcmp(jget(r, "from"), jget(r, "to")))
					sb_addf(o, "  the step's first night: %s alone (%s sure)\n", jget(r, "from"), sh);
				else
					sb_addf(o, "  the step's first night: %s .. %s, %.0f%% sure (%s alone %s)\n", jget(r, "from"),
						jget(r, "to"), 100 * json_number_value(json_object_get(r, "level")),
						jget(c, "first_bad_night"), sh);
				const json_t *rc = json_object_get(r, "changed");
				size_t k;
				json_t *x;
				if (rc && !json_array_size(rc))
					sb_add(o, "  changed in those nights: nothing recorded\n");
				json_array_foreach(rc, k, x)
					text_fields(o, "changed in those nights", json_object_get(x, "changed"), jget(x, "night"));
			}
		}
		text_suspect_nodes(o, json_object_get(c, "suspect_nodes"));
		return;
	} else if (!strcmp(st, "INVALID") || !strcmp(st, "FAILED")) {
		sb_addf(o, "%s %s: %s\n", st, fp, jget(c, "invalid"));
	} else if (!strcmp(st, "INCONCLUSIVE")) {
		sb_addf(o, "%s %s: step time %+.1f%% vs %d baseline nights: noise or too little history\n", st, fp, e,
			(int)json_integer_value(json_object_get(b, "n")));
	}
	/* a slow night acknowledged (its nodes, not the software) still names them */
	if (json_object_get(c, "suspect_nodes")) {
		sb_addf(o, "%s %s: step time %+.1f%%, acknowledged: slow on suspect nodes\n", st, fp, e);
		text_suspect_nodes(o, json_object_get(c, "suspect_nodes"));
	}
}

static void
render_text(struct sb *o, const json_t *m)
{
	const json_t *s = json_object_get(m, "summary"), *cs = json_object_get(m, "configurations"), *c;
	size_t i;
	sb_addf(o, "llmb judge %s: %d configuration%s:", jget(m, "night"), (int)json_array_size(cs),
		json_array_size(cs) == 1 ? "" : "s");
	static const char *const order[] = {"CONFIRMED", "SUSPECT", "FAILED", "INVALID", "INCONCLUSIVE", "NEW", "OK", "NOT-RUN"};
	const char *sep = " ";
	for (size_t n = 0; n < sizeof order / sizeof *order; n++) {
		json_int_t count = json_integer_value(json_object_get(s, order[n]));
		if (count) {
			sb_addf(o, "%s%lld %s", sep, (long long)count, order[n]);
			sep = ", ";
		}
	}
	sb_add(o, "\n");
	json_array_foreach(cs, i, c) text_config(o, c);
}

/* ---- main --------------------------------------------------------------- */

/* A "--name=value" that is no option of judge's sets the policy knob name
 * (dashes for underscores). 0, or -1 when there is no such knob or value. */
static int
policy_option(const char *a, struct opts *o)
{
	if (strncmp(a, "--", 2) || !strchr(a, '='))
		return -1;
	char *name = xstrndup(a + 2, (size_t)(strchr(a, '=') - a - 2));
	for (char *p = name; *p; p++)
		*p = *p == '-' ? '_' : *p;
	const char *val = strchr(a, '=') + 1;
	int rc = policy_set(&o->pol, name, val);
	char rule[96];
	if (rc == -2)
		fprintf(stderr, "%s: error: %.*s: bad value '%s': %s\n", progname, (int)(strchr(a, '=') - a), a, val,
			policy_rule(name, rule, sizeof rule));
	free(name);
	return rc ? -1 : 0;
}

/* Every name of --select is a workload with a history among the files. */
static int
select_known(const struct history *hs, size_t n, const char *select)
{
	int bad = 0;
	for (const char *s = select; s && *s;) {
		size_t l = strcspn(s, ","), found = 0;
		for (size_t i = 0; i < n && !found; i++) {
			const char *w = json_string_value(json_object_get(hs[i].key, "workload"));
			found = w && strlen(w) == l && !strncmp(w, s, l);
		}
		if (!found) {
			judge_say("error: --select: no history of workload '%.*s'", (int)l, s);
			bad = 1;
		}
		s += l + (s[l] == ',');
	}
	return bad;
}

/* The index of the first operand; -1 on a usage error, -2 when the policy
 * file is bad, -3 for --help. */
static int
parse_args(int argc, char **argv, struct opts *o)
{
	/* every option takes "=V" or the next word, the policy knobs too */
	static const struct option longopts[] = {
		{"out", required_argument, NULL, 'o'}, {"night", required_argument, NULL, 'n'},
		{"install", required_argument, NULL, 'i'}, {"select", required_argument, NULL, 's'},
		{"policy", required_argument, NULL, 'p'}, {"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *text;
	int c;
	policy_defaults(&o->pol);
	cliopt_start();
	while ((c = cliopt_next(argc, argv, "h", longopts, &text)) != -1) {
		if (c == 'h' && (!strcmp(text, "-h") || !strcmp(text, "--help")))
			return -3;
		if (c == 'o' || c == 'n')
			*(c == 'o' ? &o->out : &o->night) = optarg;
		else if (c == 'f')
			o->fmt = optarg;
		else if (c == 'i' || c == 's')
			*(c == 'i' ? &o->install : &o->select) = optarg;
		else if (c == 'p') {
			if (policy_load(optarg, &o->pol))
				return -2;
		} else if (c == '?' && !strncmp(text, "--", 2) && text[2] && !strchr(text, '=') && optind < argc) {
			/* --knob VALUE: the knob's value is the next word */
			char *kv = xasprintf("%s=%s", text, argv[optind++]);
			int rc = policy_option(kv, o);
			free(kv);
			if (rc)
				return -1;
		} else if (policy_option(text, o))
			return -1;
	}
	if (!cliopt_dashes() && optind < argc && !strcmp(argv[optind], "-"))
		return -1;
	/* the flags and files together, held to the file's own rules */
	if (policy_check(&o->pol, progname))
		return -2;
	return optind;
}

/* Every judged night of a configuration, for the node scores. */
static void
node_events(struct nodes *ns, const struct vconfig *c)
{
	for (long k = 0; k <= c->judged; k++) {
		const struct vnight *v = &c->nights[k];
		if (v->valid && v->rep)
			nodes_add(ns, v->day, v->rep->nodes, v->vb == VB_SLOWER);
	}
}

static json_t *
judge_all(struct history *hs, size_t n, int day, const struct opts *o, int with_nights)
{
	json_t *m = json_object(), *cs = json_array(), *sum = json_object();
	char night[11] = "-";
	if (day >= 0)
		history_night(day, night);
	/* Each configuration is judged, put into JSON and let go before the
	 * next: its nights' memory serves the next one (100,000 nights held
	 * at once cost more in page faults than the judging). A slow judged
	 * night keeps its day and nodes for the suspect nodes, which need
	 * every configuration's runs. */
	struct nodes *ns = nodes_new();
	struct slow {
		json_t *cj;
		int day;
		const char *nodes;
	} *sl = xcalloc(n ? n : 1, sizeof *sl);
	size_t nv = 0;
	for (size_t i = 0; i < n; i++) {
		if (!selected(&hs[i], o->select))
			continue;
		struct vconfig vc;
		verdict_judge(&hs[i], day, &o->pol, &vc);
		node_events(ns, &vc);
		const struct vnight *v = vc.judged >= 0 ? &vc.nights[vc.judged] : NULL;
		sl[nv].cj = config_json(&vc, with_nights, o->install);
		sl[nv].day = -1;
		if (v && v->valid && v->vb == VB_SLOWER && v->rep)
			sl[nv].day = v->day, sl[nv].nodes = v->rep->nodes;
		nv++;
		verdict_free(&vc);
	}
	for (size_t i = 0; i < nv; i++) {
		json_t *cj = sl[i].cj, *sus = sl[i].day >= 0 ? nodes_suspects(ns, sl[i].day, sl[i].nodes) : NULL;
		if (sus)
			json_object_set_new(cj, "suspect_nodes", sus);
		const char *st = json_string_value(json_object_get(cj, "state"));
		json_object_set_new(sum, st, json_integer(json_integer_value(json_object_get(sum, st)) + 1));
		json_array_append_new(cs, cj);
	}
	free(sl);
	json_object_set_new(m, "schema", json_integer(JUDGE_SCHEMA));
	json_object_set_new(m, "night", json_string(night));
	json_object_set_new(m, "policy", policy_json(&o->pol));
	json_object_set_new(m, "exit", json_integer(exit_of(sum)));
	json_object_set_new(m, "summary", sum);
	json_object_set_new(m, "configurations", cs);
	json_t *scores = day >= 0 ? nodes_scores(ns, day) : NULL;
	if (scores)
		json_object_set_new(m, "node_scores", scores);
	nodes_free(ns);
	return m;
}

static int
latest_day(const struct history *hs, size_t n, const char *select)
{
	int day = -1;
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; selected(&hs[i], select) && r < hs[i].nruns; r++)
			if (hs[i].runs[r].day > day)
				day = hs[i].runs[r].day;
	return day;
}

/* The history files read (every error first, said), judged at o->night
 * (else the latest night of the selection) into one model; NULL on bad
 * input. with_nights: the per-night detail, which the text does not use. */
static json_t *
judge_files(char **files, size_t n, const struct opts *o, int with_nights)
{
	int before = diag_errors;
	struct history *hs = xcalloc(n ? n : 1, sizeof *hs);
	for (size_t k = 0; k < n; k++)
		history_load(files[k], &hs[k]);
	if (diag_errors == before && select_known(hs, n, o->select))
		diag_errors++;
	int day = o->night ? history_day(o->night) : latest_day(hs, n, o->select);
	json_t *m = NULL;
	if (o->night && day < 0)
		judge_say("night '%s' is not a date (YYYY-MM-DD)", o->night);
	else if (diag_errors == before)
		m = judge_all(hs, n, day, o, with_nights);
	for (size_t k = 0; k < n; k++)
		history_free(&hs[k]);
	free(hs);
	return m;
}

static void
render(struct sb *s, const json_t *m, enum judge_format f)
{
	if (f == JUDGE_JSON) {
		char *j = json_dumps(m, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(6));
		sb_add(s, j);
		sb_add(s, "\n");
		free(j);
	} else if (f == JUDGE_HTML)
		trend_html(s, m);
	else
		render_text(s, m);
}

int
judge_night(const char *install, const char *night, const char *select, const char *policy,
	    struct sb out[JUDGE_NFORMATS], struct sb *err)
{
	struct opts o = {.install = install, .night = night, .select = select};
	struct sb *held = diag_hold;
	diag_hold = err;
	policy_defaults(&o.pol);
	size_t n = 0;
	char **files = NULL;
	json_t *m = NULL;
	if (policy && policy_load(policy, &o.pol))
		;
	else if (!(files = install_files(install, &n)))
		judge_say("no history in %s/" LAYOUT_HISTORY, install);
	else
		m = judge_files(files, n, &o, 1);
	diag_hold = held;
	for (size_t k = 0; k < n; k++)
		free(files[k]);
	free(files);
	if (!m)
		return 2;
	for (int f = 0; f < JUDGE_NFORMATS; f++)
		render(&out[f], m, (enum judge_format)f);
	int rc = (int)json_integer_value(json_object_get(m, "exit"));
	json_decref(m);
	return rc;
}

static int
emit(const json_t *m, const struct opts *o)
{
	struct sb s = {0};
	render(&s, m, !strcmp(o->fmt, "json") ? JUDGE_JSON : !strcmp(o->fmt, "html") ? JUDGE_HTML : JUDGE_TEXT);
	int rc = 0;
	if (o->out && strcmp(o->out, "-")) {
		if (out_path_ok(progname, o->out) < 0)
			rc = 2;
		else if (write_file_atomic(o->out, s.buf, s.len)) {
			fprintf(stderr, "%s: cannot write %s\n", progname, o->out);
			rc = 2;
		}
	} else
		fwrite(s.buf, 1, s.len, stdout);
	sb_free(&s);
	return rc;
}

int
cmd_judge(int argc, char **argv)
{
	struct opts o = {.fmt = "text"};
	int i = parse_args(argc, argv, &o);
	if (i == -3) {
		usage(stdout);
		return 0;
	}
	if (i == -2)
		return 2;
	if (i < 0 || (strcmp(o.fmt, "text") && strcmp(o.fmt, "json") && strcmp(o.fmt, "html")) ||
	    (!o.install) == (i >= argc)) {
		usage(stderr);
		return 2;
	}
	size_t n = 0;
	char **files = o.install ? install_files(o.install, &n) : NULL;
	if (o.install && !n) {
		judge_say("no history in %s/" LAYOUT_HISTORY, o.install);
		return 2;
	}
	/* Options end at the first history file: an option after one would
	 * be read as a file that is not there. Say so (a file whose name
	 * starts with '-' is judged after "--"). */
	for (int k = i; !o.install && !cliopt_dashes() && k < argc; k++)
		if (argv[k][0] == '-' && argv[k][1] && access(argv[k], F_OK)) {
			judge_say("option '%s' after the history files: options come first", argv[k]);
			free(files);
			return 2;
		}
	if (!o.install)
		for (; i < argc; i++)
			files = xrealloc(files, (n + 1) * sizeof *files), files[n++] = xstrdup(argv[i]);
	json_t *m = judge_files(files, n, &o, strcmp(o.fmt, "text") != 0);
	int rc = 2;
	if (m) {
		rc = emit(m, &o);
		rc = rc ? rc : (int)json_integer_value(json_object_get(m, "exit"));
		json_decref(m);
	}
	for (size_t k = 0; k < n; k++)
		free(files[k]);
	free(files);
	return rc;
}
