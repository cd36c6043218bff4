/* jobnote: the note a job leaves for its run record. The job writes one
 * line, whole (tmp + rename), to <state>/note.<job> (the node setup step:
 * whether vboost was applied); llmb run adds it to the note of the run's
 * train.done and of its stamp. */

/* The job's note, one line of printable text, or NULL when it left none:
 * what llmb run noted at its submission, then what the job wrote. The
 * caller frees it. */
char *jobnote_read(const char *state_dir, const char *job);

/* Notes text (one line) for the job at its submission, atomically; 0 or -1. */
int jobnote_submit(const char *state_dir, const char *job, const char *text);

/* "a; b", "a", "b" or NULL; the caller frees it. */
char *jobnote_join(const char *a, const char *b);
