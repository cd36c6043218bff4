/* layout: the install tree (LLMB_INSTALL), the generated tree (LLMB_GEN)
 * and the path placeholders of recipes, named in one place. Everything
 * that builds a path into those trees asks here.
 *
 *   <gen>/cfg/<id>                          stage configuration (stagecfg)
 *   <install>/state/done/<id>               done stamp: cfg=<hash>, job=...
 *   <install>/state/stamped/<id>/<hash12>   a link to it named by its configuration: what make looks at
 *   <install>/state/id/<id>                 identity: the hash dependents' stamps record
 *   <install>/state/jobs/<id>/record        job record: token, job, state, ...
 *   <install>/state/jobs/<id>/job.<token>.sh, exit.<job>, <job>.out   submitted script, exit status, output
 *   <install>/state/executor/               executor caches (squeue/sacct, limits)
 *   <install>/images/<stem>.sqsh            container images
 *   <install>/workloads/<w>/experiments/<run>/{train.done,result.json,log}
 *   <install>/workloads/<w>/reports/<name>  report JSON
 *   <install>/history/<fingerprint>.jsonl   nightly history, one file per configuration
 *   <install>/nightly/<night>/<file>        a night's summary, verdict, status, ...
 *   <install>/workloads/<w>/experiments/exemplar/<run>/repeat-<r>/   an exemplar suite's runs
 *   <install>/exemplar/<file>               the certification (certification.txt, .json)
 *   <archive>/{MANIFEST,sysdesc.json}       what llmb archive adds to the results it packs
 *   <gen>/rules.mk, <gen>/valid.mk          the make rules, the outputs that do not validate
 *
 * base is the tree's root; a NULL base gives the path relative to it (the
 * outputs a plan lists are install-relative). Every function returns a
 * string to free. */
#ifndef LLMB_LAYOUT_H
#define LLMB_LAYOUT_H

#include <stddef.h>

/* Defaults a recipe may leave out (measure: steps, window), named once:
 * the training steps of a run and the iterations averaged, as upstream's
 * parsers count them. The _STR forms are the same numbers as text. */
#define LAYOUT_STEPS_DEFAULT 50
#define LAYOUT_WINDOW_FIRST 35
#define LAYOUT_WINDOW_LAST 44
#define LAYOUT_STR_(x) #x
#define LAYOUT_STR(x) LAYOUT_STR_(x)
#define LAYOUT_STEPS_DEFAULT_STR LAYOUT_STR(LAYOUT_STEPS_DEFAULT)
#define LAYOUT_WINDOW_DEFAULT LAYOUT_STR(LAYOUT_WINDOW_FIRST) "-" LAYOUT_STR(LAYOUT_WINDOW_LAST)

/* Files a finished training run leaves in its experiment directory. */
#define LAYOUT_TRAIN_DONE "train.done"
#define LAYOUT_RESULT "result.json"
#define LAYOUT_PROVENANCE "provenance.json"
/* written last by a venv job (templates/venv.m4): a half-built venv has none */
#define LAYOUT_VENV_DONE "llmb-venv.txt"
/* a venv of the install tree (NULL: the path within it), by the hash of
 * its dependency set */
char *layout_venv(const char *install, const char *hash12);

/* An archive of an install tree's results (llmb archive): its first member,
 * the list of members with their sha256, and the system description. */
#define LAYOUT_ARCHIVE_MANIFEST "MANIFEST"
#define LAYOUT_ARCHIVE_SYSDESC "sysdesc.json"
#define LAYOUT_ARCHIVE_RUNCONFIG "configuration.json"  /* per run, from its provenance */
/* Its default file name, before the compressor's suffix. */
#define LAYOUT_ARCHIVE_DEFAULT "llmb-archive"

/* LLMB_INSTALL, or the install tree's default ("install" in the checkout). */
const char *layout_install_root(void);
/* dir/name: a file of a folder another layout function named. */
char *layout_in(const char *dir, const char *name);
/* The generated tree's make rules and validity list. */
char *layout_rules(const char *gen);
char *layout_valid(const char *gen);

char *layout_cfg(const char *gen, const char *id);
char *layout_done(const char *install, const char *id);
/* The link to the stamp under the configuration hash it records (its first
 * 12 digits; hash NULL: the folder of the stage's links), and where it
 * points, relative to itself. */
char *layout_stamp_link(const char *install, const char *id, const char *hash);
char *layout_stamp_link_target(const char *id);
char *layout_identity(const char *install, const char *id);
/* id NULL: the state/jobs folder itself. */
char *layout_jobs(const char *install, const char *id);
/* The job record in a stage's state/jobs/<id> folder, and the lock beside it. */
#define LAYOUT_JOB_RECORD "record"
#define LAYOUT_JOB_LOCK "lock"
/* ... the pre-flight: the findings that stopped job JOB
 * (preflight-failed.JOB, written by the job script) and the nodes a retry
 * leaves out (PREFLIGHT=exclude), one hostlist line. */
