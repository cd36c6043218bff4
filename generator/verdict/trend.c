/* trend: the nightly trend page, one self-contained HTML file (inline CSS
 * and SVG, no script, no network) drawn from the judge model: per
 * configuration the step time per night with the baseline band, the
 * reference line, invalid nights, change points and confirmed regressions
 * marked, and a table of verdicts. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/jget.h"
#include "base/stats.h"
#include "results/bisectfind.h"
#include "verdict/judge.h"

#define TREND_NIGHTS 120

static const char css[] =
	"body{font:14px sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
	"td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td.l,th.l{text-align:left}\n"
	".CONFIRMED{color:#cf222e;font-weight:bold}.SUSPECT{color:#9a6700;font-weight:bold}.INVALID,.FAILED{color:#8250df}\n"
	".INCONCLUSIVE{color:#57606a}.OK,.NEW{color:#1a7f37}svg{border:1px solid #ddd}svg text{font:11px sans-serif}\n";

static double
gn(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

struct frame {
	double x0, x1, y0, y1, lo, hi;
	size_t n;
};

static double
fx(const struct frame *f, size_t i)
{
	return f->n > 1 ? f->x0 + (f->x1 - f->x0) * (double)i / (double)(f->n - 1) : (f->x0 + f->x1) / 2;
}

static double
fy(const struct frame *f, double v)
{
	v = fmin(fmax(v, f->lo), f->hi);
	return f->y1 - (v - f->lo) / (f->hi - f->lo) * (f->y1 - f->y0);
}

static void
range(const json_t *nights, double ref, struct frame *f)
{
	size_t i;
	json_t *n;
	f->lo = INFINITY, f->hi = -INFINITY;
	json_array_foreach(nights, i, n) {
		double m = gn(n, "mean");
		if (isfinite(m))
			f->lo = fmin(f->lo, m), f->hi = fmax(f->hi, m);
	}
	if (isfinite(ref))
		f->lo = fmin(f->lo, ref), f->hi = fmax(f->hi, ref);
	if (!isfinite(f->lo))
		f->lo = 0, f->hi = 1;
	/* The bands widen the range by at most half the nights' own spread (a
	 * band from two nights can be wide; it is clipped rather than let to
	 * flatten the curve). */
	double span = fmax(f->hi - f->lo, fabs(f->hi) * 0.02), lo = f->lo, hi = f->hi;
	json_array_foreach(nights, i, n) {
		const json_t *b = json_object_get(n, "band");
		if (json_is_array(b)) {
			lo = fmin(lo, fmax(json_number_value(json_array_get(b, 0)), f->lo - span / 2));
			hi = fmax(hi, fmin(json_number_value(json_array_get(b, 1)), f->hi + span / 2));
		}
	}
	f->lo = lo, f->hi = hi;
	double pad = fmax((f->hi - f->lo) * 0.05, fabs(f->hi) * 0.005 + 1e-9);
	f->lo -= pad, f->hi += pad;
}

static void
axes(struct sb *o, const struct frame *f, const json_t *nights)
{
	double first, step;
	stats_ticks(f->lo, f->hi, 6, &first, &step);
	int digits = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	for (double v = first; v <= f->hi + step * 1e-9; v += step) {
		sb_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>", f->x0, fy(f, v), f->x1, fy(f, v));
		sb_addf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n", f->x0 - 4, fy(f, v) + 4, digits, v);
	}
	sb_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>", f->x0, f->y0, f->x0, f->y1);
	sb_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", f->x0, f->y1, f->x1, f->y1);
	size_t every = f->n > 8 ? (f->n + 7) / 8 : 1;
	for (size_t i = 0; i < f->n; i += every)
		sb_addf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", fx(f, i), f->y1 + 16,
			jget_str(json_array_get(nights, i), "night") + 5);
	sb_addf(o, "<text x=\"%.1f\" y=\"14\">step time (s) per night</text>\n", f->x0);
}

/* The baseline band each night was judged against, as one shaded polygon
 * per run of nights that had one. */
static double
band_at(const json_t *n, int hi)
{
	const json_t *b = json_object_get(n, "band");
	return json_is_array(b) ? json_number_value(json_array_get(b, hi)) : NAN;
}

static void
band_poly(struct sb *o, const struct frame *f, const json_t *nights)
{
	for (size_t i = 0; i < f->n;) {
		size_t j = i;
		while (j < f->n && isfinite(band_at(json_array_get(nights, j), 1)))
			j++;
		if (j > i) {
			sb_add(o, "<polygon class=\"band\" fill=\"#d0e4ff\" fill-opacity=\"0.7\" points=\"");
			for (size_t k = i; k < j; k++)
				sb_addf(o, "%.1f,%.1f ", fx(f, k), fy(f, band_at(json_array_get(nights, k), 1)));
			for (size_t k = j; k-- > i;)
				sb_addf(o, "%.1f,%.1f ", fx(f, k), fy(f, band_at(json_array_get(nights, k), 0)));
			sb_add(o, "\"><title>baseline band</title></polygon>\n");
		}
		i = j + 1;
	}
}

