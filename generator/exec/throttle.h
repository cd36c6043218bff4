/* throttle: one submission rate shared by every llmb process of an install
 * tree, and the verdict on a failed submission (see throttle.c). */
#ifndef LLMB_THROTTLE_H
#define LLMB_THROTTLE_H

/* Wait for a submission token of the bucket in STATE_DIR (the install
 * tree's state/executor). Returns the seconds waited. */
double throttle_take(const char *state_dir);
/* 1 when sbatch's error text says the controller was only busy or full
 * (worth another try after a while), 0 when it refused the job itself. */
int throttle_transient(const char *err);
/* Seconds to wait before try N (1, 2, ...) of a transient failure. */
double throttle_backoff(int n);
/* How many times a transiently failed submission is tried again. */
int throttle_retries(void);

#endif