#define LAYOUT_PREFLIGHT_FAILED "preflight-failed"
#define LAYOUT_PREFLIGHT_EXCLUDE "preflight-exclude"
char *layout_job_record(const char *install, const char *id);
char *layout_executor_state(const char *install);
/* In a stage's state/jobs/<id> folder: the script submitted under a token,
 * and the exit status a job's trap writes. */
char *layout_job_script(const char *state_dir, const char *token);
char *layout_job_exit(const char *state_dir, const char *job);
/* ... the environment the rank-0 task of training job JOB ran with
 * (env.JOB, NAME=value entries ended by NUL, secrets' values replaced). */
char *layout_job_env(const char *state_dir, const char *job);
/* ... the marker a job writes when it starts, and the note it leaves. */
char *layout_job_started(const char *state_dir, const char *token);
/* ... the output of a job that is not a training run (%j: the job). */
char *layout_job_output(const char *state_dir);
char *layout_job_note(const char *state_dir, const char *job);
/* What llmb run says of a job at its submission (a launch option this
 * cluster lacks), one line: <state>/submit-note.<job>. */
char *layout_submit_note(const char *state_dir, const char *job);
/* ... why llmb gave up on a job that could not start (pending.<job>). */
char *layout_job_pending(const char *state_dir, const char *job);
/* A file of the executor caches (layout_executor_state): slurm.limits,
 * slurm.room, submit.bucket and their locks. */
char *layout_executor_file(const char *state_dir, const char *name);
/* A training run's log: the pattern the scheduler fills (%j: the job). */
char *layout_log_pattern(const char *experiment, const char *workload, const char *run);
/* file NULL: the exemplar folder. */
char *layout_exemplar(const char *install, const char *file);
/* Its files: the certification table, its JSON, the status line. */
#define LAYOUT_EXEMPLAR_TABLE "certification.txt"
#define LAYOUT_EXEMPLAR_JSON "certification.json"
#define LAYOUT_EXEMPLAR_STATUS "status"
/* The folder of an exemplar suite's runs below a workload's experiments
 * (<run>/repeat-<r> in it), apart from the report's runs. */
#define LAYOUT_EXEMPLAR_RUNS "exemplar"
/* An overridden run (override.h) beside its recipe run: <run>/override-<tag>. */
#define LAYOUT_OVERRIDE_PREFIX "override-"
/* night NULL: the nightly folder; file NULL: the night's folder. */
char *layout_nightly(const char *install, const char *night, const char *file);
/* A night's files (layout_nightly's file): its status line, the judge's
 * three outputs, the confirmations and the llmb version it ran. */
#define LAYOUT_NIGHT_STATUS "status"
#define LAYOUT_NIGHT_SUMMARY "summary.txt"
#define LAYOUT_NIGHT_VERDICT "verdict.json"
#define LAYOUT_NIGHT_TREND "trend.html"
#define LAYOUT_NIGHT_CONFIRMATIONS "confirmations.json"
#define LAYOUT_NIGHT_VERSION "llmb-version"
/* The nightly folder's own: the night in progress, make nightly's lock. */
#define LAYOUT_NIGHTLY_CURRENT "current"
#define LAYOUT_NIGHTLY_LOCK ".lock"
/* fingerprint NULL: the history folder itself. */
char *layout_history(const char *install, const char *fingerprint);
/* Every append to a history file holds it. */
char *layout_history_lock(const char *install);
char *layout_image(const char *install, const char *stem);
/* <image>.id: the digest and ref the import job recorded. */
char *layout_image_identity(const char *install, const char *stem);
char *layout_workload(const char *base, const char *workload);
char *layout_experiments(const char *install, const char *workload);
char *layout_experiment(const char *install, const char *workload, const char *run);
/* <experiment>/<file>, e.g. LAYOUT_TRAIN_DONE. */
char *layout_experiment_file(const char *install, const char *workload, const char *run, const char *file);
char *layout_report(const char *install, const char *workload, const char *name);
/* The folder of every workload, and a workload's reports folder. */
char *layout_workloads(const char *install);
char *layout_reports(const char *install, const char *workload);
/* Whether a file of an experiment folder is one a training run leaves:
 * its log (log-*.out), LAYOUT_TRAIN_DONE, LAYOUT_RESULT, LAYOUT_PROVENANCE. */
int layout_run_file(const char *name);
/* Whether a file of an experiment folder is a profile, by its path rel below
 * the folder: *.nsys-rep, *.pt.trace.json, *_trace.json, or anything under
 * a folder nsys_profile, torch_profile or pytorch_profile (upstream's
 * archive leaves out the same). */
int layout_profile_file(const char *rel);

/* Whether name (n bytes) is a path placeholder ({install}, {venv_dir},
 * {repo_<name>}, ...): the planner leaves these for run time, when the job
 * script resolves them against the install tree. */
int layout_path_placeholder(const char *name, size_t n);

#endif