static void
marks(struct sb *o, const struct frame *f, const json_t *nights, const char *first_bad)
{
	size_t i;
	json_t *n;
	sb_add(o, "<polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.5\" points=\"");
	json_array_foreach(nights, i, n) if (isfinite(gn(n, "mean"))) sb_addf(o, "%.1f,%.1f ", fx(f, i), fy(f, gn(n, "mean")));
	sb_add(o, "\"/>\n");
	json_array_foreach(nights, i, n) {
		const char *st = jget_str(n, "state"), *night = jget_str(n, "night");
		double x = fx(f, i);
		if (json_is_true(json_object_get(n, "change_point")) || !strcmp(night, first_bad)) {
			const char *cls = !strcmp(night, first_bad) ? "cp first-bad" : "cp";
			sb_addf(o, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#cf222e\" stroke-dasharray=\"4 3\"/>",
				cls, x, f->y0, x, f->y1);
			sb_addf(o, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" fill=\"#cf222e\">%s %s</text>\n", cls, x + 3, f->y0 + 10,
				!strcmp(night, first_bad) ? "first bad night" : "change point", night + 5);
		}
		if (!json_is_true(json_object_get(n, "valid"))) {
			sb_addf(o, "<text class=\"invalid\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#8250df\">&#x2715;<title>%s %s: ", x,
				f->y1 - 4, night, st);
			sb_add_html(o, jget_str(n, "invalid"));
			sb_add(o, "</title></text>\n");
			continue;
		}
		const char *fill = !strcmp(st, "CONFIRMED") || json_is_true(json_object_get(n, "confirmed")) ? "#cf222e"
				   : !strcmp(st, "SUSPECT")                                               ? "#d4a72c"
														  : "#0969da";
		sb_addf(o, "<circle class=\"night %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"><title>%s %s %.4g s</title></circle>\n", st,
			x, fy(f, gn(n, "mean")), strcmp(fill, "#0969da") ? "5" : "3", fill, night, st, gn(n, "mean"));
	}
}

static void
chart(struct sb *o, const json_t *c, const json_t *nights)
{
	double ref = gn(json_object_get(c, "reference"), "step_time");
	struct frame f = {64, 740, 24, 240, 0, 0, json_array_size(nights)};
	if (!f.n)
		return;
	range(nights, ref, &f);
	sb_add(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"780\" height=\"270\" role=\"img\">\n");
	band_poly(o, &f, nights);
	axes(o, &f, nights);
	if (isfinite(ref))
		sb_addf(o, "<line class=\"reference\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1a7f37\" stroke-dasharray=\"8 4\"/><text x=\"%.1f\" y=\"%.1f\" fill=\"#1a7f37\">reference %.4g s</text>\n",
			f.x0, fy(&f, ref), f.x1, fy(&f, ref), f.x1 - 120, fy(&f, ref) - 4, ref);
	marks(o, &f, nights, jget_str(c, "first_bad_night"));
	sb_add(o, "</svg>\n");
}

static void
cell_num(struct sb *o, double v, const char *fmt)
{
	sb_add(o, "<td>");
	if (isfinite(v))
		sb_addf(o, fmt, v);
	sb_add(o, "</td>");
}

static void
night_table(struct sb *o, const json_t *nights)
{
	size_t i;
	json_t *n;
	sb_add(o, "<table><tr><th class=\"l\">night</th><th>runs</th><th>step time (s)</th><th>baseline (s)</th><th>nights</th>"
		  "<th>effect %</th><th class=\"l\">verdict</th><th class=\"l\">state</th><th class=\"l\">notes</th></tr>\n");
	json_array_foreach(nights, i, n) {
		const char *st = jget_str(n, "state");
		sb_addf(o, "<tr><td class=\"l\">%s</td><td>%d</td>", jget_str(n, "night"), (int)json_integer_value(json_object_get(n, "runs")));
		cell_num(o, gn(n, "mean"), "%.4f");
		cell_num(o, gn(n, "baseline"), "%.4f");
		cell_num(o, json_is_integer(json_object_get(n, "baseline_n")) ? (double)json_integer_value(json_object_get(n, "baseline_n")) : NAN, "%.0f");
		cell_num(o, gn(n, "effect_pct"), "%+.1f");
		sb_addf(o, "<td class=\"l\">%s</td><td class=\"l %s\">%s</td><td class=\"l\">", jget_str(n, "verdict"), st, st);
		sb_add_html(o, jget_str(n, "invalid"));
		if (json_is_true(json_object_get(n, "acked")))
			sb_add(o, "acknowledged false alarm ");
		if (json_is_true(json_object_get(n, "mode")))
			sb_add(o, "accepted mode ");
		if (json_is_true(json_object_get(n, "change_point")))
			sb_add(o, "change point ");
		sb_add(o, "</td></tr>\n");
	}
	sb_add(o, "</table>\n");
}

