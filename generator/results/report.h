/* report: the performance report as a library (see report.c). */
#ifndef LLMB_REPORT_H
#define LLMB_REPORT_H

/* One report: the runs of a (workload, GPU, size, dtype) found in the
 * experiments directories given to report_build. */
struct report_req {
	const char *top;        /* the checkout: recipes */
	const char *workload, *gpu, *size, *dtype;
	double tolerance;       /* percent, as --tolerance */
	const char *out;        /* write out and out.{txt,md,csv,html}; NULL: print */
	const char *format;     /* printed format: text, md, csv, json or html */
};

/* Builds the report from the runs under dirs. 0, or 2 on errors. */
int report_build(const struct report_req *q, char **dirs, int ndirs);

/* Prints the written report of stage id (report.<w>.<gpu>.<size>.<dtype>)
 * under install in format. 0, or 2 when there is none. */
int report_show(const char *install, const char *id, const char *format);

/* format is one report_build and report_show know. */
int report_format_known(const char *name);

#endif
