/* slurm: the Slurm executor: sbatch submission (through the shared
 * throttle, tried again after a temporary failure only once Slurm knows no
 * job of its name), scancel, and finding a job by name or its nodes. The
 * command lines come from slurmcmd.c, job states from slurmqueue.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/capture.h"
#include "exec/slurm.h"
#include "exec/slurmlimits.h"
#include "exec/slurmpend.h"
#include "exec/slurmqueue.h"
#include "exec/throttle.h"
#include "recipe/slurmcmd.h"
#include "store/layout.h"

/* ---- what sbatch knows ------------------------------------------------------------- */

int
slurm_sbatch_knows(const char *opt)
{
	static char *help;
	static int asked, ok;
	if (!asked) {
		char *argv[] = {"sbatch", "--help", NULL};
		struct sb out = {0}, errs = {0};
		asked = 1;
		ok = capture_run(argv, &out, &errs) == 0 && out.len;
		help = ok ? sb_steal(&out) : NULL;
		sb_free(&out);
		sb_free(&errs);
	}
	if (!ok)
		return -1;
	/* "--segment=N" or "--segment N" in the option list */
	char *want = xasprintf("--%s", opt);
	int hit = 0;
	for (const char *p = help; (p = strstr(p, want)); p += strlen(want)) {
		char after = p[strlen(want)];
		if (after == '=' || after == ' ' || after == '\n' || after == '[' || after == ',')
			hit = 1;
	}
	free(want);
	return hit;
}

/* ---- submit and cancel -------------------------------------------------------------- */

/* A tool's output in an error message, without its trailing newline. */
static void
add_trimmed(struct sb *err, const struct sb *text)
{
	size_t n = text->len;
	while (n && (text->buf[n - 1] == '\n' || text->buf[n - 1] == ' '))
		n--;
	if (n)
		sb_addn(err, text->buf, n);
}

char **
slurm_submit_argv(const struct jobspec *js, struct sb *err)
{
	const char *cpu = getenv("LLMB_CPU_PARTITION");
	const char *part = js->cpu_only && cpu && *cpu ? cpu : getenv("SBATCH_PARTITION");
	return slurm_sbatch_argv(js, getenv("SBATCH_ACCOUNT"), part, err);
}

/* sbatch once, through the shared throttle. A failure the controller calls
 * temporary (busy, timed out, queue full) is tried again after a backoff,
 * but only once Slurm says no job of this submission's name exists: a
 * reply lost after the job was created must not make a second job. */
static int
slurm_submit(const struct jobspec *js, char *id, size_t idlen, struct sb *err)
{
	struct sb out = {0}, errs = {0};
	char **argv = slurm_submit_argv(js, err);
	char *state_dir = layout_executor_state(js->workdir);
	int rc = 0, ret = -1, known = 0;
	if (!argv) {
		free(state_dir);
		return -1;
	}
	/* try counts sbatch calls, waits the backoffs (one a call, more while
	 * Slurm cannot say whether a job of the name exists) */
	for (int try = 0, waits = 0;; try++) {
		sb_reset(&out);
		sb_reset(&errs);
		slurm_limits_wait_room(state_dir);
		throttle_take(state_dir);
		rc = capture_run(argv, &out, &errs);
		/* sbatch killed by a signal (SIGPIPE: the controller dropped the
		 * connection) may or may not have created the job: ask by name. */
		if (rc == 0 || !(throttle_transient(errs.buf) || rc > 128) || try >= throttle_retries())
			break;
		do {
			sleep((unsigned)throttle_backoff(++waits));
			known = slurm_find_job(js->job_name, id, idlen);
		} while (known < 0 && waits < throttle_retries());
		if (known > 0) {
			fprintf(stderr, "llmb: sbatch for '%s' reported a temporary failure, yet created job %s: using it\n",
				js->stage ? js->stage : js->job_name, id);
			ret = 0;
			goto out;
		}
		if (known < 0)
			break;
		/* One fprintf per line: many llmb processes share make's stderr. */
		const char *why = errs.buf ? errs.buf : "";
		char what[1024];
		if (rc > 128)
			snprintf(what, sizeof what, "was killed by signal %d; no job of its name exists", rc - 128);
		else
			snprintf(what, sizeof what, "failed for now (%.*s)", (int)strcspn(why, "\n"), why);
		fprintf(stderr, "llmb: sbatch for '%s' %s; submitting again (try %d of %d)\n",
			js->stage ? js->stage : js->job_name, what, try + 2, throttle_retries() + 1);
	}
	if (rc != 0) {
		sb_addf(err, "sbatch failed for stage '%s'", js->stage ? js->stage : js->job_name);
		if (rc > 0)
			sb_addf(err, " (exit %d)", rc);
		sb_add(err, ": ");
		add_trimmed(err, &errs);
		goto out;
	}
	/* --parsable prints "id" or "id;cluster". */
	size_t n = out.buf ? strcspn(out.buf, ";\n") : 0;
	char *got = xstrndup(out.buf ? out.buf : "", n);
	if (!slurm_job_id_valid(got) || n >= idlen) {
		sb_add(err, "sbatch printed no job id: ");
		add_trimmed(err, &out);
		add_trimmed(err, &errs);
	} else {
		memcpy(id, got, n + 1);
		ret = 0;
	}
	free(got);
out:
	if (ret == 0 && js->on_id)
		js->on_id(js->on_id_arg, id);
	slurm_argv_free(argv);
	free(state_dir);
	sb_free(&out);
	sb_free(&errs);
	return ret;
}

