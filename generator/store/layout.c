/* layout: paths into the install and generated trees, and the names of
 * the path placeholders. See layout.h for the tree. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/layout.h"

/* "<base>/<rel>", or rel alone when base is NULL. */
static char *
under(const char *base, const char *fmt, ...)
{
	struct sb s = {0};
	va_list ap;
	if (base)
		sb_addf(&s, "%s/", base);
	va_start(ap, fmt);
	sb_vaddf(&s, fmt, ap);
	va_end(ap);
	return sb_steal(&s);
}

char *
layout_cfg(const char *gen, const char *id)
{
	return under(gen, "cfg/%s", id);
}

char *
layout_done(const char *install, const char *id)
{
	return under(install, "state/done/%s", id);
}

char *
layout_stamp_link(const char *install, const char *id, const char *hash)
{
	return hash ? under(install, "state/stamped/%s/%.12s", id, hash) : under(install, "state/stamped/%s", id);
}

char *
layout_stamp_link_target(const char *id)
{
	return under(NULL, "../../done/%s", id);
}

char *
layout_identity(const char *install, const char *id)
{
	return under(install, "state/id/%s", id);
}

char *
layout_jobs(const char *install, const char *id)
{
	return id ? under(install, "state/jobs/%s", id) : under(install, "state/jobs");
}

char *
layout_job_record(const char *install, const char *id)
{
	return under(install, "state/jobs/%s/" LAYOUT_JOB_RECORD, id);
}

char *
layout_executor_state(const char *install)
{
	return under(install, "state/executor");
}

char *
layout_job_script(const char *state_dir, const char *token)
{
	return under(state_dir, "job.%s.sh", token);
}

char *
layout_job_exit(const char *state_dir, const char *job)
{
	return under(state_dir, "exit.%s", job);
}

char *
layout_job_env(const char *state_dir, const char *job)
{
	return under(state_dir, "env.%s", job);
}

char *
layout_job_output(const char *state_dir)
{
	return under(state_dir, "%%j.out");
}

char *
layout_history(const char *install, const char *fingerprint)
{
	return fingerprint ? under(install, "history/%s.jsonl", fingerprint) : under(install, "history");
}

char *
layout_history_lock(const char *install)
{
	return under(install, "history/.lock");
}

char *
layout_image(const char *install, const char *stem)
{
	return under(install, "images/%s.sqsh", stem);
}

char *
layout_image_identity(const char *install, const char *stem)
{
	return under(install, "images/%s.sqsh.id", stem);
}

char *
layout_workload(const char *base, const char *workload)
{
	return under(base, "workloads/%s", workload);
}

char *
layout_experiments(const char *install, const char *workload)
{
	return under(install, "workloads/%s/experiments", workload);
}

char *
layout_experiment(const char *install, const char *workload, const char *run)
{
	return under(install, "workloads/%s/experiments/%s", workload, run);
}

char *
layout_experiment_file(const char *install, const char *workload, const char *run, const char *file)
{
	return under(install, "workloads/%s/experiments/%s/%s", workload, run, file);
}

char *
layout_report(const char *install, const char *workload, const char *name)
{
	return under(install, "workloads/%s/reports/%s", workload, name);
}

char *
layout_workloads(const char *install)
{
	return under(install, "workloads");
}

char *
layout_reports(const char *install, const char *workload)
{
	return under(install, "workloads/%s/reports", workload);
}

int
layout_run_file(const char *name)
{
	size_t n = strlen(name);
	if (!strcmp(name, LAYOUT_TRAIN_DONE) || !strcmp(name, LAYOUT_RESULT) || !strcmp(name, LAYOUT_PROVENANCE))
		return 1;
	return n > 8 && !strncmp(name, "log-", 4) && !strcmp(name + n - 4, ".out");
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

int
layout_profile_file(const char *rel)
{
	static const char *const dirs[] = {"nsys_profile", "torch_profile", "pytorch_profile"};
	for (const char *p = rel, *slash; (slash = strchr(p, '/')); p = slash + 1)
		for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
			if ((size_t)(slash - p) == strlen(dirs[i]) && !strncmp(p, dirs[i], strlen(dirs[i])))
				return 1;
	return ends_with(rel, ".nsys-rep") || ends_with(rel, "_trace.json") || ends_with(rel, ".pt.trace.json");
}

int
layout_path_placeholder(const char *name, size_t n)
{
	static const char *const names[] = {"install", "top", "workload_dir", "experiment_dir",
		"recipe_dir", "state_dir", "image_file", "venv_dir", NULL};
	for (const char *const *p = names; *p; p++)
		if (strlen(*p) == n && !strncmp(*p, name, n))
			return 1;
	return n > 5 && !strncmp(name, "repo_", 5);
}

const char *
layout_install_root(void)
{
	const char *e = getenv("LLMB_INSTALL");
	return e && *e ? e : "install";
}

char *
layout_venv(const char *install, const char *hash12)
{
	return under(install, "venvs/venv_%.12s", hash12);
}

char *
layout_in(const char *dir, const char *name)
{
	return under(dir, "%s", name);
}

char *
layout_rules(const char *gen)
{
	return under(gen, "rules.mk");
}

char *
layout_valid(const char *gen)
{
	return under(gen, "valid.mk");
}

char *
layout_job_started(const char *state_dir, const char *token)
{
	return under(state_dir, "started.%s", token);
}

char *
layout_job_note(const char *state_dir, const char *job)
{
	return under(state_dir, "note.%s", job);
}

char *
layout_submit_note(const char *state_dir, const char *job)
{
	return under(state_dir, "submit-note.%s", job);
}

char *
layout_job_pending(const char *state_dir, const char *job)
{
	return under(state_dir, "pending.%s", job);
}

char *
layout_executor_file(const char *state_dir, const char *name)
{
	return under(state_dir, "%s", name);
}

char *
layout_log_pattern(const char *experiment, const char *workload, const char *run)
{
	return under(experiment, "log-%s_%s_%%j.out", workload, run);
}

char *
layout_exemplar(const char *install, const char *file)
{
	return file ? under(install, "exemplar/%s", file) : under(install, "exemplar");
}

char *
layout_nightly(const char *install, const char *night, const char *file)
{
	if (!night)
		return under(install, "nightly");
	return file ? under(install, "nightly/%s/%s", night, file) : under(install, "nightly/%s", night);
}
