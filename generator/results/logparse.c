/* logparse: one training log -> struct lp_result (see logparse.h).
 *
 * Speed comes from never looking at most of the file. A Wu-Manber scan over
 * big blocks looks for all the trigger strings at once (logtrig.c), and only
 * the lines that hold one are parsed (table-driven "key: value" fields, a
 * bounded number reader: the buffer is not NUL-terminated and may hold NUL
 * bytes). Short generic error words would slow that scan down, so they are
 * looked for in a second pass, only in logs that did not succeed. Line
 * numbers are needed only for the first error: they are counted at the end
 * by re-reading the file up to it. */
#define _GNU_SOURCE /* memmem, memrchr */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "results/logparse.h"
#include "results/logtrig.h"

#define BUFSZ (256 * 1024)
#define ERR_MAX 240 /* bytes kept of the first error line */

struct ctx {
	const struct lp_opts *o;
	struct lp_result *r;
	long den;             /* denominator of the first step line, -1 none */
	double pending_tflops; /* mbridge: from the last Step Time line */
	long await_tflops;    /* mbridge: iteration of the last step line without TFLOPS, -1 none */
	long pending_save;    /* megatron: iteration of the last saved checkpoint */
	long pending_load;    /* megatron: iteration of the checkpoint loaded */
	long cancel_iter;     /* last iteration seen at the TIME LIMIT line */
	long long err_off;    /* byte offset of the first error line */
	size_t nwin;          /* samples inside the window */
	size_t cap;           /* allocated samples */
	size_t other_format;  /* step lines of another format, ignored */
	int generic;          /* second pass: generic error words only */
	int stop;             /* second pass: found one */
	long prev_iter;       /* iteration of the previous step line, -1 none */
	int replay;           /* iterations went back: another rank's copy, or a restart */
	long replay_from;     /* the iteration they went back to */
};

/* ---- bounded field readers ---------------------------------------------- */

