/* reporttext: the report's plain formats, rendered from the model: text
 * and Markdown (reportgrid's grids laid out), CSV (one line per scale and
 * metric) and JSON (the model itself). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jget.h"
#include "results/reportgrid.h"
#include "results/reporttext.h"

/* ---- text ---------------------------------------------------------------- */

static void
grid_text(struct sb *o, const struct grid *g)
{
	size_t *w = xcalloc(g->nc, sizeof *w);
	for (size_t i = 0; i < g->nr * g->nc; i++)
		if (g->cell[i] && strlen(g->cell[i]) > w[i % g->nc])
			w[i % g->nc] = strlen(g->cell[i]);
	for (size_t r = 0; r < g->nr; r++) {
		struct sb line = {0};
		for (size_t c = 0; c < g->nc; c++) {
			const char *s = g->cell[r * g->nc + c] ? g->cell[r * g->nc + c] : "";
			sb_addf(&line, c ? "  %*s" : "%-*s", g->right && c ? (int)w[c] : -(int)w[c], s);
		}
		while (line.len && line.buf[line.len - 1] == ' ')
			line.buf[--line.len] = 0;
		sb_addf(o, "%s\n", line.buf);
		sb_free(&line);
	}
	free(w);
}

/* The runs' profiles, by run: listed, never archived unless asked. */
static void
profiles_section(struct sb *o, const json_t *m, int md)
{
	size_t i, j;
	json_t *r, *p;
	int any = 0;
	json_array_foreach(json_object_get(m, "runs"), i, r) {
		json_array_foreach(json_object_get(r, "profiles"), j, p) {
			if (!any++)
				sb_add(o, md ? "\n## Profiles\n\nLeft out of `make archive` unless `ARCHIVE_PROFILES=1`.\n\n"
					     : "\nProfiles (left out of make archive unless ARCHIVE_PROFILES=1)\n");
			sb_addf(o, md ? "- %s/%s (%lld bytes)\n" : "  %s/%s  %lld bytes\n", jget_str(r, "name"),
				jget_str(p, "path"), (long long)json_integer_value(json_object_get(p, "bytes")));
		}
	}
}

/* The runs' checkpoint saves and loads, beside their step time. */
static void
checkpoints_section(struct sb *o, const json_t *m, int md)
{
	size_t i, j;
	json_t *r, *c;
	int any = 0;
	json_array_foreach(json_object_get(m, "runs"), i, r) {
		json_array_foreach(json_object_get(r, "checkpoints"), j, c) {
			if (!any++)
				sb_add(o, md ? "\n## Checkpoints\n\n" : "\nCheckpoints\n");
			json_t *it = json_object_get(c, "iteration");
			char at[48] = "";
			if (json_is_integer(it))
				snprintf(at, sizeof at, " at iteration %lld", (long long)json_integer_value(it));
			double st = report_num(r, "step_time_mean");
			char step[48] = "";
			if (!isnan(st))
				snprintf(step, sizeof step, " (step time %.3f s)", st);
			sb_addf(o, md ? "- %s: %s%s %.3f s%s\n" : "  %s  %s%s  %.3f s%s\n", jget_str(r, "name"),
				jget_str(c, "kind"), at, report_num(c, "seconds"), step);
		}
	}
}

void
report_run_extras(struct sb *o, const json_t *m)
{
	checkpoints_section(o, m, 0);
	profiles_section(o, m, 0);
}

/* Each sweep's table and its best configuration, in one layout. */
static void
report_sweeps(struct sb *o, const json_t *m, void (*lay)(struct sb *, const struct grid *))
{
	size_t i;
	json_t *sw;
	json_array_foreach(json_object_get(m, "sweeps"), i, sw) {
		struct grid g;
		const char *best = json_string_value(json_object_get(sw, "best"));
		sb_addf(o, "\nSweep at %lld GPUs (overridden runs are not compared with the reference)\n",
			(long long)report_num(sw, "scale"));
		grid_sweep(&g, sw);
		lay(o, &g);
		grid_free(&g);
		sb_addf(o, "best: %s\n", best ? best : "none measured");
	}
}

void
report_text(struct sb *o, const json_t *m)
{
	struct grid g;
	grid_title(o, m, "", "");
	sb_addf(o, "tolerance %.1f%%; step time: mean of the runs' means +- std; difference: measured vs reference\n\n",
		report_num(m, "tolerance_pct"));
	if (!json_array_size(json_object_get(m, "columns")))
		sb_add(o, "(no runs yet)\n");
	else {
		grid_metrics(&g, m);
		grid_text(o, &g);
		grid_free(&g);
		if (grid_any_published(m)) {
			sb_add(o, "\nPublished references\n");
			grid_published(o, m, "  ");
		}
	}
	report_sweeps(o, m, grid_text);
	static const char *const sect[] = {"runs", "excluded"};
	for (int s = 0; s < 2; s++) {
		if (!json_array_size(json_object_get(m, sect[s])))
			continue;
		sb_addf(o, "\n%s\n", s ? "Excluded runs" : "Runs");
		grid_runs(&g, json_object_get(m, sect[s]), s);
		grid_text(o, &g);
		grid_free(&g);
	}	checkpoints_section(o, m, 0);
	profiles_section(o, m, 0);
}

