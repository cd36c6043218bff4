#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/secrets.h"
#include "base/util.h"
#include "plan/override.h"

/* The knobs in the order a tag and a plan line name them. param: the
 * config row's parameter it replaces; flag: Megatron-Bridge
 * scripts/performance/argument_parser.py at the pinned commit 06f25c2
 * (-tp -pp -cp -vp -ep -et -mb -gb, --compute_dtype, --config_variant,
 * --cuda_graph_scope; argparse keeps the last of a flag given twice). */
static const struct {
	enum knob k;
	const char *param, *flag, *abbr;
} ovk[] = {
	{K_TP, "tp", "-tp", "tp"}, {K_PP, "pp", "-pp", "pp"}, {K_CP, "cp", "-cp", "cp"},
	{K_VP, "vp", "-vp", "vp"}, {K_EP, "ep", "-ep", "ep"}, {K_ETP, "etp", "-et", "etp"},
	{K_MBS, "mbs", "-mb", "mbs"}, {K_GBS, "gbs", "-gb", "gbs"},
	{K_FP8_RECIPE, NULL, "--compute_dtype", "fp8"}, {K_CONFIG_VARIANT, NULL, "--config_variant", "cv"},
	{K_CUDA_GRAPH_SCOPE, NULL, "--cuda_graph_scope", "cgs"}, {K_ENV, NULL, NULL, "env"},
};
#define NOVK (sizeof ovk / sizeof *ovk)

/* argument_parser.py: --compute_dtype's fp8 choices (fp8_cs, fp8_mx,
 * fp8_sc) and VALID_CUDA_GRAPH_SCOPES, a comma-separated list of them. */
static const char *const fp8_recipes[] = {"cs", "mx", "sc", NULL};
static const char *const cg_scopes[] = {"full_iteration", "attn", "mlp", "moe", "moe_router", "moe_preprocess",
					"mamba", NULL};

int
ovr_set(const struct sel *s)
{
	for (size_t i = 0; i < NOVK; i++)
		if (s->v[ovk[i].k])
			return 1;
	return 0;
}

static int
in_list(const char *const *l, const char *w, size_t n)
{
	for (; *l; l++)
		if (strlen(*l) == n && !strncmp(*l, w, n))
			return 1;
	return 0;
}

static int
whole(const char *w, size_t n)
{
	return n && n <= 6 && strspn(w, "0123456789") >= n && w[0] != '0';
}

/* One value of knob k (n bytes at w); NULL when good, else what it must be. */
static const char *
value_bad(enum knob k, const char *w, size_t n)
{
	switch (k) {
	case K_FP8_RECIPE:
		return in_list(fp8_recipes, w, n) ? NULL : "cs, mx or sc (Megatron-Bridge's --compute_dtype fp8_cs, fp8_mx, fp8_sc)";
	case K_CONFIG_VARIANT:
		return n >= 2 && n <= 8 && w[0] == 'v' && strspn(w + 1, "0123456789") >= n - 1 ? NULL
			: "a config variant, v and a number (v1, v2)";
	case K_CUDA_GRAPH_SCOPE:
		for (const char *p = w, *end = w + n; p < end;) {
			const char *c = memchr(p, ',', (size_t)(end - p));
			size_t m = c ? (size_t)(c - p) : (size_t)(end - p);
			if (!in_list(cg_scopes, p, m))
				return "scopes of full_iteration, attn, mlp, moe, moe_router, moe_preprocess, mamba, separated by commas";
			p += m + (c != NULL);
			if (c && p == end)
				return "scopes separated by commas";
		}
		return NULL;
	default:
		return whole(w, n) ? NULL : "a whole number from 1";
	}
}

/* Names ENV never passes: a secret goes by name through a recipe's
 * secrets:, never as a value on the command line. */
static int
secret_name(const char *name, size_t n, const struct recipes *rec)
{
	char *nm = xstrndup(name, n);
	int bad = secrets_name(nm);
	/* every name a recipe passes as a secret */
	for (size_t i = 0; rec && !bad && i < rec->nworkloads; i++) {
		const struct ynode *wl = rec->workloads[i]->root, *tasks = ymap_get(wl, "tasks");
		bad = ynames_have(ymap_get(wl, "secrets"), nm) || ynames_have(ymap_get(ymap_get(wl, "train"), "secrets"), nm);
		for (size_t t = 0; tasks && !bad && t < tasks->nkids; t++)
			bad = ynames_have(ymap_get(tasks->kids[t], "secrets"), nm);
	}
	free(nm);
	return bad;
}

/* ENV="NAME=VALUE ...": names as the shell spells them, values free of
 * control characters and of {placeholders}, no secret. */
