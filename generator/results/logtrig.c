/* logtrig: see logtrig.h. */
#define _GNU_SOURCE /* memmem */
#include <string.h>

#include "results/logtrig.h"

/* Lines worth parsing: a line is handed to on_line() when it contains one of
 * these. All are at least WM_M bytes long, which is what makes the scan
 * fast; the short, generic error words ("Error", "error:") are looked for
 * in a second pass, only in logs that did not succeed. */
static const struct trig {
	const char *s;
	enum lptrig_kind kind;
} trig[] = {
	{"train_step_timing in s:", LPT_STEP},
	{"completed step:", LPT_STEP},
	{"GPU utilization:", LPT_STEP}, /* mbridge "Step Time : ..." */
	{"elapsed time per iteration (ms):", LPT_STEP},
	{"Global Checkpoint Save", LPT_CKPT},
	{"Global Checkpoint Load", LPT_CKPT},
	{"successfully saved checkpoint", LPT_CKPT},
	{"successfully loaded checkpoint", LPT_CKPT}, /* mbridge: the iteration loaded */
	{"save-checkpoint", LPT_CKPT},
	{"load-checkpoint", LPT_CKPT},
	{"CANCELLED AT 20", LPT_CANCEL},
	{"Watchdog caught collective operation timeout", LPT_ERROR},
	{"expecting 1 got 0", LPT_ERROR},
	{"Traceback (most recent call last)", LPT_ERROR},
	{"CUDA out of memory", LPT_ERROR},
	{"Segmentation fault", LPT_ERROR},
};
#define NTRIG (sizeof trig / sizeof *trig)
static const char *const generic_errors[] = {"Error", "error:", "ERROR"};

/* Wu-Manber tables over hashed 3-byte blocks of the first WM_M bytes of
 * each trigger: shift[] says how far the scan may jump, head[]/next[] list
 * the triggers whose prefix ends in a given block. */
#define WM_M 15
#define WM_BITS 14
static unsigned char wm_shift[1 << WM_BITS];
static signed char wm_head[1 << WM_BITS];
static signed char wm_next[NTRIG];
static size_t trig_len[NTRIG];
static int wm_ready;

static unsigned
blk(const unsigned char *p)
{
	return ((unsigned)p[0] << 7 ^ (unsigned)p[1] << 4 ^ p[2]) & ((1u << WM_BITS) - 1);
}

static void
wm_init(void)
{
	memset(wm_shift, WM_M - 2, sizeof wm_shift);
	memset(wm_head, -1, sizeof wm_head);
	for (size_t i = 0; i < NTRIG; i++) {
		const unsigned char *s = (const unsigned char *)trig[i].s;
		trig_len[i] = strlen(trig[i].s);
		for (int j = 2; j < WM_M; j++) {
			unsigned h = blk(s + j - 2);
			if (wm_shift[h] > WM_M - 1 - j)
				wm_shift[h] = (unsigned char)(WM_M - 1 - j);
		}
		unsigned h = blk(s + WM_M - 3);
		wm_next[i] = wm_head[h];
		wm_head[h] = (signed char)i;
	}
	wm_ready = 1;
}

/* Does a trigger start at t[st] (its prefix ends in block h)? */
static int
wm_verify(const unsigned char *t, size_t n, size_t st, unsigned h)
{
	for (int k = wm_head[h]; k >= 0; k = wm_next[k]) {
		size_t len = trig_len[k];
		if (st + len <= n && !memcmp(t + st, trig[k].s, len))
			return 1;
	}
	return 0;
}

/* Offset of the first trigger starting in t[from, to), or n; the scan may
 * look at bytes up to n. */
static size_t
wm_find1(const unsigned char *t, size_t n, size_t from, size_t to)
{
	size_t pos = from + WM_M - 1, lim = to + WM_M - 1 < n ? to + WM_M - 1 : n;
	while (pos < lim) {
		unsigned h = blk(t + pos - 2);
		unsigned s = wm_shift[h];
		if (s) {
			pos += s;
		} else {
			if (wm_verify(t, n, pos - (WM_M - 1), h))
				return pos - (WM_M - 1);
			pos++;
		}
	}
	return n;
}

/* Each step of a
 * Wu-Manber scan waits for the table load of the step before, so big
 * regions are cut in WM_K slices scanned in lockstep: independent chains
 * the CPU overlaps. The first slice with a hit that follows only slices
 * without one has the first trigger. */
#define WM_K 8
size_t
lptrig_find(const unsigned char *t, size_t n, size_t from)
{
	if (!wm_ready)
		wm_init();
	if (n - from < 65536)
		return wm_find1(t, n, from, n);
	size_t pos[WM_K], lim[WM_K], hit[WM_K], slice = (n - from) / WM_K;
	for (int k = 0; k < WM_K; k++) {
		size_t to = k == WM_K - 1 ? n : from + (size_t)(k + 1) * slice;
		pos[k] = from + (size_t)k * slice + WM_M - 1;
		lim[k] = to + WM_M - 1 < n ? to + WM_M - 1 : n;
		hit[k] = n;
	}
	int first = 0;
	for (;;) {
		for (int k = 0; k < WM_K; k++) {
			if (pos[k] >= lim[k])
				continue;
			unsigned h = blk(t + pos[k] - 2);
			unsigned s = wm_shift[h];
			if (s) {
				pos[k] += s;
			} else if (wm_verify(t, n, pos[k] - (WM_M - 1), h)) {
				hit[k] = pos[k] - (WM_M - 1);
				pos[k] = lim[k];
			} else {
				pos[k]++;
			}
		}
		while (first < WM_K && pos[first] >= lim[first]) {
			if (hit[first] < n)
				return hit[first];
			first++;
		}
		if (first == WM_K)
			return n;
	}
}

size_t
lptrig_generic_find(const unsigned char *t, size_t n, size_t from)
{
	size_t best = n;
	for (size_t i = 0; i < sizeof generic_errors / sizeof *generic_errors; i++) {
		const char *g = generic_errors[i];
		const unsigned char *p = memmem(t + from, best - from, g, strlen(g));
		if (p)
			best = (size_t)(p - t);
	}
	return best;
}

int
lptrig_has(const char *l, size_t n, enum lptrig_kind kind)
{
	for (size_t i = 0; i < NTRIG; i++)
		if (trig[i].kind == kind && memmem(l, n, trig[i].s, strlen(trig[i].s)))
			return 1;
	return 0;
}
