/* throttle: how llmb submits to a Slurm controller without tripping it.
 *
 * A token bucket shared by every llmb process of an install tree: its
 * state (tokens, time) lives in state/executor/submit.bucket and is read
 * and rewritten under an flock of submit.lock, so `make -j64` submits at
 * LLMB_SUBMIT_RATE jobs per second (default 10; 0: no limit) with bursts
 * of LLMB_SUBMIT_BURST (default 10), however many processes submit. A
 * caller short of a token takes it anyway (the count goes negative) and
 * sleeps outside the lock until it is due: waiters are served in order
 * and nobody holds the lock while sleeping. Slurm 23.02 and later can rate
 * limit RPCs per user (SlurmctldParameters=rl_enable: 30 tokens, 2 per
 * second by default); a rate below the controller's keeps a burst from
 * ever reaching that limit.
 *
 * And the verdict on a failed sbatch: transient (the controller timed out,
 * was busy, its queue was full or an RPC was rate limited) or final. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "exec/throttle.h"
#include "store/layout.h"

static double
env_num(const char *name, double def)
{
	const char *v = getenv(name);
	char *end;
	if (!v || !*v)
		return def;
	double d = strtod(v, &end);
	return *end || !(d >= 0) ? def : d;
}

static void
sleep_s(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

double
throttle_take(const char *state_dir)
{
	double rate = env_num("LLMB_SUBMIT_RATE", 10), burst = env_num("LLMB_SUBMIT_BURST", 10);
	if (rate <= 0)
		return 0;
	if (burst < 1)
		burst = 1;
	char *lock = layout_executor_file(state_dir, LAYOUT_SUBMIT_LOCK);
	char *path = layout_executor_file(state_dir, LAYOUT_SUBMIT_BUCKET);
	double wait = 0;
	int fd = -1;
	if (mkdir_p(state_dir, 0) == 0)
		fd = lock_file(lock, 0);
	if (fd < 0) {
		/* No shared state: this process keeps the rate on its own. */
		warn("cannot lock '%s' (%s): submission rate kept per process", lock, strerror(errno));
		wait = 1 / rate;
	} else {
		double tokens = burst, t = now_seconds(), now = t;
		char *s = read_file(path, NULL);
		if (s && sscanf(s, "tokens=%lf t=%lf", &tokens, &t) != 2)
			tokens = burst, t = now;
		free(s);
		tokens = fmin(burst, tokens + fmax(0, now - t) * rate) - 1;
		if (tokens < 0)
			wait = -tokens / rate;
		char buf[96];
		int n = snprintf(buf, sizeof buf, "tokens=%.6f t=%.6f\n", tokens, now);
		if (write_file_atomic(path, buf, (size_t)n) < 0)
			warn("cannot write '%s': %s", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	free(lock);
	free(path);
	sleep_s(wait);
	return wait;
}

/* sbatch's words for "not now" (Slurm 22.05 to 24.x). */
static const char *const transient[] = {
	"Socket timed out",
	"Unexpected missing socket error",
	"Connection refused",
	"Connection reset",
	"Unable to contact slurm controller",
	"temporarily unable to accept job",
	"Resource temporarily unavailable",
	"Slurmctld is busy",
	"RPC rate limit exceeded",
	"Too many pending jobs",
	"MaxJobCount",
	"Job violates accounting/QOS policy (job submit limit",
	"AssocMaxSubmitJobLimit",
	"QOSMaxSubmitJobPerUserLimit",
};

int
throttle_transient(const char *err)
{
	for (size_t i = 0; err && i < sizeof transient / sizeof *transient; i++)
		if (strstr(err, transient[i]))
			return 1;
	return 0;
}

double
throttle_backoff(int n)
{
	double base = env_num("LLMB_SUBMIT_BACKOFF", 2);
	return fmin(60, base * pow(2, n - 1));
}

int
throttle_retries(void)
{
	return (int)env_num("LLMB_SUBMIT_RETRIES", 8);
}
