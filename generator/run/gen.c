/* gen: writes the plan as make rules (GEN_DIR/rules.mk: each stage's
 * target is its stamp's link under the planned configuration hash) and one
 * effective configuration file per stage instance (GEN_DIR/cfg/<id>, what
 * llmb run reads), each written only when its bytes change. Also `llmb
 * check` (validate only) and `llmb explain` (why each stage is stale). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/diag.h"
#include "base/htab.h"
#include "base/makesafe.h"
#include "base/util.h"
#include "exec/dryrun.h"
#include "exec/feasible.h"
#include "exec/slurmlimits.h"
#include "plan/nightmatrix.h"
#include "plan/plan.h"
#include "plan/stale.h"
#include "run/selenv.h"
#include "store/instance.h"
#include "store/layout.h"
#include "store/outputs.h"
#include "store/stagecfg.h"
#include "store/stagekind.h"

struct opts {
	const char *top, *gen, *install;
	int install_named; /* by --install or LLMB_INSTALL, not the default */
	char **ids; /* the operands, for commands that take stage ids */
	int nids;
};

/* Every argument read before anything is done: options, then the stage
 * ids when the command takes them (with_ids), else no operand. Returns -1
 * to exit 0 (--help printed), 0 to go on, or 2 after saying what is wrong. */