static const char *
skip_sp(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* A number at p (after blanks): decimal, scientific, nan or inf. */
static int
num_at(const char *p, const char *e, double *v, const char **after)
{
	char tmp[64];
	size_t n = 0;
	p = skip_sp(p, e);
	if (p < e && (*p == '+' || *p == '-'))
		tmp[n++] = *p++;
	static const char *const words[] = {"nan", "NaN", "NAN", "inf", "Inf", "INF"};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		if (e - p >= 3 && !memcmp(p, words[i], 3)) {
			*v = i < 3 ? NAN : (tmp[0] == '-' && n ? -INFINITY : INFINITY);
			if (after)
				*after = p + 3;
			return 1;
		}
	}
	/* Fast path (Clinger): an integer mantissa below 2^53 times an exact
	 * power of ten is correctly rounded; anything else goes to strtod. */
	static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
		1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	uint64_t mant = 0;
	int exp10 = 0, exact = 1;
	size_t digits = 0;
	while (p < e && n < sizeof tmp - 8 && (*p >= '0' && *p <= '9')) {
		exact &= mant < (1ULL << 49);
		mant = mant * 10 + (uint64_t)(*p - '0');
		tmp[n++] = *p++;
		digits++;
	}
	if (p < e && *p == '.') {
		tmp[n++] = *p++;
		while (p < e && n < sizeof tmp - 8 && *p >= '0' && *p <= '9') {
			exact &= mant < (1ULL << 49);
			mant = mant * 10 + (uint64_t)(*p - '0');
			exp10--;
			tmp[n++] = *p++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	if (e - p >= 2 && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;
		int neg = q < e && *q == '-', x = 0;
		if (q < e && (*q == '+' || *q == '-'))
			q++;
		if (q < e && *q >= '0' && *q <= '9') {
			while (p < q)
				tmp[n++] = *p++;
			while (p < e && n < sizeof tmp - 1 && *p >= '0' && *p <= '9') {
				x = x < 10000 ? x * 10 + (*p - '0') : x;
				tmp[n++] = *p++;
			}
			exp10 += neg ? -x : x;
		}
	}
	tmp[n] = 0;
	if (exact && exp10 >= -22 && exp10 <= 22) {
		double m = (double)mant;
		*v = exp10 < 0 ? m / pow10[-exp10] : m * pow10[exp10];
		if (tmp[0] == '-')
			*v = -*v;
	} else {
		*v = strtod(tmp, NULL);
	}
	if (after)
		*after = p;
	return 1;
}

/* Iteration numbers at or above this are not steps of any training (and a
 * double that large does not fit a long): such lines are not step lines. */
#define MAX_ITER 1e12

static int
long_at(const char *p, const char *e, long *v, const char **after)
{
	p = skip_sp(p, e);
	if (p >= e || *p < '0' || *p > '9')
		return 0;
	long x = 0;
	for (; p < e && *p >= '0' && *p <= '9'; p++)
		x = x < 100000000000L ? x * 10 + (*p - '0') : x;
	*v = x;
	if (after)
		*after = p;
	return 1;
}

static const char *
find(const char *l, size_t n, const char *key)
{
	return memmem(l, n, key, strlen(key));
}

/* The number after key in the line, or NAN. */
static double
field(const char *l, size_t n, const char *key)
{
	const char *p = find(l, n, key);
	double v;
	if (p && num_at(p + strlen(key), l + n, &v, NULL))
		return v;
	return NAN;
}

/* "iteration <N>/<M>" with any blanks around the slash. */
static int
find_iter(const char *l, size_t n, long *it, long *den)
{
	const char *e = l + n, *p = l;
	while ((p = memmem(p, (size_t)(e - p), "iteration", 9))) {
		const char *q;
		p += 9;
		if (!long_at(p, e, it, &q))
			continue;
		q = skip_sp(q, e);
		if (q < e && *q == '/' && long_at(q + 1, e, den, NULL))
			return 1;
	}
	return 0;
}

/* The number glued before "TFLOP/s/GPU" or "MODEL_TFLOP/s/GPU". */
static double
mbridge_tflops(const char *l, size_t n)
{
	const char *p = find(l, n, "TFLOP/s/GPU");
	if (!p)
		return NAN;
	if (p - l >= 6 && !memcmp(p - 6, "MODEL_", 6))
		p -= 6;
	const char *s = p;
	while (s > l && strchr("0123456789.eE+-", s[-1]) && s[-1])
		s--;
	double v;
	return num_at(s, p, &v, NULL) ? v : NAN;
}

/* ---- steps ---------------------------------------------------------------- */

static int
in_window(const struct ctx *c, long it)
{
	return it >= c->o->win_lo && it <= c->o->win_hi;
}

static void
set_invalid(struct ctx *c, const char *reason, long it)
{
	if (!c->r->reason) {
		c->r->reason = reason;
		c->r->invalid_iter = it;
	}
}

/* Values no real step has: a step takes some time, less than a day (no
 * benchmark job runs that long per step), and no GPU does negative work
 * or a thousand times any peak. */
#define LP_MAX_STEP_SECONDS 86400.0
#define LP_MAX_TFLOPS 1e5
static void
check_tflops(struct ctx *c, double tflops, long it)
{
	if (isinf(tflops))
		set_invalid(c, "tflops=inf", it);
	else if (tflops < 0)
		set_invalid(c, "tflops<0", it);
	else if (tflops > LP_MAX_TFLOPS)
		set_invalid(c, "tflops>1e5", it);
	if (tflops == 0 && in_window(c, it))
		set_invalid(c, "tflops=0", it);
}

static void
check_values(struct ctx *c, const struct lp_sample *s)
{
	if (!isfinite(s->time))
		set_invalid(c, isnan(s->time) ? "step_time=nan" : "step_time=inf", s->iter);
	else if (s->time == 0)
		set_invalid(c, "step_time=0", s->iter);
	else if (s->time < 0)
		set_invalid(c, "step_time<0", s->iter);
	else if (s->time > LP_MAX_STEP_SECONDS)
		set_invalid(c, "step_time>1day", s->iter);
	check_tflops(c, s->tflops, s->iter);
}

/* Index of iteration it in the sorted samples, or where it would go. */
static size_t
sample_pos(const struct lp_result *r, long it)
{
	size_t lo = 0, hi = r->nsamples;
	if (hi && r->samples[hi - 1].iter < it)
		return hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->samples[mid].iter < it)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
insert_sample(struct ctx *c, const struct lp_sample *s)
{
	struct lp_result *r = c->r;
	size_t i = sample_pos(r, s->iter);
	if (i < r->nsamples && r->samples[i].iter == s->iter) {
		r->duplicates++;
		return;
	}
	int win = in_window(c, s->iter);
	if (!win && r->nsamples - c->nwin >= LP_MAX_SAMPLES) {
		r->dropped++;
		return;
	}
	if (r->nsamples == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		r->samples = xrealloc(r->samples, c->cap * sizeof *r->samples);
	}
	memmove(r->samples + i + 1, r->samples + i, (r->nsamples - i) * sizeof *s);
	r->samples[i] = *s;
	r->nsamples++;
	c->nwin += win;
}

static int
same_value(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static int
same_sample(const struct lp_sample *a, const struct lp_sample *b)
{
	return same_value(a->time, b->time) && same_value(a->tflops, b->tflops) &&
	       same_value(a->loss, b->loss) && same_value(a->grad, b->grad);
}

/* Iterations that go back are another rank's copy of the same lines, or a
 * new attempt of the job (a requeue or restart writing into the same log).
 * A copy repeats the values; the first repeated iteration whose values
 * differ shows a new attempt, which began at replay_from: only it is
 * measured, whatever the earlier attempts logged. Its lines before `upto`
 * repeated the old values, so those samples stay, checked again. */
static void
restart(struct ctx *c, long upto)
{
	struct lp_result *r = c->r;
	size_t k = 0;
	r->restarts++;
	r->reason = NULL;
	r->invalid_iter = -1;
	r->time_limit = 0;
	c->cancel_iter = -1;
	c->nwin = 0;
	r->last_iter = -1;
	for (size_t i = 0; i < r->nsamples; i++) {
		const struct lp_sample *s = &r->samples[i];
		if (s->iter < c->replay_from || s->iter >= upto)
			continue;
		r->samples[k++] = *s;
		c->nwin += in_window(c, s->iter);
		r->last_iter = s->iter;
		check_values(c, s); /* a NaN loss repeated is indistinguishable from none */
		if (isinf(s->loss))
			set_invalid(c, "loss=inf", s->iter);
	}
	r->nsamples = k;
}

static void
watch_replay(struct ctx *c, const struct lp_sample *s)
{
	struct lp_result *r = c->r;
	if (r->step_lines && s->iter < c->prev_iter) {
		c->replay = 1;
		c->replay_from = s->iter;
	}
	c->prev_iter = s->iter;
	if (!c->replay)
		return;
	size_t i = sample_pos(r, s->iter);
	if (i < r->nsamples && r->samples[i].iter == s->iter && !same_sample(&r->samples[i], s)) {
		restart(c, s->iter);
		c->replay = 0;
	}
}

static void check_health(struct ctx *c, const double v[], const int has[], long it);

/* One step line of format f; den < 0 when the line has no denominator. */
static void
add_step(struct ctx *c, enum lp_format f, long den, const struct lp_sample *s, double mem,
	 const double v[], const int has[])
{
	struct lp_result *r = c->r;
	if (c->o->format != LP_AUTO && f != c->o->format)
		return;
	if (r->format == LP_AUTO)
		r->format = f;
	else if (f != r->format) {
		c->other_format++;
		return;
	}
	watch_replay(c, s);
	r->step_lines++;
	check_health(c, v, has, s->iter);
	if (den >= 0 && c->den < 0)
		c->den = den;
	if (!isnan(mem) && (isnan(r->peak_mem) || mem > r->peak_mem))
		r->peak_mem = mem;
	check_values(c, s);
	if (s->iter > r->last_iter)
		r->last_iter = s->iter;
	insert_sample(c, s);
}

/* Step-line fields: "key: value" pieces between separators. A key matches
 * when the text before the last colon of a piece ends with it. */
enum fid { F_STEP, F_TIME, F_TIME_MS, F_TFLOPS, F_LOSS, F_GRAD, F_MEM_NEW, F_MEM_OLD, NF };
struct key {
	const char *k;
	size_t len;
	enum fid id;
};
#define KEY(s, id) {s, sizeof s - 1, id}
static const struct key nemo_keys[] = {
	KEY("train_step_timing in s", F_TIME),
	KEY("TFLOPS_per_GPU", F_TFLOPS),
	KEY("reduced_train_loss", F_LOSS),
	KEY("grad_norm", F_GRAD),
	KEY("max_memory_reserved", F_MEM_NEW),
	KEY("peak_memory_usage", F_MEM_OLD),
	KEY("global_step", F_STEP),
	{NULL, 0, NF},
};
static const struct key maxtext_keys[] = {
	KEY("completed step", F_STEP),
	KEY("seconds", F_TIME),
	KEY("TFLOP/s/device", F_TFLOPS),
	KEY("loss", F_LOSS),
	{NULL, 0, NF},
};
static const struct key mbridge_keys[] = {
	KEY("elapsed time per iteration (ms)", F_TIME_MS),
	KEY("throughput per GPU (TFLOP/s/GPU)", F_TFLOPS), /* Megatron-LM */
	KEY("lm loss", F_LOSS),
	KEY("grad norm", F_GRAD),
	KEY("grad_norm", F_GRAD),
	{NULL, 0, NF},
};

/* v[id] = the value of each key found, NAN otherwise; has[id] says found. */
static void
kv_fields(const char *l, size_t n, char sep, const struct key *keys, double v[NF], int has[NF])
{
	const char *e = l + n;
	for (int i = 0; i < NF; i++) {
		v[i] = NAN;
		has[i] = 0;
	}
	for (const char *p = l; p < e;) {
		const char *q = memchr(p, sep, (size_t)(e - p));
		if (!q)
			q = e;
		const char *colon = q;
		while (colon > p && *--colon != ':')
			;
		const char *ke = colon;
		while (ke > p && ke[-1] == ' ')
			ke--;
		for (const struct key *k = keys; *colon == ':' && k->k; k++) {
			size_t kl = k->len;
			if ((size_t)(ke - p) >= kl && ke[-1] == k->k[kl - 1] && !memcmp(ke - kl, k->k, kl) &&
			    (ke - kl == p || ke[-(long)kl - 1] == ' ')) {
				const char *after;
				has[k->id] = num_at(colon + 1, q, &v[k->id], &after);
				/* "0.1x": a number with something glued to it is
				 * no value at all (-1: found, unreadable). */
				while (has[k->id] && after < q && (*after == ' ' || *after == '\t' || *after == '\r'))
					after++;
				if (has[k->id] && after < q) {
					has[k->id] = -1;
					v[k->id] = NAN;
				}
				break;
			}
		}
		p = q + 1;
	}
}

/* NaN or infinite loss / grad norm make the run invalid. */
static void
check_health(struct ctx *c, const double v[], const int has[], long it)
{
	if (has[F_TIME] < 0 || has[F_TIME_MS] < 0)
		set_invalid(c, "step_time=unreadable", it);
	if (has[F_TFLOPS] < 0)
		set_invalid(c, "tflops=unreadable", it);
	if (has[F_LOSS] && !isfinite(v[F_LOSS]))
		set_invalid(c, isnan(v[F_LOSS]) ? "loss=nan" : "loss=inf", it);
	if (has[F_GRAD] && !isfinite(v[F_GRAD]))
		set_invalid(c, isnan(v[F_GRAD]) ? "grad_norm=nan" : "grad_norm=inf", it);
}

static void
nemo_step(struct ctx *c, const char *l, size_t n)
{
	double v[NF];
	int has[NF];
	long den = -1;
	struct lp_sample s = {0};
	kv_fields(l, n, '|', nemo_keys, v, has);
	if (!find_iter(l, n, &s.iter, &den)) {
		if (!has[F_STEP] || !(v[F_STEP] >= 0 && v[F_STEP] < MAX_ITER))
			return;
		s.iter = (long)v[F_STEP];
		den = -1;
	}
	if (!has[F_TIME]) {
		c->r->malformed++;
		return;
	}
	s.time = v[F_TIME];
	s.tflops = v[F_TFLOPS];
	s.loss = v[F_LOSS];
	s.grad = v[F_GRAD];
	add_step(c, LP_NEMO2, den, &s, has[F_MEM_NEW] ? v[F_MEM_NEW] : v[F_MEM_OLD], v, has);
}

static void
maxtext_step(struct ctx *c, const char *l, size_t n)
{
	double v[NF];
	int has[NF];
	struct lp_sample s = {0};
	kv_fields(l, n, ',', maxtext_keys, v, has);
	if (!has[F_STEP] || !(v[F_STEP] >= 0 && v[F_STEP] < MAX_ITER))
		return;
	s.iter = (long)v[F_STEP];
	if (!has[F_TIME]) {
		c->r->malformed++;
		return;
	}
	s.time = v[F_TIME];
	s.tflops = v[F_TFLOPS];
	s.loss = v[F_LOSS];
	s.grad = NAN;
	add_step(c, LP_MAXTEXT, -1, &s, NAN, v, has);
}

static void
mbridge_step(struct ctx *c, const char *l, size_t n)
{
	double v[NF];
	int has[NF];
	long den = -1;
	struct lp_sample s = {0};
	if (!find_iter(l, n, &s.iter, &den))
		return;
	kv_fields(l, n, '|', mbridge_keys, v, has);
	if (!has[F_TIME_MS]) {
		c->r->malformed++;
		return;
	}
	s.time = v[F_TIME_MS] / 1000;
	/* The line's own throughput field is its iteration's for sure; else
	 * the Step Time line printed just before it. */
	s.tflops = has[F_TFLOPS] > 0 ? v[F_TFLOPS] : c->pending_tflops;
	c->pending_tflops = NAN;
	c->await_tflops = isnan(s.tflops) && has[F_TFLOPS] >= 0 ? s.iter : -1;
	s.loss = v[F_LOSS];
	s.grad = v[F_GRAD];
	add_step(c, LP_MBRIDGE, den, &s, NAN, v, has);
}

/* A Step Time line after the iteration line it belongs to: rank 0 prints
 * it and the last pipeline stage the iteration line, so with pipeline
 * parallelism the two can reach the log in either order. Upstream's parser
 * pairs the n-th of each; so does this, by giving the value to the step
 * line still waiting for one. */
static void
late_tflops(struct ctx *c, double tf)
{
	struct lp_result *r = c->r;
	size_t i = sample_pos(r, c->await_tflops);
	if (i < r->nsamples && r->samples[i].iter == c->await_tflops && isnan(r->samples[i].tflops)) {
		r->samples[i].tflops = tf;
		check_tflops(c, tf, c->await_tflops);
	}
	c->await_tflops = -1;
}

/* ---- other lines ---------------------------------------------------------- */

static void
add_ckpt(struct ctx *c, const char *kind, long it, double secs)
{
	struct lp_result *r = c->r;
	if (isnan(secs) || r->nckpts >= LP_MAX_CHECKPOINTS)
		return;
	if (!r->ckpts)
		r->ckpts = xmalloc(LP_MAX_CHECKPOINTS * sizeof *r->ckpts);
	r->ckpts[r->nckpts++] = (struct lp_ckpt){kind, it, secs};
}

/* Megatron timers: "save-checkpoint ....: (min, max)" in ms; max is kept. */
static double
timer_max(const char *l, size_t n, const char *key)
{
	const char *p = find(l, n, key), *e = l + n;
	double lo, hi;
	if (!p || !(p = memchr(p, '(', (size_t)(e - p))))
		return NAN;
	if (!num_at(p + 1, e, &lo, &p) || p >= e || *p != ',' || !num_at(p + 1, e, &hi, NULL))
		return NAN;
	return hi / 1000;
}

static int
ckpt_line(struct ctx *c, const char *l, size_t n)
{
	long it = -1;
	const char *p;
	if ((p = find(l, n, "Global Checkpoint Save"))) {
		if ((p = find(l, n, "Iteration:")))
			long_at(p + 10, l + n, &it, NULL);
		add_ckpt(c, "save", it, field(l, n, "Save duration:"));
	} else if (find(l, n, "Global Checkpoint Load")) {
		add_ckpt(c, "load", -1, field(l, n, "Time spent in load_checkpoint:"));
	} else if ((p = find(l, n, "successfully saved checkpoint"))) {
		const char *q = find(l, n, "from iteration");
		if (q && long_at(q + 14, l + n, &it, NULL))
			c->pending_save = it;
	} else if (find(l, n, "save-checkpoint")) {
		add_ckpt(c, "save", c->pending_save, timer_max(l, n, "save-checkpoint"));
		c->pending_save = -1;
	} else if ((p = find(l, n, "successfully loaded checkpoint from"))) {
		/* Megatron-Bridge: "... [ t 0/1, p 0/1 ] at iteration N" */
		const char *q = find(l, n, "] at iteration");
		if (q && long_at(q + 14, l + n, &it, NULL))
			c->pending_load = it;
	} else if (find(l, n, "load-checkpoint")) {
		add_ckpt(c, "load", c->pending_load, timer_max(l, n, "load-checkpoint"));
		c->pending_load = -1;
	} else {
		return 0;
	}
	return 1;
}

static void
set_error(struct ctx *c, const char *l, size_t n, long long off)
{
	if (c->r->error && off >= c->err_off)
		return;
	free(c->r->error);
	while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
		n--;
	if (n > ERR_MAX)
		n = ERR_MAX;
	char *s = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)l[i];
		s[i] = ch == '\t' ? ' ' : (ch < 0x20 || ch > 0x7e) ? '?' : (char)ch;
	}
	s[n] = 0;
	c->r->error = s;
	c->err_off = off;
}

static void
on_line(struct ctx *c, const char *l, size_t n, long long off)
{
	if (n > LP_MAX_LINE) {
		c->r->long_lines++;
		return;
	}
	int step = 0;
	if (find(l, n, "train_step_timing in s:")) {
		nemo_step(c, l, n);
		step = 1;
	} else if (find(l, n, "completed step:")) {
		maxtext_step(c, l, n);
		step = 1;
	} else {
		if (find(l, n, "GPU utilization:")) {
			double tf = mbridge_tflops(l, n);
			if (c->await_tflops >= 0 && !find(l, n, "elapsed time per iteration (ms):"))
				late_tflops(c, tf);
			else
				c->pending_tflops = tf;
			step = 1;
		}
		if (find(l, n, "elapsed time per iteration (ms):")) {
			mbridge_step(c, l, n);
			step = 1;
		}
	}
	if (step || ckpt_line(c, l, n))
		return;
	if (find(l, n, "CANCELLED AT 20")) {
		if (find(l, n, "DUE TO TIME LIMIT") && !c->r->time_limit) {
			c->r->time_limit = 1;
			c->cancel_iter = c->r->last_iter;
		}
		set_error(c, l, n, off);
	} else if (lptrig_has(l, n, LPT_ERROR)) {
		set_error(c, l, n, off);
	}
}

/* Every line of t[0, n) (which ends in '\n') holding a trigger. */
static void
scan(struct ctx *c, const char *t, size_t n, long long base)
{
	size_t pos = 0;
	while (pos < n && !c->stop) {
		const unsigned char *u = (const unsigned char *)t;
		size_t hit = c->generic ? lptrig_generic_find(u, n, pos) : lptrig_find(u, n, pos);
		if (hit >= n)
			return;
		const char *ls = memrchr(t + pos, '\n', hit - pos);
		ls = ls ? ls + 1 : t + pos;
		const char *le = memchr(t + hit, '\n', n - hit);
		if (!le)
			le = t + n;
		if (c->generic) {
			set_error(c, ls, (size_t)(le - ls), base + (ls - t));
			c->stop = 1;
		} else {
			on_line(c, ls, (size_t)(le - ls), base + (ls - t));
		}
		pos = (size_t)(le - t) + 1;
	}
}

/* ---- reading -------------------------------------------------------------- */

/* Returns 0, or an errno value when read() failed. */
static int
read_log(struct ctx *c, int fd, char *buf)
{
	size_t have = 0;
	long long base = 0; /* file offset of buf[0] */
	int skipping = 0;
	for (;;) {
		ssize_t got = read(fd, buf + have, BUFSZ - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return errno;
		if (c->stop || (c->generic && c->r->error && base > c->err_off))
			return 0;
		if (got == 0) {
			if (have && !skipping) {
				buf[have] = '\n'; /* a last line without newline */
				scan(c, buf, have + 1, base);
			}
			return 0;
		}
		have += (size_t)got;
		size_t start = 0;
		if (skipping) {
			char *nl = memchr(buf, '\n', have);
			if (!nl) {
				base += (long long)have;
				have = 0;
				continue;
			}
			start = (size_t)(nl - buf) + 1;
			skipping = 0;
		}
		char *last = memrchr(buf + start, '\n', have - start);
		size_t done = last ? (size_t)(last - buf) + 1 : start;
		if (last)
			scan(c, buf + start, done - start, base + (long long)start);
		size_t tail = have - done;
		if (tail > LP_MAX_LINE) {
			c->r->long_lines += !c->generic;
			skipping = 1;
			base += (long long)have;
			have = 0;
			continue;
		}
		memmove(buf, buf + done, tail);
		base += (long long)done;
		have = tail;
	}
}

/* 1-based line number of byte offset off. */
static long
line_of(int fd, char *buf, long long off)
{
	long line = 1;
	long long pos = 0;
	while (pos < off) {
		size_t want = off - pos < BUFSZ ? (size_t)(off - pos) : BUFSZ;
		ssize_t got = pread(fd, buf, want, (off_t)pos);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return 0;
		for (const char *p = buf, *e = buf + got; (p = memchr(p, '\n', (size_t)(e - p))); p++)
			line++;
		pos += got;
	}
	return line;
}

/* ---- results -------------------------------------------------------------- */

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void
stats(struct lp_stats *st, double *v, size_t n)
{
	memset(st, 0, sizeof *st);
	st->n = n;
	if (!n)
		return;
	double sum = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	st->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - st->mean) * (v[i] - st->mean);
	st->std_population = sqrt(ss / (double)n);
	st->std_sample = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	qsort(v, n, sizeof *v, cmp_double);
	st->min = v[0];
	st->max = v[n - 1];
	st->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
window_stats(struct lp_result *r)
{
	double *t = xmalloc((r->nsamples + 1) * sizeof *t);
	double *f = xmalloc((r->nsamples + 1) * sizeof *f);
	size_t nt = 0, nf = 0;
	for (size_t i = 0; i < r->nsamples; i++) {
		const struct lp_sample *s = &r->samples[i];
		if (s->iter < r->win_lo || s->iter > r->win_hi)
			continue;
		r->win_present++;
		if (isfinite(s->time))
			t[nt++] = s->time;
		if (isfinite(s->tflops))
			f[nf++] = s->tflops;
	}
	stats(&r->time, t, nt);
	stats(&r->tflops, f, nf);
	free(t);
	free(f);
}

static void
finish(struct ctx *c)
{
	struct lp_result *r = c->r;
	const struct lp_opts *o = c->o;
	if (c->other_format)
		warn("%s: ignored %zu step line(s) not in %s format", r->path, c->other_format,
		     lp_format_name(r->format));
	if (r->malformed)
		warn("%s: ignored %zu step line(s) without a step time", r->path, r->malformed);
	if (r->long_lines)
		warn("%s: skipped %zu line(s) longer than %d bytes", r->path, r->long_lines, LP_MAX_LINE);
	if (r->dropped)
		warn("%s: kept %d samples outside the window, dropped %zu", r->path, LP_MAX_SAMPLES,
		     r->dropped);
	r->index_base = o->indexing != LP_INDEX_DEFAULT ? (int)o->indexing
		      : r->format == LP_MBRIDGE ? 1 : 0;
	r->steps = o->steps > 0 ? o->steps : c->den >= 0 ? c->den + 1 - r->index_base : LP_DEFAULT_STEPS;
	r->final_iter = r->steps - 1 + r->index_base;
	window_stats(r);
	if (!r->step_lines) {
		r->status = LP_FAILED;
		return;
	}
	size_t want = (size_t)(r->win_hi - r->win_lo + 1);
	if (r->reason)
		r->status = LP_INVALID;
	else if (r->win_present < want || r->last_iter < r->final_iter)
		r->status = LP_INCOMPLETE;
	else
		r->status = o->profiled ? LP_PROFILED : LP_SUCCESS;
	if (r->time_limit && (r->status == LP_INCOMPLETE || c->cancel_iter >= r->final_iter))
		r->note = "time_limit";
}

void
lp_parse_file(const char *path, const struct lp_opts *o, struct lp_result *r)
{
	memset(r, 0, sizeof *r);
	r->path = xstrdup(path);
	r->format = LP_AUTO;
	r->last_iter = -1;
	r->invalid_iter = -1;
	r->peak_mem = NAN;
	r->win_lo = o->win_lo;
	r->win_hi = o->win_hi;
	struct ctx c = {.o = o, .r = r, .den = -1, .pending_tflops = NAN, .await_tflops = -1, .pending_save = -1, .pending_load = -1,
			.cancel_iter = -1, .err_off = -1, .prev_iter = -1, .replay_from = -1};
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int err = fd < 0 ? errno : fstat(fd, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? -1 : 0;
	static char buf[BUFSZ + 1]; /* one log at a time */
	if (!err)
		err = read_log(&c, fd, buf);
	finish(&c);
	if (!err && r->status != LP_SUCCESS && r->status != LP_PROFILED) {
		c.generic = 1;
		if (lseek(fd, 0, SEEK_SET) == 0)
			err = read_log(&c, fd, buf);
	}
	if (!err && r->error)
		r->error_line = line_of(fd, buf, c.err_off);
	if (err) {
		const char *why = err < 0 ? "not a regular file" : strerror(err);
		warn("cannot read '%s': %s", path, why);
		free(r->error);
		r->error = xasprintf("cannot read: %s", why);
		r->error_line = 0;
	}
	if (fd >= 0)
		close(fd);
	if (err)
		r->status = LP_FAILED;
}

void
lp_result_free(struct lp_result *r)
{
	free(r->path);
	free(r->error);
	free(r->samples);
	free(r->ckpts);
	memset(r, 0, sizeof *r);
}

const struct lp_sample *
lp_last(const struct lp_result *r)
{
	return r->nsamples ? &r->samples[r->nsamples - 1] : NULL;
}

static const char *const status_names[] = {
	[LP_SUCCESS] = "success", [LP_INCOMPLETE] = "incomplete", [LP_FAILED] = "failed",
	[LP_INVALID] = "invalid", [LP_PROFILED] = "profiled",
};
static const char *const format_names[] = {
	[LP_AUTO] = "auto", [LP_NEMO2] = "nemo2", [LP_MAXTEXT] = "maxtext", [LP_MBRIDGE] = "mbridge",
};

const char *
lp_status_name(enum lp_status s)
{
	return status_names[s];
}

const char *
lp_format_name(enum lp_format f)
{
	return format_names[f];
}

int
lp_format_parse(const char *s, enum lp_format *f)
{
	for (size_t i = 0; i < sizeof format_names / sizeof *format_names; i++) {
		if (!strcmp(s, format_names[i])) {
			*f = (enum lp_format)i;
			return 0;
		}
	}
	return -1;
}

int
lp_reached_final(const char *path, long steps)
{
	char *needle = xasprintf("iteration %ld/%ld", steps - 1, steps - 1);
	char *needle1 = xasprintf("iteration %8ld/%8ld", steps, steps);
	char *needle2 = xasprintf("completed step: %ld,", steps - 1);
	char *s = read_file(path, NULL);
	int hit = s && (strstr(s, needle) || strstr(s, needle1) || strstr(s, needle2));
	free(s);
	free(needle);
	free(needle1);
	free(needle2);
	return hit;
}