static int
slurm_cancel(const char *id, struct sb *err)
{
	struct sb out = {0}, errs = {0};
	char *argv[] = {"scancel", (char *)id, NULL};
	int rc;
	if (!slurm_job_id_valid(id)) {
		sb_add(err, "scancel: invalid job id ");
		sb_add_shquote(err, id);
		return -1;
	}
	rc = capture_run(argv, &out, &errs);
	if (rc != 0) {
		sb_addf(err, "scancel %s failed", id);
		if (rc > 0)
			sb_addf(err, " (exit %d)", rc);
		sb_add(err, ": ");
		add_trimmed(err, &errs);
	}
	sb_free(&out);
	sb_free(&errs);
	return rc == 0 ? 0 : -1;
}

int
slurm_find_job(const char *name, char *id, size_t idlen)
{
	struct sb out = {0}, errs = {0};
	char *sq[] = {"squeue", "-h", "-t", "all", "-n", (char *)name, "-o", "%i", NULL};
	char *sa[] = {"sacct", "-n", "-X", "-P", "-S", "now-7days", "--name", (char *)name, "-o", "JobID", NULL};
	int ret = -1;
	if (capture_run(sq, &out, &errs) != 0)
		goto out;
	if (!out.len) {
		/* purged after MinJobAge: accounting, when the cluster has it */
		sb_reset(&errs);
		ret = capture_run(sa, &out, &errs) == 0 ? 0 : errs.buf && strstr(errs.buf, "disabled") ? 0 : -1;
		if (!out.len)
			goto out;
	}
	size_t n = strcspn(out.buf, "\n");
	char *got = xstrndup(out.buf, n);
	ret = slurm_job_id_valid(got) && n < idlen ? 1 : -1;
	if (ret == 1)
		memcpy(id, got, n + 1);
	free(got);
out:
	sb_free(&out);
	sb_free(&errs);
	return ret;
}

const struct executor slurm_executor = {"slurm", slurm_submit, slurm_query, slurm_cancel, slurm_find_job,
	slurm_pend_blocked, slurm_cancel_pending};

char *
slurm_job_nodes(const char *job)
{
	char *sa[] = {"sacct", "-n", "-X", "-P", "-j", (char *)job, "-o", "NodeList", NULL};
	char *sq[] = {"squeue", "-h", "-t", "all", "-j", (char *)job, "-o", "%N", NULL};
	char *n = capture_first_line(sa);
	for (int i = 0; i < 2; i++) {
		if (n && *n && strcmp(n, "None assigned"))
			return n;
		free(n);
		n = i ? NULL : capture_first_line(sq);
	}
	return NULL;
}