static int
parse_opts(int argc, char **argv, struct opts *o, const char *usage, int with_ids)
{
	static const struct option lo[] = {
		{"top", required_argument, 0, 't'},
		{"gen", required_argument, 0, 'o'},
		{"install", required_argument, 0, 'i'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	o->top = ".";
	o->gen = "build/gen";
	const char *env = getenv(LAYOUT_INSTALL_VAR);
	o->install = layout_install_root(env);
	o->install_named = env && *env;
	o->ids = argv + argc;
	o->nids = 0;
	const char *text;
	cliopt_start();
	for (int c; (c = cliopt_next(argc, argv, "t:o:i:h", lo, &text)) != -1;) {
		switch (c) {
		case 't': o->top = optarg; break;
		case 'o': o->gen = optarg; break;
		case 'i': o->install = optarg; o->install_named = 1; break;
		case 'h': printf("%s", usage); return -1;
		default: return cliopt_refuse(text, "t:o:i:h", lo, usage);
		}
	}
	if (optind < argc && !with_ids) {
		fprintf(stderr, "%s: unexpected argument '%s'\n%s", progname, argv[optind], usage);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		/* a stage id never starts with '-': an option after the ids */
		if (argv[i][0] == '-' && !cliopt_dashes())
			return cliopt_refuse(argv[i], "t:o:i:h", lo, usage);
	}
	o->ids = argv + optind;
	o->nids = argc - optind;
	return 0;
}

/* A name or path about to become a make word. The recipes' own checks
 * refuse unsafe text with its position first; this is the last line, for
 * what no recipe position covers (the checkout's path, file names). */
static int
refuse_word(const char *what, const char *s)
{
	if (mk_word_ok(s))
		return 0;
	fprintf(stderr, "llmb gen: error: %s '%s' cannot be written into make rules: use only %s\n",
		what, s, mk_word_what);
	return 1;
}

/* Every word written below was checked by unsafe_words first. */
static int
unsafe_words(const struct plan *p)
{
	int bad = 0;
	for (size_t i = 0; i < p->rec.nfiles; i++)
		bad += refuse_word("recipe file", p->rec.files[i]);
	for (size_t i = 0; i < p->files.cap; i++)
		if (p->files.slot[i].key)
			bad += refuse_word("checkout file", p->files.slot[i].key);
	for (size_t i = 0; i < p->n; i++) {
		bad += refuse_word("stage", p->v[i].id);
		for (size_t k = 0; k < p->v[i].noutputs; k++)
			bad += refuse_word("output", p->v[i].outputs[k]);
	}
	return bad;
}

static int
is_json(const char *s)
{
	size_t n = strlen(s);
	return n > 5 && !strcmp(s + n - 5, ".json");
}

/* The trees' paths in make's words: LLMB_GEN is the GNUmakefile's. */
#define MK_VALID "$(LLMB_GEN)/" LAYOUT_VALID

/* Validity, which make cannot see in a file's time: JSON outputs are
 * validated by llmb validate whenever one changed, into valid.mk
 * (LLMB_INVALID: the files that do not validate), read before the stage
 * rules. */
static void
write_validity(const struct plan *p, struct sb *mk)
{
	sb_add(mk, "-include " MK_VALID "\n" MK_VALID ":");
	for (size_t i = 0; i < p->n; i++)
		for (size_t k = 0; k < p->v[i].noutputs; k++)
			if (is_json(p->v[i].outputs[k]))
				sb_addf(mk, " $(wildcard $(LLMB_INSTALL)/%s)", p->v[i].outputs[k]);
	sb_add(mk, "\n\t@$(LLMB) validate -- $@ $?\n\n");
}

/* Secrets are checked by name (their values stay in the environment,
 * looked at raw, never expanded). A run without one is refused when make
 * reads the rules, before any stage runs (the rules of this selection: not
 * those left by another, which make reads before it remakes them); a plan
 * (make -n) is shown with a line saying the secret must be exported first;
 * plan, status and cancel need none. */
static void
write_secret_checks(struct sb *mk, const char *const *names, size_t n)
{
	sb_add(mk, "LLMB_SECRETS :=");
	for (size_t j = 0; j < n; j++)
		sb_addf(mk, " %s", names[j]);
	sb_add(mk, "\nLLMB_SECRETS_UNSET := $(foreach s,$(LLMB_SECRETS),$(if $(value $(s)),,$(s)))\n"
		   "ifneq ($(LLMB_SECRETS_UNSET),)\n"
		   "ifneq ($(filter report setup train parse llmb-report llmb-setup llmb-train llmb-parse,$(MAKECMDGOALS)),)\n"
		   "ifeq ($(LLMB_DRYRUN)$(LLMB_RULES_STALE),)\n"
		   "$(error $(firstword $(LLMB_SECRETS_UNSET)) is not set: the selected workloads pass it to their jobs "
		   "by name. Export it (for Hugging Face a token with access to the gated models) and run again)\n"
		   "endif\nendif\nendif\n.PHONY: llmb-secrets\n");
	for (size_t j = 0; j < n; j++)
		sb_addf(mk, "llmb-secrets: llmb-secret-%s\n.PHONY: llmb-secret-%s\nllmb-secret-%s:\n"
			"\t@$(if $(value %s),:,: '%s is not set: export it before running (the selected workloads pass it "
			"to their jobs by name; make without -n refuses to start)')\n",
			names[j], names[j], names[j], names[j], names[j]);
}

/* " <the stage's target>": its stamp's link under the planned hash, so
 * that make sees a stamp of another configuration as none (instance.h). */
static void
add_target(struct sb *mk, const struct inst *in)
{
	char *t = layout_stamp_link("$(LLMB_INSTALL)", in->id, in->hash);
	sb_addf(mk, " %s", t);
	free(t);
}

static int
write_rules(struct plan *p, struct sb *mk, const char *vars)
{
	if (unsafe_words(p))
		return -1;
	sb_add(mk, "# generated by llmb gen from the recipes: do not edit\n");
	sb_add(mk, "LLMB_GENERATED_FOR := ");
	if (sb_add_make_value(mk, vars ? vars : "") < 0) {
		/* the knobs were checked (check_knobs): one of the others */
		static const char *const others[] = {"EXECUTOR", "LLMB_NIGHT", "LLMB_NIGHTLY", "LLMB_NIGHT_TAG", "LLMB_EXEMPLAR",
						     "LLMB_BISECT", "LLMB_BISECT_PIN", "LLMB_BISECT_IMAGE"};
		const char *name = "LLMB_GEN_VARS";
		for (size_t i = 0; i < sizeof others / sizeof *others; i++)
			if (getenv(others[i]) && has_control(getenv(others[i])))
				name = others[i];
		fprintf(stderr, "llmb gen: error: %s holds a control character (a newline, a tab?): "
			"a variable of the selection cannot carry one\n", name);
		return -1;
	}
	sb_add(mk, "\nLLMB_RECIPE_FILES :=");
	for (size_t i = 0; i < p->rec.nfiles; i++)
		sb_addf(mk, " %s", p->rec.files[i]);
	/* and the checkout files that commands name (their content is part of
	 * the stage configurations) */
	for (size_t i = 0; i < p->files.cap; i++)
		if (p->files.slot[i].key)
			sb_addf(mk, " %s", p->files.slot[i].key);
	sb_addf(mk, "\nLLMB_NSTAGES := %zu\n\n", p->n);
	for (const struct stagekind *k = stage_kinds; k->name; k++) {
		sb_addf(mk, "llmb-%s:", k->group);
		for (size_t i = 0; i < p->n; i++)
			if (!strcmp(p->v[i].kind, k->name))
				add_target(mk, &p->v[i]);
		sb_add(mk, "\n");
	}
	/* Secrets are checked by name before anything runs, also under make -n
	 * (make expands a recipe before printing it); their values stay in
	 * the environment. */
	const char **names = NULL;
	size_t nnames = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct pc_cmd *c = stagecfg_cmd(&p->v[i].conf);
		for (size_t k = 0; c && k < c->nsecrets; k++) {
			size_t j = 0;
			while (j < nnames && strcmp(names[j], c->secrets[k]))
				j++;
			if (j == nnames) {
				names = xrealloc(names, (nnames + 1) * sizeof *names);
				names[nnames++] = c->secrets[k];
			}
		}
	}
	int have_secrets = nnames > 0;
	if (have_secrets)
		write_secret_checks(mk, names, nnames);
	free(names);
	size_t njobs = 0;
	for (size_t i = 0; i < p->n; i++)
		njobs += stage_kind_run(p->v[i].kind) == SK_RUN_JOB;
	slurm_limits_plan_note(mk, njobs);
	sb_add(mk, "LLMB_REPORT_IDS :=");
	for (size_t i = 0; i < p->n; i++)
		if (stage_kind_run(p->v[i].kind) == SK_RUN_REPORT)
			sb_addf(mk, " %s", p->v[i].id);
	sb_add(mk, "\n\n");
	write_validity(p, mk);
	/* Each stage's rule mirrors the staleness predicate (stale.h): the
	 * stamp of its configuration, newer than its upstream stages' stamps,
	 * with every output there and valid. */
	for (size_t i = 0; i < p->n; i++) {
		struct inst *in = &p->v[i];
		struct sb t = {0};
		add_target(&t, in);
		if (have_secrets)
			sb_addf(mk, "%s: | llmb-secrets\n", t.buf + 1);
		sb_addf(mk, "%s:", t.buf + 1);
		sb_free(&t);
		for (size_t d = 0; d < in->ndeps; d++)
			add_target(mk, &p->v[in->deps[d]]);
		/* A deleted output, or one that does not validate, makes the
		 * stage stale even though its stamp exists. */
		if (in->noutputs) {
			sb_addf(mk, " $(if $(filter %zu,$(words $(filter-out $(LLMB_INVALID),$(wildcard", in->noutputs);
			for (size_t k = 0; k < in->noutputs; k++)
				sb_addf(mk, " $(LLMB_INSTALL)/%s", in->outputs[k]);
			sb_add(mk, ")))),,FORCE)");
		}
		sb_add(mk, "\n\t@: ");
		char *line = xasprintf("[%zu/%zu] %s: %s", i + 1, p->n, in->label, in->plan ? in->plan : "");
		sb_add_recipe_word(mk, line);
		free(line);
		sb_addf(mk, "\n\t@$(LLMB_RUN) %zu/%zu %s\n", i + 1, p->n, in->id);
	}
	return 0;
}

/* The manifest (cfg/.manifest, "id hash" per line) says which configuration
 * files are current, so an unchanged plan costs no file reads. Files about
 * to change leave the manifest first: a crash halfway never leaves a stale
 * file that the manifest vouches for. */
static int
write_manifest(const char *path, struct plan *p, const unsigned char *keep)
{
	struct sb m = {0};
	for (size_t i = 0; i < p->n; i++)
		if (!keep || keep[i])
			sb_addf(&m, "%s %s\n", p->v[i].id, p->v[i].hash);
	int rc = write_file_if_changed(path, m.buf ? m.buf : "", m.len);
	sb_free(&m);
	return rc < 0 ? -1 : 0;
}

/* Written in place: the manifest, not a rename, guards against a crash
 * halfway. An identical file is left alone so its mtime stays. */
static int
write_config(const char *path, const char *data, size_t len)
{
	size_t olen;
	char *old = read_file(path, &olen);
	int same = old && olen == len && !memcmp(old, data, len);
	free(old);
	if (same)
		return 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT && mkdir_p(path, 1) == 0)
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, data, len);
	int rc = close(fd);
	return w == (ssize_t)len && rc == 0 ? 1 : -1;
}