/* The fields of a "changed" object, one line each ("night: " before each
 * when night is given). */
static void
changed_cell(struct sb *o, const json_t *ch, const char *night)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)ch, k, v) {
		const char *a = json_string_value(json_array_get(v, 0)), *b = json_string_value(json_array_get(v, 1));
		if (night)
			sb_add_html(o, night), sb_add(o, ": ");
		sb_add_html(o, k), sb_add(o, ": "), sb_add_html(o, a ? a : "(none)"), sb_add(o, " &rarr; "), sb_add_html(o, b ? b : "(none)"), sb_add(o, "<br>");
	}
}

static void
summary_table(struct sb *o, const json_t *cs)
{
	size_t i;
	json_t *c;
	sb_add(o, "<table><tr><th class=\"l\">configuration</th><th class=\"l\">state</th><th>effect %</th>"
		  "<th class=\"l\">first bad night</th><th class=\"l\">last good night</th><th class=\"l\">changed</th></tr>\n");
	json_array_foreach(cs, i, c) {
		const char *st = jget_str(c, "state");
		sb_addf(o, "<tr><td class=\"l\"><a href=\"#c%zu\">", i);
		sb_add_html(o, jget_str(c, "fingerprint"));
		sb_addf(o, "</a></td><td class=\"l %s\">%s</td>", st, st);
		cell_num(o, gn(json_object_get(c, "verdict_baseline"), "effect_pct"), "%+.1f");
		const json_t *r = json_object_get(c, "first_bad_range");
		sb_addf(o, "<td class=\"l\">%s", jget_str(c, "first_bad_night"));
		/* a bisection covers the nights that may hold it */
		if (r && strcmp(jget_str(r, "from"), jget_str(r, "to")))
			sb_addf(o, "<br>(%s .. %s)", jget_str(r, "from"), jget_str(r, "to"));
		sb_addf(o, "</td><td class=\"l\">%s</td><td class=\"l\">", jget_str(c, "last_good_night"));
		changed_cell(o, json_object_get(c, "changed"), NULL);
		/* and from night to night over that range */
		size_t x;
		json_t *rc;
		json_array_foreach(json_object_get(r, "changed"), x, rc)
			changed_cell(o, json_object_get(rc, "changed"), jget_str(rc, "night"));
		sb_add(o, "</td></tr>\n");
	}
	sb_add(o, "</table>\n");
}

/* A confirmed regression's bisection: where it lies, the culprit with its
 * step times both sides, or why there is none. */
static void
bisection(struct sb *o, const json_t *f)
{
	if (!f)
		return;
	struct sb t = {0};
	bisect_found_text(&t, f, "");
	sb_add(o, "<pre class=\"bisection\">");
	sb_add_html(o, t.buf);
	sb_add(o, "</pre>\n");
	sb_free(&t);
}

void
trend_html(struct sb *o, const json_t *m)
{
	const json_t *cs = json_object_get(m, "configurations"), *c;
	size_t i;
	sb_add(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>llmb nightly ");
	sb_add_html(o, jget_str(m, "night"));
	sb_addf(o, "</title>\n<style>\n%s</style></head><body>\n<h1>llmb nightly %s</h1>\n", css, jget_str(m, "night"));
	summary_table(o, cs);
	json_array_foreach(cs, i, c) {
		const char *st = jget_str(c, "state");
		sb_addf(o, "<h2 id=\"c%zu\">", i);
		sb_add_html(o, jget_str(c, "fingerprint"));
		sb_addf(o, " <span class=\"%s\">%s</span></h2>\n", st, st);
		bisection(o, json_object_get(c, "bisection"));
		/* The page shows the recent nights; the JSON keeps them all. */
		const json_t *all = json_object_get(c, "nights");
		json_t *recent = json_array();
		size_t n = json_array_size(all), from = n > TREND_NIGHTS ? n - TREND_NIGHTS : 0;
		for (size_t k = from; k < n; k++)
			json_array_append(recent, json_array_get(all, k));
		if (from)
			sb_addf(o, "<p>the last %d of %zu nights</p>\n", TREND_NIGHTS, n);
		chart(o, c, recent);
		night_table(o, recent);
		json_decref(recent);
	}
	sb_add(o, "</body></html>\n");
}
