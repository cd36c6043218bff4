/* reporthtml: the report as one self-contained HTML page: inline CSS,
 * the metrics table with references and verdicts, SVG charts of step time
 * per iteration, tokens/s per scale and each sweep's tokens/s/GPU per
 * configuration, the runs tables and each run's
 * provenance. Its own module because the page and its charts are most of
 * the rendering code and share nothing with the plain formats but the
 * cells. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jget.h"
#include "results/provhtml.h"
#include "results/reportgrid.h"
#include "results/reporthtml.h"
#include "results/reporttext.h"

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#e377c2"};
#define NPAL (sizeof palette / sizeof *palette)

static const char html_css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}\n"
	"table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px;vertical-align:top}\n"
	"th{background:#f3f3f3}td.n{text-align:right;white-space:nowrap}td.l{font-family:monospace;font-size:12px;word-break:break-all}\n"
	".ref{color:#666;font-size:12px}.within{color:#1a7f37}.faster{color:#0550ae;font-weight:bold}\n"
	".slower{color:#cf222e;font-weight:bold}.prof{background:#fff8e1}svg{border:1px solid #ddd;margin:0.5em 1em 0.5em 0}\n"
	"svg text{font:11px sans-serif}\n";

static void
html_cell(struct sb *o, int i, const json_t *k)
{
	const json_t *c = json_object_get(json_object_get(k, "metrics"), report_metrics[i].key);
	char *v = grid_value_cell(i, c), *d = grid_diff_cell(k, c);
	const char *vd = jget_str(c, "verdict");
	int proxy = json_is_true(json_object_get(k, "proxy"));
	sb_addf(o, "<td class=\"n%s\">", proxy || json_is_true(json_object_get(k, "profiled")) ? " prof" : "");
	sb_add_html(o, v);
	if (!isnan(report_num(c, "reference"))) {
		sb_addf(o, "<br><span class=\"ref\">ref %.6g</span><br><span class=\"%s\">", report_num(c, "reference"),
			!strcmp(vd, "within tolerance") ? "within" : vd);
		sb_add_html(o, d);
		sb_add(o, "</span>");
	} else if (json_object_get(k, "override")) {
		sb_add(o, "<br><span class=\"ref\">override: not compared</span>");
	} else if (proxy) {
		sb_add(o, "<br><span class=\"ref\">proxy: not compared</span>");
	} else if (json_is_true(json_object_get(k, "unlisted"))) {
		sb_add(o, "<br><span class=\"ref\">unlisted: not compared</span>");
	} else if (json_is_true(json_object_get(k, "profiled"))) {
		sb_add(o, "<br><span class=\"ref\">profiled: not compared</span>");
	}
	sb_add(o, "</td>");
	free(v);
	free(d);
}

static void
html_table(struct sb *o, const json_t *m)
{
	const json_t *cols = json_object_get(m, "columns");
	size_t j;
	json_t *k;
	sb_add(o, "<table id=\"metrics\">\n<tr><th>GPUs</th>");
	json_array_foreach(cols, j, k) {
		char *h = grid_col_head(k);
		sb_add(o, "<th>");
		sb_add_html(o, h);
		sb_addf(o, "<br><span class=\"ref\">%lld run%s</span></th>", (long long)report_num(k, "runs"),
			report_num(k, "runs") == 1 ? "" : "s");
		free(h);
	}
	sb_add(o, "</tr>\n");
	for (int i = 0; i < RM_N; i++) {
		sb_add(o, "<tr><th>");
		sb_add_html(o, report_metrics[i].label);
		sb_add(o, "</th>");
		json_array_foreach(cols, j, k)
			html_cell(o, i, k);
		sb_add(o, "</tr>\n");
	}
	sb_add(o, "</table>\n");
}

static void
html_grid(struct sb *o, const struct grid *g, const char *id)
{
	sb_addf(o, "<table id=\"%s\">\n", id);
	for (size_t r = 0; r < g->nr; r++) {
		sb_add(o, "<tr>");
		for (size_t c = 0; c < g->nc; c++) {
			sb_add(o, r ? (c == g->nc - 1 ? "<td class=\"l\">" : "<td>") : "<th>");
			sb_add_html(o, g->cell[r * g->nc + c]);
			sb_add(o, r ? "</td>" : "</th>");
		}
		sb_add(o, "</tr>\n");
	}
	sb_add(o, "</table>\n");
}

/* Chart frame: plot area x0..x1, y0..y1 in pixels. */
struct frame {
	double x0, x1, y0, y1;  /* pixels */
	double lo, hi;          /* y data range */
};