static int
write_configs(struct plan *p, const char *gen)
{
	char *mpath = layout_cfg(gen, ".manifest");
	char *old = read_file(mpath, NULL);
	struct pindex have = {0};
	for (char *l = old; l && *l;) {
		size_t n = strcspn(l, "\n");
		char *line = xstrndup(l, n);
		index_add(&have, line, 0);
		free(line);
		l += n + (l[n] == '\n');
	}
	unsigned char *same = xcalloc(p->n + 1, 1);
	int changed = 0, rc = 0;
	for (size_t i = 0; i < p->n; i++) {
		char *key = xasprintf("%s %s", p->v[i].id, p->v[i].hash);
		same[i] = index_get(&have, key) >= 0;
		changed += !same[i];
		free(key);
	}
	if (changed && write_manifest(mpath, p, same) < 0)
		rc = -1;
	for (size_t i = 0; i < p->n && rc == 0; i++) {
		if (same[i])
			continue;
		char *path = layout_cfg(gen, p->v[i].id);
		int w = write_config(path, p->v[i].cfg.buf, p->v[i].cfg.len);
		if (w < 0) {
			fprintf(stderr, "llmb gen: error: cannot write %s: %s\n", path, strerror(errno));
			rc = -1;
		}
		free(path);
	}
	if (rc == 0 && changed && write_manifest(mpath, p, NULL) < 0)
		rc = -1;
	if (rc < 0 && errno)
		fprintf(stderr, "llmb gen: error: cannot write %s: %s\n", mpath, strerror(errno));
	index_free(&have);
	free(same);
	free(old);
	free(mpath);
	return rc < 0 ? -1 : changed;
}

