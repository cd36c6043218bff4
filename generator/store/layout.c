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
	return under(gen, LAYOUT_CFG "/%s", id);
}

char *
layout_done(const char *install, const char *id)
{
	return under(install, LAYOUT_STATE "/" LAYOUT_DONE "/%s", id);
}

char *
layout_stamp_link(const char *install, const char *id, const char *hash)
{
	return hash ? under(install, LAYOUT_STATE "/" LAYOUT_STAMPED "/%s/%.12s", id, hash)
		    : under(install, LAYOUT_STATE "/" LAYOUT_STAMPED "/%s", id);
}

char *
layout_stamp_link_target(const char *id)
{
	return under(NULL, "../../" LAYOUT_DONE "/%s", id);
}

char *
layout_identity(const char *install, const char *id)
{
	return under(install, LAYOUT_STATE "/" LAYOUT_ID "/%s", id);
}

char *
layout_jobs(const char *install, const char *id)
{
	return id ? under(install, LAYOUT_STATE "/" LAYOUT_JOBS "/%s", id) : under(install, LAYOUT_STATE "/" LAYOUT_JOBS);
}

char *
layout_job_record(const char *install, const char *id)
{
	return under(install, LAYOUT_STATE "/" LAYOUT_JOBS "/%s/" LAYOUT_JOB_RECORD, id);
}

char *
layout_executor_state(const char *install)
{
	return under(install, LAYOUT_STATE "/" LAYOUT_EXECUTOR);
}

char *
layout_job_script(const char *state_dir, const char *token)
{
	return under(state_dir, LAYOUT_JOB_SCRIPT ".%s.sh", token);
}

char *
layout_job_exit(const char *state_dir, const char *job)
{
	return under(state_dir, LAYOUT_JOB_EXIT ".%s", job);
}

char *
layout_job_env(const char *state_dir, const char *job)
{
	return under(state_dir, LAYOUT_JOB_ENV ".%s", job);
}

char *
layout_job_output(const char *state_dir)
{
	return under(state_dir, "%%j" LAYOUT_LOG_SUFFIX);
}

char *
layout_history(const char *install, const char *fingerprint)
{
	return fingerprint ? under(install, LAYOUT_HISTORY "/%s" LAYOUT_HISTORY_SUFFIX, fingerprint)
			   : under(install, LAYOUT_HISTORY);
}

char *
layout_history_lock(const char *install)
{
	return under(install, LAYOUT_HISTORY "/" LAYOUT_LOCK_SUFFIX);
}

char *
layout_image(const char *install, const char *stem)
{
	return under(install, LAYOUT_IMAGES "/%s" LAYOUT_IMAGE_SUFFIX, stem);
}

char *
layout_image_identity(const char *install, const char *stem)
{
	return under(install, LAYOUT_IMAGES "/%s" LAYOUT_IMAGE_SUFFIX LAYOUT_IDENTITY_SUFFIX, stem);
}

char *
layout_workload(const char *base, const char *workload)
{
	return under(base, LAYOUT_WORKLOADS "/%s", workload);
}

char *
layout_experiments(const char *install, const char *workload)
{
	return under(install, LAYOUT_WORKLOADS "/%s/" LAYOUT_EXPERIMENTS, workload);
}

char *
layout_experiment(const char *install, const char *workload, const char *run)
{
	return under(install, LAYOUT_WORKLOADS "/%s/" LAYOUT_EXPERIMENTS "/%s", workload, run);
}

char *
layout_experiment_file(const char *install, const char *workload, const char *run, const char *file)
{
	return under(install, LAYOUT_WORKLOADS "/%s/" LAYOUT_EXPERIMENTS "/%s/%s", workload, run, file);
}

char *
layout_report(const char *install, const char *workload, const char *name)
{
	return under(install, LAYOUT_WORKLOADS "/%s/" LAYOUT_REPORTS "/%s", workload, name);
}

char *
layout_workloads(const char *install)
{
	return under(install, LAYOUT_WORKLOADS);
}

char *
layout_bisect(const char *install, const char *id)
{
	return under(install, LAYOUT_BISECT_RUNS "/%s", id);
}

char *
layout_venvs(const char *install)
{
	return under(install, LAYOUT_VENVS);
}

char *
layout_reports(const char *install, const char *workload)
{
	return under(install, LAYOUT_WORKLOADS "/%s/" LAYOUT_REPORTS, workload);
}

int
layout_log_file(const char *name)
{
	size_t n = strlen(name), p = strlen(LAYOUT_LOG_PREFIX), x = strlen(LAYOUT_LOG_SUFFIX);
	return n > p + x && !strncmp(name, LAYOUT_LOG_PREFIX, p) && !strcmp(name + n - x, LAYOUT_LOG_SUFFIX);
}

char *
layout_recipe(const char *top, const char *workload)
{
	return under(top, LAYOUT_WORKLOADS "/%s.yaml", workload);
}

char *
layout_job_file(const char *state_dir, const char *name, const char *job)
{
	return under(state_dir, "%s.%s", name, job);
}

int
layout_run_file(const char *name)
{
	if (!strcmp(name, LAYOUT_TRAIN_DONE) || !strcmp(name, LAYOUT_RESULT) || !strcmp(name, LAYOUT_PROVENANCE))
		return 1;
	return layout_log_file(name);
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
layout_install_root(const char *given)
{
	return given && *given ? given : "install";
}

char *
layout_venv(const char *install, const char *hash12)
{
	return under(install, LAYOUT_VENVS "/" LAYOUT_VENV_PREFIX "%.12s", hash12);
}

char *
layout_in(const char *dir, const char *name)
{
	return under(dir, "%s", name);
}

char *
layout_rules(const char *gen)
{
	return under(gen, LAYOUT_RULES);
}

char *
layout_valid(const char *gen)
{
	return under(gen, LAYOUT_VALID);
}

char *
layout_job_started(const char *state_dir, const char *token)
{
	return under(state_dir, LAYOUT_JOB_STARTED ".%s", token);
}

char *
layout_job_note(const char *state_dir, const char *job)
{
	return under(state_dir, LAYOUT_JOB_NOTE ".%s", job);
}

char *
layout_submit_note(const char *state_dir, const char *job)
{
	return under(state_dir, LAYOUT_SUBMIT_NOTE ".%s", job);
}

char *
layout_job_pending(const char *state_dir, const char *job)
{
	return under(state_dir, LAYOUT_JOB_PENDING ".%s", job);
}

char *
layout_executor_file(const char *state_dir, const char *name)
{
	return under(state_dir, "%s", name);
}

char *
layout_log_pattern(const char *experiment, const char *workload, const char *run)
{
	return under(experiment, LAYOUT_LOG_PREFIX "%s_%s_%%j" LAYOUT_LOG_SUFFIX, workload, run);
}

char *
layout_exemplar(const char *install, const char *file)
{
	return file ? under(install, LAYOUT_EXEMPLAR "/%s", file) : under(install, LAYOUT_EXEMPLAR);
}

char *
layout_nightly(const char *install, const char *night, const char *file)
{
	if (!night)
		return under(install, LAYOUT_NIGHTLY);
	return file ? under(install, LAYOUT_NIGHTLY "/%s/%s", night, file) : under(install, LAYOUT_NIGHTLY "/%s", night);
}