static double
fy(const struct frame *f, double v)
{
	return f->y1 - (v - f->lo) / (f->hi - f->lo) * (f->y1 - f->y0);
}

static void
tick(struct sb *o, double v)
{
	if (fabs(v) >= 1e6)
		sb_addf(o, "%.3gM", v / 1e6);
	else if (fabs(v) >= 1e4)
		sb_addf(o, "%.3gk", v / 1e3);
	else
		sb_addf(o, "%.4g", v);
}

static void
y_axis(struct sb *o, const struct frame *f, const char *label)
{
	for (int t = 0; t <= 4; t++) {
		double v = f->lo + (f->hi - f->lo) * t / 4, y = fy(f, v);
		sb_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>", f->x0, y, f->x1, y);
		sb_addf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", f->x0 - 4, y + 4);
		tick(o, v);
		sb_add(o, "</text>\n");
	}
	sb_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>", f->x0, f->y0, f->x0, f->y1);
	sb_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>", f->x0, f->y1, f->x1, f->y1);
	sb_addf(o, "<text x=\"%.1f\" y=\"14\">", f->x0);
	sb_add_html(o, label);
	sb_add(o, "</text>\n");
}

/* Range of step times and iterations over every run's samples. */
static int
sample_range(const json_t *runs, double *lo, double *hi, double *imin, double *imax)
{
	size_t i, j;
	json_t *r, *s;
	int any = 0;
	*lo = *imin = INFINITY;
	*hi = *imax = -INFINITY;
	json_array_foreach(runs, i, r) json_array_foreach(json_object_get(r, "samples"), j, s) {
		double it = json_number_value(json_array_get(s, 0));
		*imin = fmin(*imin, it), *imax = fmax(*imax, it);
		any = 1;
	}
	/* The y range leaves out the first tenth (warm-up); slower steps are clipped. */
	json_array_foreach(runs, i, r) json_array_foreach(json_object_get(r, "samples"), j, s) {
		double it = json_number_value(json_array_get(s, 0)), t = json_number_value(json_array_get(s, 1));
		if (it >= *imin + (*imax - *imin) / 10)
			*lo = fmin(*lo, t), *hi = fmax(*hi, t);
	}
	if (!isfinite(*lo))
		*lo = *hi = 0;
	*lo -= 0.05 * (*hi - *lo), *hi += 0.05 * (*hi - *lo);
	if (*hi - *lo < 1e-9 * fabs(*hi) + 1e-12)
		*lo -= 0.05 * fabs(*lo) + 1e-3, *hi += 0.05 * fabs(*hi) + 1e-3;
	if (*imax <= *imin)
		*imax = *imin + 1;
	return any;
}

static void
legend(struct sb *o, double x, double y, const char *color, const char *label)
{
	sb_addf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">",
		x, y - 9, color, x + 14, y);
	sb_add_html(o, label);
	sb_add(o, "</text>\n");
}