/* ---- Markdown ------------------------------------------------------------ */

static void
md_cell(struct sb *o, const char *s)
{
	sb_add(o, " ");
	for (; s && *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '*' || *s == '_' || *s == '`' || *s == '<')
			sb_addc(o, '\\');
		sb_addc(o, *s);
	}
	sb_add(o, " |");
}

static void
grid_md(struct sb *o, const struct grid *g)
{
	for (size_t r = 0; r < g->nr; r++) {
		sb_add(o, "|");
		for (size_t c = 0; c < g->nc; c++)
			md_cell(o, g->cell[r * g->nc + c]);
		sb_add(o, "\n");
		if (r)
			continue;
		sb_add(o, "|");
		for (size_t c = 0; c < g->nc; c++)
			sb_add(o, g->right && c ? "---:|" : "---|");
		sb_add(o, "\n");
	}
}

void
report_md(struct sb *o, const json_t *m)
{
	struct grid g;
	grid_title(o, m, "# ", "");
	sb_addf(o, "\nTolerance %.1f%%. Step time: mean of the runs' means +- std. Difference: measured vs reference.\n\n",
		report_num(m, "tolerance_pct"));
	if (!json_array_size(json_object_get(m, "columns")))
		sb_add(o, "(no runs yet)\n");
	else {
		grid_metrics(&g, m);
		grid_md(o, &g);
		grid_free(&g);
		if (grid_any_published(m)) {
			sb_add(o, "\n## Published references\n\n");
			grid_published(o, m, "- ");
		}
	}
	report_sweeps(o, m, grid_md);
	static const char *const sect[] = {"runs", "excluded"};
	for (int s = 0; s < 2; s++) {
		if (!json_array_size(json_object_get(m, sect[s])))
			continue;
		sb_addf(o, "\n## %s\n\n", s ? "Excluded runs" : "Runs");
		grid_runs(&g, json_object_get(m, sect[s]), s);
		grid_md(o, &g);
		grid_free(&g);
	}	checkpoints_section(o, m, 1);
	profiles_section(o, m, 1);
}

/* ---- CSV: one line per scale and metric ---------------------------------- */

static void
csv_field(struct sb *o, const char *s, int last)
{
	if (strpbrk(s, ",\"\n")) {
		sb_addc(o, '"');
		for (; *s; s++) {
			if (*s == '"')
				sb_addc(o, '"');
			sb_addc(o, *s);
		}
		sb_addc(o, '"');
	} else {
		sb_add(o, s);
	}
	sb_add(o, last ? "\n" : ",");
}

static void
csv_num(struct sb *o, double v)
{
	if (!isnan(v))
		sb_addf(o, "%.10g", v);
	sb_addc(o, ',');
}

static void
csv_jobs(struct sb *o, const json_t *m, const json_t *k)
{
	struct sb j = {0};
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(m, "runs"), i, r)
		if (report_num(r, "scale") == report_num(k, "scale") &&
		    json_is_true(json_object_get(r, "profiled")) == json_is_true(json_object_get(k, "profiled")) &&
		    json_is_true(json_object_get(r, "proxy")) == json_is_true(json_object_get(k, "proxy")) &&
		    json_is_true(json_object_get(r, "unlisted")) == json_is_true(json_object_get(k, "unlisted")) &&
		    !strcmp(jget_str(r, "override"), jget_str(k, "override")))
			sb_addf(&j, "%s%s", j.len ? " " : "", *jget_str(r, "job") ? jget_str(r, "job") : "-");
	csv_field(o, j.buf ? j.buf : "", 1);
	sb_free(&j);
}

void
report_csv(struct sb *o, const json_t *m)
{
	size_t i;
	json_t *k;
	sb_add(o, "workload,gpu,size,dtype,scale,profiled,runs,metric,value,std,min,max,reference,diff_pct,verdict,jobs\n");
	json_array_foreach(json_object_get(m, "columns"), i, k) {
		for (int j = 0; j < RM_N; j++) {
			const json_t *c = json_object_get(json_object_get(k, "metrics"), report_metrics[j].key);
			sb_addf(o, "%s,%s,%s,%s,%lld,%d,%lld,%s,", jget_str(m, "workload"), jget_str(m, "gpu"), jget_str(m, "size"),
				jget_str(m, "dtype"), (long long)report_num(k, "scale"), json_is_true(json_object_get(k, "profiled")),
				(long long)report_num(k, "runs"), report_metrics[j].key);
			csv_num(o, report_num(c, "value"));
			csv_num(o, report_num(c, "std"));
			csv_num(o, report_num(c, "min"));
			csv_num(o, report_num(c, "max"));
			csv_num(o, report_num(c, "reference"));
			csv_num(o, report_num(c, "diff_pct"));
			/* a proxy column says so where a verdict would stand */
			csv_field(o, json_is_true(json_object_get(k, "proxy")) ? "proxy: not compared"
				     : json_is_true(json_object_get(k, "unlisted")) ? "unlisted: not compared" : jget_str(c, "verdict"), 0);
			csv_jobs(o, m, k);
		}
	}
}

/* ---- JSON ---------------------------------------------------------------- */

void
report_json(struct sb *o, const json_t *m)
{
	char *s = json_dumps(m, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	sb_addf(o, "%s\n", s);
	free(s);
}
