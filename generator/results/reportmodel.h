/* reportmodel: the report's model, one JSON object built from the runs of
 * a (workload, GPU, size, dtype) (see reportmodel.c), with what its
 * renderers need to read it: the metric rows and two accessors. */
#ifndef LLMB_REPORTMODEL_H
#define LLMB_REPORTMODEL_H

#include <jansson.h>

/* The metric rows, in the seeds' order: the model's "metrics" keys. */
enum { RM_STEP, RM_TOK, RM_TOKGPU, RM_TFLOPS, RM_MFU, RM_DAYS, RM_N };
struct report_metric {
	const char *key, *label, *fmt;  /* model key, row label, printf format of a value */
	int lower;                      /* a lower value is faster */
};
extern const struct report_metric report_metrics[RM_N];

/* Member key of o as a number, NAN when missing or not a number. */
double report_num(const json_t *o, const char *key);

/* The model of the runs under dirs (experiments directories) for workload,
 * gpu, size and dtype of the recipes under top, compared with tolerance
 * (percent). NULL, with a message on stderr, when the recipes do not load
 * or know no such workload or GPU type. Release with json_decref. */
json_t *report_model(const char *top, const char *workload, const char *gpu, const char *size, const char *dtype,
		     double tolerance, char **dirs, int ndirs);

#endif
