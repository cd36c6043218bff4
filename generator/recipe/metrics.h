/* metrics: the derived performance metrics, one formula each, as the
 * upstream recipe READMEs define them. Pure arithmetic on doubles; a
 * quantity that cannot be computed (no FLOPs, no peak) is NAN. */
#ifndef LLMB_METRICS_H
#define LLMB_METRICS_H

#define METRICS_TOKENS_DEFAULT 1e12     /* "time to train 1T tokens" */

struct metrics {
	double tokens_per_s;            /* seq * gbs / step_time */
	double tokens_per_s_per_gpu;    /* tokens_per_s / gpus */
	double tflops_per_gpu;          /* gbs * model_flops / step_time / gpus / 1e12 */
	double mfu_pct;                 /* 100 * gbs * model_flops / step_time / gpus / peak */
	double days;                    /* tokens / tokens_per_s / 86400 */
};

/* Fills m. model_flops is per sample (gbs = 1); peak_tflops is the dense
 * peak of one GPU in the run's dtype; either may be 0 (unknown), which
 * makes tflops_per_gpu / mfu_pct NAN. */
void metrics_compute(struct metrics *m, double seq, double gbs, double step_time,
		     double gpus, double model_flops, double peak_tflops, double tokens);

double metric_tokens_per_s(double seq, double gbs, double step_time);
double metric_tflops_per_gpu(double gbs, double model_flops, double step_time, double gpus);
double metric_mfu_pct(double gbs, double model_flops, double step_time, double gpus, double peak_tflops);
double metric_days(double tokens, double tokens_per_s);

#endif
