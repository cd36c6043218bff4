/* metrics: derived metrics from a step time (`llmb metrics` is cmd_metrics.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/metrics.h"

double
metric_tokens_per_s(double seq, double gbs, double step_time)
{
	return seq * gbs / step_time;
}

double
metric_tflops_per_gpu(double gbs, double model_flops, double step_time, double gpus)
{
	return model_flops > 0 ? gbs * model_flops / step_time / gpus / 1e12 : NAN;
}

double
metric_mfu_pct(double gbs, double model_flops, double step_time, double gpus, double peak_tflops)
{
	if (!(model_flops > 0) || !(peak_tflops > 0))
		return NAN;
	return 100 * gbs * model_flops / step_time / gpus / (peak_tflops * 1e12);
}

double
metric_days(double tokens, double tokens_per_s)
{
	return tokens / tokens_per_s / 86400;
}

void
metrics_compute(struct metrics *m, double seq, double gbs, double step_time,
		double gpus, double model_flops, double peak_tflops, double tokens)
{
	m->tokens_per_s = metric_tokens_per_s(seq, gbs, step_time);
	m->tokens_per_s_per_gpu = m->tokens_per_s / gpus;
	m->tflops_per_gpu = metric_tflops_per_gpu(gbs, model_flops, step_time, gpus);
	m->mfu_pct = metric_mfu_pct(gbs, model_flops, step_time, gpus, peak_tflops);
	m->days = metric_days(tokens, m->tokens_per_s);
}
