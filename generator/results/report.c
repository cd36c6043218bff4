/* report: the seeds' performance table (see reportmodel.c for what it
 * measures and how runs are aggregated) in five formats: text, Markdown,
 * CSV, JSON and one self-contained HTML page, each rendered from the one
 * model (reporttext.c, reporthtml.c). With --out=FILE.json the report
 * stage writes all five: FILE.json itself and FILE.json.txt, .md, .csv,
 * .html beside it; --show prints one of them back. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "results/report.h"
#include "results/reporthtml.h"
#include "results/reportmodel.h"
#include "results/reporttext.h"
#include "store/layout.h"

/* ---- formats and files ---------------------------------------------------- */

static const struct format {
	const char *name, *ext;   /* ext appended to --out; NULL: --out itself */
	void (*render)(struct sb *, const json_t *);
} formats[] = {
	{"text", "txt", report_text},
	{"md", "md", report_md},
	{"csv", "csv", report_csv},
	{"json", NULL, report_json},
	{"html", "html", report_html},
};
#define NFORMATS (sizeof formats / sizeof *formats)

static const struct format *
format_find(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

static char *
format_path(const struct format *f, const char *out)
{
	return f->ext ? xasprintf("%s.%s", out, f->ext) : xstrdup(out);
}

static int
write_all(const json_t *m, const char *out)
{
	int rc = 0;
	for (size_t i = 0; i < NFORMATS && !rc; i++) {
		struct sb s = {0};
		char *path = format_path(&formats[i], out);
		formats[i].render(&s, m);
		if (write_file_atomic(path, s.buf, s.len) < 0) {
			fprintf(stderr, "llmb report: error: cannot write %s\n", path);
			rc = 2;
		}
		free(path);
		sb_free(&s);
	}
	return rc;
}

int
report_format_known(const char *name)
{
	return format_find(name) != NULL;
}

int
report_build(const struct report_req *q, char **dirs, int ndirs)
{
	const struct format *fmt = format_find(q->format);
	const char *out = q->out;
	json_t *m = report_model(q->top, q->workload, q->gpu, q->size, q->dtype, q->tolerance, dirs, ndirs);
	int rc = m ? 0 : 2;
	if (m && out) {
		rc = write_all(m, out);
	} else if (m) {
		struct sb s = {0};
		fmt->render(&s, m);
		fputs(s.buf, stdout);
		sb_free(&s);
	}
	json_decref(m);
	return rc;
}

/* llmb report --show [--format=F] --install DIR REPORT-ID: prints a written
 * report; the id is report.<workload>.<gpu>.<size>.<dtype>. The workload's
 * name may hold dots (llama3.1), so the last three fields are the run's. */
int
report_show(const char *install, const char *id, const char *format)
{
	const struct format *fmt = format_find(format);
	char w[128], rest[256];
	const char *p = strchr(id, '.'), *cut = id + strlen(id);
	for (int dots = 0; p && cut > p && dots < 3; cut--)
		dots += cut[-1] == '.';
	/* cut is at the third dot from the end, unless there are fewer */
	size_t wn = p ? (size_t)(cut - p - 1) : 0;
	if (!p || cut <= p + 1 || wn >= sizeof w || strlen(cut + 1) >= sizeof rest) {
		fprintf(stderr, "llmb report: error: %s is not a report stage\n", id);
		return 2;
	}
	memcpy(w, p + 1, wn);
	w[wn] = 0;
	strcpy(rest, cut + 1);
	for (char *c = rest; *c; c++)
		if (*c == '.')
			*c = '_';
	char *name = xasprintf("%s.json", rest), *out = layout_report(install, w, name);
	free(name);
	char *path = format_path(fmt, out), *s = read_file(path, NULL);
	int rc = 0;
	if (!s) {
		fprintf(stderr, "llmb report: error: no report at %s\n", path);
		rc = 2;
	} else {
		fputs(s, stdout);
		if (!strcmp(fmt->name, "text"))
			printf("(written to %s; also .json .md .csv .html)\n", path);
	}
	free(s);
	free(path);
	free(out);
	return rc;
}