/* Rewrites OUT as "LLMB_INVALID := <files that do not validate>" from
 * the candidates (space-separated) and those OUT already lists; errors
 * name the command, who. */
static int
validity_write(const char *who, const char *out, struct sb *cand)
{
	char *old = read_file(out, NULL);
	struct sb bad = {0};
	struct pindex seen = {0};
	char *list = old ? strstr(old, ":= ") : NULL;
	if (list) {
		sb_addc(cand, ' ');
		sb_addn(cand, list + 3, strcspn(list + 3, "\n"));
	}
	for (char *w = strtok(cand->buf ? cand->buf : (char *)"", " "); w; w = strtok(NULL, " ")) {
		if (index_get(&seen, w) >= 0 || !mk_word_ok(w))
			continue;
		index_add(&seen, w, 0);
		if (file_exists(w) && !output_valid(w, w, NULL))
			sb_addf(&bad, " %s", w);
	}
	struct sb mk = {0};
	sb_addf(&mk, "# generated by llmb validate: outputs that do not validate\nLLMB_INVALID :=%s\n",
		bad.buf ? bad.buf : "");
	int rc = write_file_atomic(out, mk.buf, mk.len);
	if (rc < 0)
		fprintf(stderr, "%s: error: cannot write %s: %s\n", who, out, strerror(errno));
	sb_free(&mk);
	sb_free(&bad);
	index_free(&seen);
	free(old);
	return rc;
}