static int
env_check(const char *v, const struct recipes *rec)
{
	int errs = 0;
	for (const char *q = v; *q;) {
		q += strspn(q, " \t");
		size_t n = strcspn(q, " \t");
		if (!n)
			break;
		const char *eq = memchr(q, '=', n);
		size_t nl = eq ? (size_t)(eq - q) : n;
		int name_ok = eq && nl && !(q[0] >= '0' && q[0] <= '9') &&
			      strspn(q, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == nl;
		int val_ok = 1;
		for (size_t i = nl; i < n; i++)
			val_ok &= (unsigned char)q[i] >= 0x20 && q[i] != 0x7f && q[i] != '{' && q[i] != '}';
		if (!name_ok) {
			fprintf(stderr, "llmb: error: ENV: '%.*s' is not NAME=VALUE with a NAME of A-Z, 0-9 and _ (not starting with a digit)\n",
				(int)n, q);
			errs++;
		} else if (!val_ok) {
			fprintf(stderr, "llmb: error: ENV: the value of %.*s holds a control character or a brace\n", (int)nl, q);
			errs++;
		} else if (secret_name(q, nl, rec)) {
			fprintf(stderr, "llmb: error: ENV: %.*s is a secret's name: secrets reach a job by name (a recipe's secrets:), never as a value in ENV\n",
				(int)nl, q);
			errs++;
		}
		q += n;
	}
	return errs;
}

int
ovr_check(const struct sel *s, const struct recipes *rec)
{
	int errs = 0;
	for (size_t i = 0; i < NOVK; i++) {
		const char *v = s->v[ovk[i].k], *name = knob_names[ovk[i].k];
		if (!v)
			continue;
		if (!v[strspn(v, " \t")]) { /* set, naming nothing: not a configuration */
			fprintf(stderr, "llmb: error: %s='%s' gives no value: give one or more, or leave %s unset\n", name, v, name);
			errs++;
			continue;
		}
		if (ovk[i].k == K_ENV) {
			errs += env_check(v, rec);
			continue;
		}
		for (const char *q = v; *q;) {
			q += strspn(q, " \t");
			size_t n = strcspn(q, " \t");
			const char *why = n ? value_bad(ovk[i].k, q, n) : NULL;
			if (why) {
				fprintf(stderr, "llmb: error: %s=%s: '%.*s' is not %s\n", name, v, (int)n, q, why);
				errs++;
			}
			q += n;
		}
	}
	if (ovr_set(s) && (s->night || s->exemplar)) {
		fprintf(stderr, "llmb: error: the overrides (TP PP CP VP EP ETP MBS GBS FP8_RECIPE CONFIG_VARIANT CUDA_GRAPH_SCOPE ENV) are not for %s: its runs are the recipe's, compared with their baselines\n",
			s->night ? "make nightly" : "make exemplar");
		errs++;
	}
	diag_errors += errs;
	return errs;
}

static void
tag_add(struct sb *tag, const char *abbr, const char *v)
{
	if (tag->len)
		sb_addc(tag, '-');
	sb_add(tag, abbr);
	for (; *v; v++)
		sb_addc(tag, *v == ',' ? '+' : *v);
}

static struct ovr
combo(const struct sel *s, char **words, const size_t *pick)
{
	struct ovr o = {.s = *s};
	struct sb vals = {0}, tag = {0}, show = {0};
	size_t off[NOVK];
	for (size_t i = 0; i < NOVK; i++) {
		off[i] = (size_t)-1;
		if (!words[i])
			continue;
		const char *w = words[i];
		for (size_t j = 0; j < pick[i]; j++)
			w += strlen(w) + 1;
		off[i] = vals.len;
		sb_add(&vals, w);
		sb_addc(&vals, 0);
		if (show.len)
			sb_addc(&show, ' ');
		sb_addf(&show, "%s=%s", knob_names[ovk[i].k], w);
		if (ovk[i].k == K_ENV) {
			char h[65];
			sha256_hex(w, strlen(w), h);
			h[8] = 0;
			tag_add(&tag, "env", h);
		} else {
			tag_add(&tag, ovk[i].abbr, w);
		}
	}
	o.vals = sb_steal(&vals);
	for (size_t i = 0; i < NOVK; i++)
		if (off[i] != (size_t)-1)
			o.s.v[ovk[i].k] = o.vals + off[i];
	o.tag = sb_steal(&tag);
	o.show = sb_steal(&show);
	return o;
}

size_t
ovr_expand(const struct sel *s, struct ovr **out)
{
	/* each knob's values as NUL-separated words; ENV is one value */
	char *words[NOVK] = {0};
	size_t nw[NOVK], total = 1;
	*out = NULL;
	if (!ovr_set(s))
		return 0;
	for (size_t i = 0; i < NOVK; i++) {
		const char *v = s->v[ovk[i].k];
		nw[i] = 1;
		if (!v)
			continue;
		struct sb b = {0};
		if (ovk[i].k == K_ENV) {
			sb_add(&b, v + strspn(v, " \t"));
			while (b.len && (b.buf[b.len - 1] == ' ' || b.buf[b.len - 1] == '\t'))
				b.buf[--b.len] = 0;
			sb_addc(&b, 0);
		} else {
			nw[i] = 0;
			for (const char *q = v; *q;) {
				q += strspn(q, " \t");
				size_t n = strcspn(q, " \t");
				if (n) {
					sb_addf(&b, "%.*s", (int)n, q);
					sb_addc(&b, 0);
					nw[i]++;
				}
				q += n;
			}
		}
		words[i] = sb_steal(&b);
		if (!nw[i]) { /* only blanks: not set */
			free(words[i]);
			words[i] = NULL;
			nw[i] = 1;
		}
		total *= nw[i];
	}
	*out = xcalloc(total, sizeof **out);
	size_t pick[NOVK] = {0};
	for (size_t c = 0; c < total; c++) {
		(*out)[c] = combo(s, words, pick);
		/* the last knob varies fastest */
		for (size_t i = NOVK; i-- > 0;) {
			if (++pick[i] < nw[i])
				break;
			pick[i] = 0;
		}
	}
	for (size_t i = 0; i < NOVK; i++)
		free(words[i]);
	return total;
}

void
ovr_free(struct ovr *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].tag);
		free(v[i].show);
		free(v[i].vals);
	}
	free(v);
}