static void
step_chart(struct sb *o, const json_t *m)
{
	const json_t *runs = json_object_get(m, "runs");
	double lo, hi, imin, imax;
	struct frame f = {60, 560, 24, 270, 0, 0};
	size_t i, j;
	json_t *r, *s;
	if (!sample_range(runs, &lo, &hi, &imin, &imax))
		return;
	f.lo = lo, f.hi = hi;
	sb_add(o, "<svg id=\"step-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"880\" height=\"300\" role=\"img\">\n");
	y_axis(o, &f, "step time (s) per iteration");
	sb_addf(o, "<text x=\"%.1f\" y=\"290\" text-anchor=\"middle\">iteration %.0f..%.0f</text>\n", (f.x0 + f.x1) / 2, imin, imax);
	json_array_foreach(runs, i, r) {
		const char *color = palette[i % NPAL];
		sb_addf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", color);
		json_array_foreach(json_object_get(r, "samples"), j, s) {
			double it = json_number_value(json_array_get(s, 0)), t = json_number_value(json_array_get(s, 1));
			sb_addf(o, "%s%.1f,%.1f", j ? " " : "", f.x0 + (it - imin) / (imax - imin) * (f.x1 - f.x0),
				fy(&f, fmin(fmax(t, f.lo), f.hi)));
		}
		sb_add(o, "\"/>\n");
		char *lab = xasprintf("%lld GPUs: %s", (long long)report_num(r, "scale"), jget_str(r, "name"));
		legend(o, 572, 40 + 16 * (double)i, color, lab);
		free(lab);
	}
	sb_add(o, "</svg>\n");
}

/* A bar of value v; cls, when not NULL, its class (what a reader or a
 * test finds it by). */
static void
bar(struct sb *o, const struct frame *f, double x, double w, double v, const char *color, const char *cls)
{
	if (isnan(v))
		return;
	double y = fy(f, v);
	sb_addf(o, "<rect%s%s%s x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%.6g</title></rect>\n",
		cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "", x, y, w, f->y1 - y, color, v);
}

static void
tokens_chart(struct sb *o, const json_t *m)
{
	const json_t *cols = json_object_get(m, "columns");
	size_t n = json_array_size(cols), i;
	json_t *k;
	struct frame f = {70, 560, 24, 260, 0, 0};
	json_array_foreach(cols, i, k) {
		const json_t *c = json_object_get(json_object_get(k, "metrics"), "tokens_per_s");
		double v = report_num(c, "value"), ref = report_num(c, "reference");
		f.hi = fmax(f.hi, fmax(isnan(v) ? 0 : v, isnan(ref) ? 0 : ref));
	}
	if (!n || !(f.hi > 0))
		return;
	f.hi *= 1.1;
	double slot = (f.x1 - f.x0) / (double)n;
	sb_add(o, "<svg id=\"tokens-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"880\" height=\"300\" role=\"img\">\n");
	y_axis(o, &f, "tokens/s per scale");
	json_array_foreach(cols, i, k) {
		const json_t *c = json_object_get(json_object_get(k, "metrics"), "tokens_per_s");
		double x = f.x0 + slot * (double)i + slot * 0.1, w = slot * 0.4;
		bar(o, &f, x, w, report_num(c, "value"), palette[0], NULL);
		bar(o, &f, x + w, w, report_num(c, "reference"), "#aaa", NULL);
		char *h = grid_col_head(k);
		sb_addf(o, "<text x=\"%.1f\" y=\"278\" text-anchor=\"middle\">", x + w);
		sb_add_html(o, h);
		sb_add(o, "</text>\n");
		free(h);
	}
	legend(o, 572, 40, palette[0], "measured");
	legend(o, 572, 56, "#aaa", "reference");
	sb_add(o, "</svg>\n");
}

/* A sweep's tokens/s/GPU, a bar per configuration (GBS may differ between
 * them: step time alone would not rank them), the best in its own colour;
 * a configuration without a measurement keeps its slot, labelled so. */