int
cmd_gen(int argc, char **argv)
{
	struct opts o;
	int prc = parse_opts(argc, argv, &o, "usage: llmb gen [--top DIR] [--gen DIR]\n"
			     "Reads the selection (WORKLOAD, SIZE, ...) from the environment.\n", 0);
	if (prc)
		return prc < 0 ? 0 : prc;
	struct sel s;
	if (sel_from_env(&s) < 0)
		return 2;
	struct plan p;
	/* What the executor cannot run is refused with the plan, not in a job. */
	if (plan_build(&p, o.top, &s, 0) || plan_feasible(&p, executor_default())) {
		plan_free(&p);
		return 2;
	}
	/* The tree named (--install, or make's LLMB_INSTALL) gets the links
	 * and valid.mk's look; with none named, gen writes rules only. */
	const char *install = o.install_named ? o.install : NULL;
	int rc = 0, written = write_configs(&p, o.gen);
	if (written < 0)
		rc = 2;
	/* A stamp of the plan's configuration without its link (written
	 * before links, or its link lost) gets it, so make finds that stage
	 * done as the predicate does; a plan (make -n) leaves the install tree
	 * as it is (README, "How staleness works"). */
	for (size_t i = 0; install && *install && !make_dry_run() && i < p.n; i++)
		stamp_link_level(install, p.v[i].id, p.v[i].hash);
	struct sb mk = {0};
	char *rules = layout_rules(o.gen);
	if (write_rules(&p, &mk, getenv("LLMB_GEN_VARS")) < 0) {
		rc = 2;
	} else if (write_file_if_changed(rules, mk.buf, mk.len) < 0) {
		fprintf(stderr, "llmb gen: error: cannot write %s: %s\n", rules, strerror(errno));
		rc = 2;
	} else {
		/* make compares the fragment's mtime with the recipes: an unchanged
		 * fragment must still look newer, or make would regenerate forever. */
		utimensat(AT_FDCWD, rules, NULL, 0);
	}
	/* New rules, new outputs to look at: valid.mk is written here, over
	 * every JSON output the plan has. make remakes it only for outputs
	 * newer than it, and would miss a broken one that kept an old date. */
	if (rc == 0 && install && *install) {
		struct sb cand = {0};
		for (size_t i = 0; i < p.n; i++)
			for (size_t k = 0; k < p.v[i].noutputs; k++)
				if (is_json(p.v[i].outputs[k]))
					sb_addf(&cand, " %s/%s", install, p.v[i].outputs[k]);
		char *valid = layout_valid(o.gen);
		if (validity_write("llmb gen", valid, &cand) < 0)
			rc = 2;
		free(valid);
		sb_free(&cand);
	}
	if (getenv("LLMB_GEN_VERBOSE"))
		fprintf(stderr, "llmb gen: %zu stages, %d configurations changed\n", p.n, written);
	free(rules);
	sb_free(&mk);
	plan_free(&p);
	return rc;
}

/* The checkout's exemplar suite, when it has one: planned for each of its
 * GPU types, so every entry is checked against the recipes. */
static int
check_exemplar(const char *top)
{
	char *ex = xasprintf("%s/pipelines/exemplar.yaml", top);
	const char *path = !strcmp(top, ".") ? ex + 2 : ex;
	int errs = 0;
	if (file_exists(ex)) {
		struct ydoc *d = yaml_load_file(path);
		const struct ynode *wls = d && !d->errors ? ymap_get(d->root, "workloads") : NULL;
		size_t ng = wls && wls->kind == Y_MAP ? ymap_len(wls) : 0;
		for (size_t i = 0; i < (ng ? ng : 1) && !errs; i++) {
			struct sel es;
			sel_all(&es);
			es.exemplar = path;
			es.v[K_GPU_TYPE] = ng ? ymap_key(wls, i)->str : NULL;
			struct plan q;
			errs += plan_build(&q, top, &es, 0);
			plan_free(&q);
		}
		if (d)
			ydoc_free(d);
	}
	free(ex);
	return errs;
}

int
cmd_check(int argc, char **argv)
{
	struct opts o;
	int prc = parse_opts(argc, argv, &o, "usage: llmb check [--top DIR]\n"
			     "Validates every recipe and expands every configuration; exit 2 on errors.\n", 0);
	if (prc)
		return prc < 0 ? 0 : prc;
	struct sel s;
	sel_all(&s);
	struct plan p;
	int errs = plan_build(&p, o.top, &s, 1);
	/* and the nightly matrix, when the checkout has one */
	char *nm = xasprintf("%s/pipelines/nightly.yaml", o.top);
	if (file_exists(nm)) {
		struct nmatrix m;
		errs += nmatrix_load(!strcmp(o.top, ".") ? nm + 2 : nm, &m);
		nmatrix_free(&m);
	}
	free(nm);
	errs += check_exemplar(o.top);
	if (!errs)
		printf("llmb check: %zu workloads, %zu pipelines, %zu stages: ok\n",
		       p.rec.nworkloads, p.rec.npipelines, p.n);
	plan_free(&p);
	return errs ? 2 : 0;
}

struct explain {
	struct plan *p;
	const int *stale;
};