static void
pset(struct params *p, const char *name, double v)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->names[i], name)) {
			p->vals[i] = v;
			return;
		}
	p->names = xrealloc(p->names, (p->n + 1) * sizeof *p->names);
	p->vals = xrealloc(p->vals, (p->n + 1) * sizeof *p->vals);
	p->names[p->n] = name;
	p->vals[p->n++] = v;
}

static long
pget(const struct params *p, const char *name, long dflt)
{
	double v;
	return params_get(p, name, &v) == 0 && v >= 1 ? (long)v : dflt;
}

int
ovr_params(const struct ovr *o, struct params *prm, long scale, char *why, size_t n)
{
	for (size_t i = 0; i < NOVK; i++)
		if (ovk[i].param && o->s.v[ovk[i].k])
			pset(prm, ovk[i].param, strtod(o->s.v[ovk[i].k], NULL));
	long tp = pget(prm, "tp", 1), pp = pget(prm, "pp", 1), cp = pget(prm, "cp", 1), vp = pget(prm, "vp", 0);
	long ep = pget(prm, "ep", 1), etp = pget(prm, "etp", 1), mbs = pget(prm, "mbs", 1), gbs = pget(prm, "gbs", 0);
	if (scale % (tp * pp * cp)) {
		snprintf(why, n, "GPUs (%ld) must be divisible by TP*PP*CP (%ld = TP %ld x PP %ld x CP %ld)", scale,
			 tp * pp * cp, tp, pp, cp);
		return -1;
	}
	long dp = scale / (tp * pp * cp);
	if (scale % (etp * ep * pp)) {
		snprintf(why, n, "GPUs (%ld) must be divisible by ETP*EP*PP (%ld = ETP %ld x EP %ld x PP %ld)", scale,
			 etp * ep * pp, etp, ep, pp);
		return -1;
	}
	if (vp > 1 && pp < 2) {
		snprintf(why, n, "VP (%ld) needs PP above 1 (interleaved pipeline), PP is %ld", vp, pp);
		return -1;
	}
	if (gbs && gbs % (mbs * dp)) {
		snprintf(why, n, "GBS (%ld) must be divisible by MBS*DP (%ld = MBS %ld x DP %ld, DP = GPUs / (TP*PP*CP))",
			 gbs, mbs * dp, mbs, dp);
		return -1;
	}
	double v;
	if (params_get(prm, "dp", &v) == 0)
		pset(prm, "dp", (double)dp);
	if (gbs && params_get(prm, "ga", &v) == 0)
		pset(prm, "ga", (double)(gbs / (mbs * dp)));
	return 0;
}

void
ovr_args(const struct ovr *o, void (*add)(void *ctx, char *word), void *ctx)
{
	for (size_t i = 0; i < NOVK; i++) {
		const char *v = o->s.v[ovk[i].k];
		if (!v || !ovk[i].flag)
			continue;
		add(ctx, xstrdup(ovk[i].flag));
		add(ctx, ovk[i].k == K_FP8_RECIPE ? xasprintf("fp8_%s", v) : xstrdup(v));
	}
}

void
ovr_env(const struct ovr *o, void (*add)(void *ctx, char *kv), void *ctx)
{
	const char *v = o->s.v[K_ENV];
	for (const char *q = v ? v : ""; *q;) {
		q += strspn(q, " \t");
		size_t n = strcspn(q, " \t");
		if (n)
			add(ctx, xstrndup(q, n));
		q += n;
	}
}

/* Megatron-Bridge's PerfEnvPlugin (perf_plugins.py at the pin,
 * _set_num_cuda_device_max_connections): before SM100 (h100 among llmb's
 * GPU types), 1 with TP or CP above 1, else 8 (a row with an all-to-all
 * overlap or DeepEP keeps its own value: it does not follow the rule). */
const char *
ovr_max_connections(const char *gpu, const char *cur, double rtp, double rcp, double tp, double cp)
{
	if (strcmp(gpu, "h100") || !cur)
		return NULL;
	const char *rule = rtp > 1 || rcp > 1 ? "1" : "8";
	if (strcmp(cur, rule))
		return NULL;
	return tp > 1 || cp > 1 ? "1" : "8";
}
