/* slurmcmd: the Slurm command lines llmb builds, apart from running them:
 * ADDITIONAL_SLURM_PARAMS checked and split into sbatch options, a job's
 * sbatch argv, its shell form, and what a job id may look like. Its own
 * module because the planner (selection.c, confirm.c) checks the
 * parameters without reaching the executor that submits and polls. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "recipe/slurmcmd.h"

/* ---- argv arrays ----------------------------------------------------------- */

struct strv {
	char **v;
	size_t n, cap;
};

static void
strv_push(struct strv *a, char *owned)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 16;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = owned;
	a->v[a->n] = NULL;
}

static void
strv_add(struct strv *a, const char *s)
{
	strv_push(a, xstrdup(s));
}

void
slurm_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}

static char **
strv_finish(struct strv *a)
{
	if (!a->v)
		strv_push(a, NULL); /* an empty, NULL-terminated array */
	return a->v;
}

void
slurm_argv_shell(struct sb *out, char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			sb_addc(out, ' ');
		if (argv[i][0] && !argv[i][strspn(argv[i],
		    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=:,./@%")])
			sb_add(out, argv[i]);
		else
			sb_add_shquote(out, argv[i]);
	}
}

/* ---- ADDITIONAL_SLURM_PARAMS ------------------------------------------------- */

/* sbatch options ADDITIONAL_SLURM_PARAMS may not give, each with the reason
 * said: what llmb sets from the recipe, what would change how sbatch
 * answers llmb, and what would break its one job per stage (a job llmb
 * submits, finds by name, waits for and cancels). sbatch accepts
 * unambiguous abbreviations of long options, so a key that is a prefix of
 * one of these is refused as well. */
#define SET_BY_LLMB "is set by llmb itself (from the recipe and the environment); remove it"
#define ANSWER "would change how sbatch answers llmb; remove it"
static const struct {
	const char *name, *why;
} reserved_opts[] = {
	{"parsable", SET_BY_LLMB}, {"job-name", SET_BY_LLMB}, {"output", SET_BY_LLMB}, {"error", SET_BY_LLMB},
	{"chdir", SET_BY_LLMB}, {"nodes", SET_BY_LLMB}, {"ntasks-per-node", SET_BY_LLMB},
	{"gpus-per-node", SET_BY_LLMB}, {"exclusive", SET_BY_LLMB}, {"time", SET_BY_LLMB},
	{"dependency", SET_BY_LLMB}, {"account", SET_BY_LLMB}, {"partition", SET_BY_LLMB}, {"export", SET_BY_LLMB},
	{"wrap", ANSWER}, {"wait", ANSWER}, {"test-only", ANSWER}, {"help", ANSWER}, {"usage", ANSWER},
	{"version", ANSWER},
	{"quiet", "would hide the job id sbatch answers llmb with; remove it"},
	{"array", "would make one stage many jobs (one per index), where llmb submits, waits for and cancels one; "
		  "give each run its own stage (SCALES, the recipe's configs)"},
	{"clusters", "would submit to another cluster, where llmb's squeue, sacct and scancel do not look; "
		     "run llmb on that cluster"},
	{"hold", "would hold the job until someone releases it, with make waiting on it; remove it"},
};
/* Real sbatch options that happen to be prefixes of reserved ones. */
static const char *const exact_opts[] = {"gpus", "ntasks"};

/* Index in reserved_opts of the option key names or abbreviates, or -1. */
static int
reserved_match(const char *key)
{
	size_t n = strlen(key);
	for (size_t i = 0; i < sizeof exact_opts / sizeof *exact_opts; i++)
		if (!strcmp(key, exact_opts[i]))
			return -1;
	for (size_t i = 0; i < sizeof reserved_opts / sizeof *reserved_opts; i++)
		if (!strncmp(reserved_opts[i].name, key, n))
			return (int)i;
	return -1;
}

/* One "k=v" or "flag" part (len bytes at p, already trimmed). */
static int
param_add(struct strv *a, const char *p, size_t len, struct sb *err)
{
	char *part = xstrndup(p, len);
	char *eq = strchr(part, '=');
	const char *val = NULL;
	int ret = -1;
	if (eq) {
		*eq = 0;
		val = eq + 1;
	}
	const char *key = part;
	int r;
	if (key[0] == '-') {
		sb_addf(err, "ADDITIONAL_SLURM_PARAMS: write '%s' without the leading dashes", key);
	} else if (!(key[0] >= 'a' && key[0] <= 'z') || key[strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-")]) {
		sb_add(err, "ADDITIONAL_SLURM_PARAMS: invalid option name ");
		sb_add_shquote(err, key);
		sb_add(err, " (want lowercase letters, digits and '-', like 'mem=0' or 'exclusive')");
	} else if ((r = reserved_match(key)) >= 0) {
		if (strcmp(reserved_opts[r].name, key))
			sb_addf(err, "ADDITIONAL_SLURM_PARAMS: '%s' abbreviates sbatch's '--%s', which llmb controls",
			    key, reserved_opts[r].name);
		else
			sb_addf(err, "ADDITIONAL_SLURM_PARAMS: '%s' %s", key, reserved_opts[r].why);
	} else if (val && !*val) {
		sb_addf(err, "ADDITIONAL_SLURM_PARAMS: empty value for '%s'", key);
	} else if (val && has_control(val)) {
		sb_addf(err, "ADDITIONAL_SLURM_PARAMS: value of '%s' contains a control character", key);
	} else {
		strv_push(a, val ? xasprintf("--%s=%s", key, val) : xasprintf("--%s", key));
		ret = 0;
	}
	free(part);
	return ret;
}

int
slurm_params_each(const char *s, int (*fn)(const char *p, size_t len, void *arg), void *arg)
{
	const char *ws = " \t\r\n";
	const char *sep = s && strchr(s, ';') ? ";" : ws;
	while (s && *s) {
		size_t len = strcspn(s, sep);
		const char *p = s, *end = s + len;
		while (p < end && strchr(ws, *p))
			p++;
		while (end > p && strchr(ws, end[-1]))
			end--;
		int r = end > p ? fn(p, (size_t)(end - p), arg) : 0;
		if (r < 0)
			return r;
		s += len;
		if (*s)
			s++;
	}
	return 0;
}

struct params_sets {
	const char *opt;
	size_t min;
};

static int
params_sets_part(const char *p, size_t len, void *arg)
{
	const struct params_sets *ps = arg;
	size_t kl = strcspn(p, "=");
	if (kl > len)
		kl = len;
	return kl >= ps->min && kl <= strlen(ps->opt) && !strncmp(p, ps->opt, kl) ? -1 : 0;
}

int
slurm_params_sets(const char *s, const char *opt, size_t min)
{
	struct params_sets ps = {opt, min};
	return slurm_params_each(s, params_sets_part, &ps) < 0;
}

struct params_parse {
	struct strv a;
	struct sb *err;
};

static int
params_parse_part(const char *p, size_t len, void *arg)
{
	struct params_parse *pp = arg;
	return param_add(&pp->a, p, len, pp->err);
}

int
slurm_params_parse(const char *s, char ***argv, struct sb *err)
{
	struct params_parse pp = {{0}, err};
	*argv = NULL;
	if (slurm_params_each(s, params_parse_part, &pp) < 0) {
		slurm_argv_free(pp.a.v);
		return -1;
	}
	*argv = strv_finish(&pp.a);
	return (int)pp.a.n;
}

/* ---- sbatch command line ------------------------------------------------------ */

static int
valid_env_name(const char *s)
{
	if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return 0;
	return !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")];
}

static int
check_str(const char *what, const char *v, int required, struct sb *err)
{
	if (!v) {
		if (required)
			sb_addf(err, "slurm: job has no %s", what);
		return required ? -1 : 0;
	}
	if (!*v || has_control(v)) {
		sb_addf(err, "slurm: %s is empty or contains a control character", what);
		return -1;
	}
	return 0;
}

static int
jobspec_check(const struct jobspec *js, struct sb *err)
{
	if (check_str("job name", js->job_name, 1, err) || check_str("script", js->script, 1, err) ||
	    check_str("log path", js->log, 1, err) || check_str("workdir", js->workdir, 1, err) ||
	    check_str("time limit", js->time_limit, 0, err) || check_str("dependency", js->dependency, 0, err))
		return -1;
	/* sbatch expands %j, %x, ... in -o/-e. %j (the job id) is part of the
	 * executor contract; any other % would be expanded by surprise. */
	for (const char *p = strchr(js->log, '%'); p; p = strchr(p + 2, '%')) {
		if (p[1] != 'j') {
			sb_addf(err, "slurm: log path '%s' contains '%%%c', which sbatch would expand", js->log, p[1]);
			return -1;
		}
	}
	if (js->nodes < 1 || js->ntasks_per_node < 1 || js->gpus_per_node < 0) {
		sb_addf(err, "slurm: invalid shape: %d node(s), %d task(s) per node, %d GPU(s) per node",
		    js->nodes, js->ntasks_per_node, js->gpus_per_node);
		return -1;
	}
	for (const char *const *e = js->env_pass; e && *e; e++)
		if (!valid_env_name(*e)) {
			sb_add(err, "slurm: invalid environment variable name ");
			sb_add_shquote(err, *e);
			return -1;
		}
	return 0;
}

char **
slurm_sbatch_argv(const struct jobspec *js, const char *account, const char *partition, struct sb *err)
{
	struct strv a = {0};
	char **extra = NULL;
	const char *acct = account && *account ? account : NULL, *part = partition && *partition ? partition : NULL;
	if (jobspec_check(js, err) < 0 || slurm_params_parse(js->extra, &extra, err) < 0)
		return NULL;
	if ((acct && has_control(acct)) || (part && has_control(part))) {
		sb_add(err, "slurm: SBATCH_ACCOUNT or the partition contains a control character");
		slurm_argv_free(extra);
		return NULL;
	}
	strv_add(&a, "sbatch");
	strv_add(&a, "--parsable");
	strv_add(&a, "-J");
	strv_add(&a, js->job_name);
	strv_add(&a, "-o");
	strv_add(&a, js->log);
	strv_add(&a, "-e");
	strv_add(&a, js->log);
	strv_add(&a, "--chdir");
	strv_add(&a, js->workdir);
	strv_add(&a, "-N");
	strv_push(&a, xasprintf("%d", js->nodes));
	strv_add(&a, "--ntasks-per-node");
	strv_push(&a, xasprintf("%d", js->ntasks_per_node));
	if (js->gpus_per_node > 0) {
		strv_add(&a, "--gpus-per-node");
		strv_push(&a, xasprintf("%d", js->gpus_per_node));
	}
	if (js->exclusive)
		strv_add(&a, "--exclusive");
	if (js->time_limit) {
		strv_add(&a, "--time");
		strv_add(&a, js->time_limit);
	}
	if (js->dependency) {
		strv_add(&a, "--dependency");
		strv_add(&a, js->dependency);
	}
	if (acct) {
		strv_add(&a, "-A");
		strv_add(&a, acct);
	}
	if (part) {
		strv_add(&a, "-p");
		strv_add(&a, part);
	}
	/* Secrets (env_pass) reach the job by inheritance only: never a value here. */
	strv_add(&a, "--export=ALL");
	for (char **p = extra; *p; p++)
		strv_push(&a, *p);
	free(extra);
	strv_add(&a, js->script);
	return a.v;
}

/* ---- job ids ------------------------------------------------------------------ */

int
slurm_job_id_valid(const char *id)
{
	size_t n = strspn(id, "0123456789");
	if (!n || n >= 32)
		return 0;
	if (id[n] == '_')
		return strspn(id + n + 1, "0123456789") > 0 && !id[n + 1 + strspn(id + n + 1, "0123456789")];
	return !id[n];
}

/* ---- excluding nodes ----------------------------------------------------------- */

static const char node_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-[],";

/* The parts kept (out, ';'-terminated) and the excluded nodes (exclude,
 * ','-terminated) of the parameters. */
struct merge {
	struct sb out, exclude;
};

/* One part, by its key (the text before '=', or all of it for a flag):
 * exclude's nodes are merged, nodelist is dropped with or without a
 * value, the rest is kept as it is. */
static int
merge_part(const char *p, size_t len, void *arg)
{
	struct merge *m = arg;
	const char *eq = memchr(p, '=', len);
	size_t kl = eq ? (size_t)(eq - p) : len;
	if (kl == 7 && !strncmp(p, "exclude", 7)) {
		if (eq) {
			sb_addn(&m->exclude, eq + 1, len - 8);
			sb_addc(&m->exclude, ',');
		}
	} else if (!(kl == 8 && !strncmp(p, "nodelist", 8))) {
		sb_addn(&m->out, p, len);
		sb_addc(&m->out, ';');
	}
	return 0;
}

char *
slurm_params_exclude(const char *orig, const char *nodes, struct sb *err)
{
	/* the characters of a hostlist; its syntax is the caller's to check
	 * (nodes_expand), sbatch's in the end */
	if (!nodes || !*nodes || nodes[strspn(nodes, node_chars)]) {
		sb_addf(err, "the node list '%s' is not a Slurm hostlist", nodes ? nodes : "");
		return NULL;
	}
	char **argv = NULL;
	if (orig && strchr(orig, '$')) {
		sb_add(err, "ADDITIONAL_SLURM_PARAMS holds a '$'");
		return NULL;
	}
	if (orig && slurm_params_parse(orig, &argv, err) < 0)
		return NULL;
	slurm_argv_free(argv);
	struct merge m = {{0}, {0}};
	slurm_params_each(orig, merge_part, &m);
	sb_addf(&m.out, "exclude=%s%s", m.exclude.buf ? m.exclude.buf : "", nodes);
	sb_free(&m.exclude);
	if (slurm_params_parse(m.out.buf, &argv, err) < 0) {
		sb_free(&m.out);
		return NULL;
	}
	slurm_argv_free(argv);
	return sb_steal(&m.out);
}