static int
will_run(void *arg, const char *up)
{
	const struct explain *e = arg;
	const struct inst *u = plan_find(e->p, up);
	return u && e->stale[u - e->p->v];
}

/* Why make would run a stage, in words: the staleness predicate (stale.h),
 * which the rules gen writes mirror. Stale upstream stages make their
 * dependents stale too. */
int
cmd_explain(int argc, char **argv)
{
	struct opts o;
	int prc = parse_opts(argc, argv, &o, "usage: llmb explain [--top DIR] [--gen DIR] [--install DIR] [STAGE-ID...]\n"
			     "Why each stale stage of the selection in the environment (or each stage named) would run.\n", 1);
	if (prc)
		return prc < 0 ? 0 : prc;
	struct sel s;
	if (sel_from_env(&s) < 0)
		return 2;
	struct plan p;
	if (plan_build(&p, o.top, &s, 0) || plan_feasible(&p, executor_default())) {
		plan_free(&p);
		return 2;
	}
	/* the stages named, each one of the selection's, before anything is said */
	unsigned char *only = o.nids ? xcalloc(p.n + 1, 1) : NULL;
	int unknown = 0;
	for (int k = 0; k < o.nids; k++) {
		const struct inst *in = plan_find(&p, o.ids[k]);
		if (in) {
			only[in - p.v] = 1;
		} else {
			fprintf(stderr, "llmb explain: error: no stage '%s' in the selection (llmb status lists them)\n", o.ids[k]);
			unknown = 1;
		}
	}
	if (unknown) {
		free(only);
		plan_free(&p);
		return 2;
	}
	int *stale = xcalloc(p.n + 1, sizeof *stale), nstale = 0, nshown = 0;
	struct explain e = {&p, stale};
	for (size_t i = 0; i < p.n; i++) {
		struct inst *in = &p.v[i];
		struct stage_query q = {o.install, in->id, in->hash, &in->conf, will_run, &e};
		struct sb why = {0};
		enum staleness st = stage_staleness(&q, &why);
		if (st == STAGE_CONFIG) {
			/* the configuration file make compares is not yet the plan's */
			char *cfgp = layout_cfg(o.gen, in->id);
			size_t clen = 0;
			char *cfg = read_file(cfgp, &clen);
			if (!cfg || clen != in->cfg.len || memcmp(cfg, in->cfg.buf, clen)) {
				sb_reset(&why);
				sb_add(&why, "its configuration changed (will be regenerated)");
			}
			free(cfg);
			free(cfgp);
		}
		int shown = !only || only[i];
		nshown += shown;
		if (st != STAGE_DONE) {
			stale[i] = 1;
			nstale += shown;
			if (shown)
				printf("%-56s %s\n", in->id, why.buf);
		}
		sb_free(&why);
	}
	printf("%d of %d stages would run\n", nstale, nshown);
	free(only);
	free(stale);
	plan_free(&p);
	return 0;
}

/* llmb validate OUT.mk FILE...: the JSON outputs among FILE (those make saw
 * change) and those OUT already lists are validated again. */
int
cmd_validate(int argc, char **argv)
{
	static const char usage[] = "usage: llmb validate [--] OUT.mk [FILE...]\n"
		"Rewrites OUT.mk (for make) with the JSON outputs among FILE and those it lists that do not validate.\n";
	static const struct option lo[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *text;
	cliopt_start();
	for (int c; (c = cliopt_next(argc, argv, "h", lo, &text)) != -1;) {
		if (c != 'h')
			return cliopt_refuse(text, "h", lo, usage);
		fputs(usage, stdout);
		return 0;
	}
	/* OUT is rewritten: only a make fragment, never a word meant otherwise */
	size_t n = optind < argc ? strlen(argv[optind]) : 0;
	if (n < 4 || strcmp(argv[optind] + n - 3, ".mk")) {
		if (n)
			fprintf(stderr, "llmb validate: '%s' is not a make fragment (OUT.mk)\n", argv[optind]);
		fputs(usage, stderr);
		return 2;
	}
	struct sb cand = {0};
	for (int i = optind + 1; i < argc; i++)
		sb_addf(&cand, " %s", argv[i]);
	int rc = validity_write("llmb validate", argv[optind], &cand);
	sb_free(&cand);
	return rc < 0 ? 2 : 0;
}