static void
sweep_chart(struct sb *o, const json_t *sw, const char *id)
{
	const json_t *rows = json_object_get(sw, "rows");
	const char *best = json_string_value(json_object_get(sw, "best"));
	size_t n = json_array_size(rows), i;
	json_t *r;
	struct frame f = {70, 560, 24, 260, 0, 0};
	json_array_foreach(rows, i, r) {
		double v = report_num(r, "tokens_per_s_per_gpu");
		f.hi = fmax(f.hi, isnan(v) ? 0 : v);
	}
	if (!n || !(f.hi > 0))
		return;
	f.hi *= 1.1;
	double slot = (f.x1 - f.x0) / (double)n;
	sb_addf(o, "<svg id=\"%s-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"880\" height=\"300\" role=\"img\">\n", id);
	y_axis(o, &f, "tokens/s/GPU per configuration");
	json_array_foreach(rows, i, r) {
		const char *cfg = jget_str(r, "config");
		int is_best = best && !strcmp(best, cfg);
		double x = f.x0 + slot * (double)i + slot * 0.15, w = slot * 0.7,
		       v = report_num(r, "tokens_per_s_per_gpu");
		bar(o, &f, x, w, v, is_best ? palette[2] : palette[0], is_best ? "sweep-bar best" : "sweep-bar");
		if (isnan(v))
			sb_addf(o, "<text class=\"unmeasured\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">not measured</text>\n",
				x + w / 2, f.y1 - 4);
		sb_addf(o, "<text x=\"%.1f\" y=\"278\" text-anchor=\"middle\">", x + w / 2);
		sb_add_html(o, cfg);
		sb_add(o, "</text>\n");
	}
	legend(o, 572, 40, palette[2], "best");
	legend(o, 572, 56, palette[0], "other configurations");
	sb_add(o, "</svg>\n");
}

void
report_html(struct sb *o, const json_t *m)
{
	static const char *const sect[] = {"runs", "excluded"};
	struct grid g;
	sb_add(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
	grid_title(o, m, "<title>", "</title>");
	sb_addf(o, "<style>\n%s</style></head>\n<body>\n", html_css);
	grid_title(o, m, "<h1>", "</h1>");
	sb_addf(o, "<p>Tolerance %.1f%%. Step time: mean of the runs' means &plusmn; std. Beside each value: the "
		"published reference and the difference.</p>\n", report_num(m, "tolerance_pct"));
	if (!json_array_size(json_object_get(m, "columns")))
		sb_add(o, "<p>(no runs yet)</p>\n");
	else
		html_table(o, m);
	if (grid_any_published(m)) {
		struct sb t = {0};
		grid_published(&t, m, "");
		sb_add(o, "<h2>Published references</h2>\n<pre>");
		sb_add_html(o, t.buf);
		sb_add(o, "</pre>\n");
		sb_free(&t);
	}
	sb_add(o, "<div>\n");
	step_chart(o, m);
	tokens_chart(o, m);
	sb_add(o, "</div>\n");
	size_t i;
	json_t *sw;
	json_array_foreach(json_object_get(m, "sweeps"), i, sw) {
		const char *best = json_string_value(json_object_get(sw, "best"));
		char *id = xasprintf("sweep-%lld", (long long)report_num(sw, "scale"));
		sb_addf(o, "<h2>Sweep at %lld GPUs</h2>\n<p>Overridden runs are not compared with the reference. Best: ",
			(long long)report_num(sw, "scale"));
		sb_add_html(o, best ? best : "none measured");
		sb_add(o, "</p>\n");
		grid_sweep(&g, sw);
		html_grid(o, &g, id);
		grid_free(&g);
		sweep_chart(o, sw, id);
		free(id);
	}
	for (int s = 0; s < 2; s++) {
		if (!json_array_size(json_object_get(m, sect[s])))
			continue;
		sb_addf(o, "<h2>%s</h2>\n", s ? "Excluded runs" : "Runs");
		grid_runs(&g, json_object_get(m, sect[s]), s);
		html_grid(o, &g, sect[s]);
		grid_free(&g);
	}
	struct sb ex = {0};
	report_run_extras(&ex, m);
	if (ex.len) {
		sb_add(o, "<h2>Checkpoints and profiles</h2>\n<pre>");
		sb_add_html(o, ex.buf + 1); /* past the blank line that parts text sections */
		sb_add(o, "</pre>\n");
	}
	sb_free(&ex);
	prov_html(o, json_object_get(m, "runs"), json_object_get(m, "excluded"));
	sb_add(o, "</body></html>\n");
}
