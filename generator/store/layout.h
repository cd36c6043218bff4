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
 * string to free. The names below (LAYOUT_NAMES) are spelled nowhere
 * else: the job scripts get those they write as m4 macros
 * (LAYOUT_SCRIPT_NAMES), and tests/t-modules.sh fails on a string of
 * another file that joins one into a path. */
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

/* The folders: of the install tree (workloads also the checkout's folder
 * of recipes, <top>/workloads/<w>.yaml and <w>/), of its state, and of
 * the generated tree. */
#define LAYOUT_STATE "state"
#define LAYOUT_DONE "done"
#define LAYOUT_STAMPED "stamped"
#define LAYOUT_ID "id"
#define LAYOUT_JOBS "jobs"
#define LAYOUT_EXECUTOR "executor"
#define LAYOUT_IMAGES "images"
#define LAYOUT_VENVS "venvs"
#define LAYOUT_WORKLOADS "workloads"
#define LAYOUT_EXPERIMENTS "experiments"
#define LAYOUT_REPORTS "reports"
#define LAYOUT_HISTORY "history"
#define LAYOUT_NIGHTLY "nightly"
#define LAYOUT_EXEMPLAR "exemplar"
#define LAYOUT_CFG "cfg"
#define LAYOUT_RULES "rules.mk"
#define LAYOUT_VALID "valid.mk"
/* Suffixes: a container image, its identity (beside it), a history file,
 * a lock beside the file it guards. */
#define LAYOUT_IMAGE_SUFFIX ".sqsh"
#define LAYOUT_IDENTITY_SUFFIX ".id"
#define LAYOUT_HISTORY_SUFFIX ".jsonl"
#define LAYOUT_LOCK_SUFFIX ".lock"
/* A training run's log: <prefix><workload>_<run>_<job><suffix>. */
#define LAYOUT_LOG_PREFIX "log-"
#define LAYOUT_LOG_SUFFIX ".out"
/* Slurm's own default output, <prefix><job><LAYOUT_LOG_SUFFIX>: the log
 * of a legacy job, which llmb record --import reads. */
#define LAYOUT_SLURM_LOG_PREFIX "slurm-"
/* The files of a stage's state/jobs/<id> folder, each <name>.<token or
 * job>[...]: the script submitted, the marker a job writes when it
 * starts, its exit status, its rank-0 environment, its note, what llmb
 * run says of it at submission, why it could not start; the node probes
 * before and after training (<name>.<job>.<node>.json, written by
 * templates/probe-node.sh) and the pre-flight findings of each node
 * (preflight.<job>.<node>); the node setup's commands and an image
 * import's output (<name>.<job>.out). */
#define LAYOUT_JOB_SCRIPT "job"
#define LAYOUT_JOB_STARTED "started"
#define LAYOUT_JOB_EXIT "exit"
#define LAYOUT_JOB_ENV "env"
#define LAYOUT_JOB_NOTE "note"
#define LAYOUT_SUBMIT_NOTE "submit-note"
#define LAYOUT_JOB_PENDING "pending"
#define LAYOUT_PROBE "probe"
#define LAYOUT_PROBE_AFTER "probe-after"
#define LAYOUT_PREFLIGHT "preflight"
#define LAYOUT_NODE_SETUP "node-setup"
#define LAYOUT_IMPORT_LOG "import"
/* The executor caches' files (layout_executor_file) and their locks. */
#define LAYOUT_SLURM_LIMITS "slurm.limits"
#define LAYOUT_SLURM_ROOM "slurm.room"
#define LAYOUT_ROOM_LOCK "room.lock"
#define LAYOUT_SLURM_NODES "slurm.nodes"
#define LAYOUT_SLURM_JOBS "slurm.jobs"
#define LAYOUT_SLURM_LOCK "slurm.lock"
#define LAYOUT_SUBMIT_BUCKET "submit.bucket"
#define LAYOUT_SUBMIT_LOCK "submit.lock"
#define LAYOUT_SLURM_CACHE "slurm.cache"
#define LAYOUT_QUERY_LOG "queries.log"

/* Files a finished training run leaves in its experiment directory. */
#define LAYOUT_TRAIN_DONE "train.done"
#define LAYOUT_RESULT "result.json"
#define LAYOUT_PROVENANCE "provenance.json"
/* written last by a venv job (templates/venv.m4): a half-built venv has none */
#define LAYOUT_VENV_DONE "llmb-venv.txt"
/* venvs/<prefix><hash12>: a venv's folder */
#define LAYOUT_VENV_PREFIX "venv_"
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

/* The install tree's root: given (the value of LAYOUT_INSTALL_VAR, which
 * the command reads from its environment), or when NULL or empty the
 * default ("install" in the checkout). */
#define LAYOUT_INSTALL_VAR "LLMB_INSTALL"
const char *layout_install_root(const char *given);
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
/* The folder of the bisections' runs below a workload's experiments
 * (<id>/<run>/<point> in it): never a night, a baseline nor a report's run. */
#define LAYOUT_BISECT_RUNS "bisect"
#define LAYOUT_BISECT_JSON "bisect.json"
#define LAYOUT_BISECT_TEXT "bisect.txt"
#define LAYOUT_BISECT_ROUND "round-"
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
/* A bisection's folder: its plan, rounds and bisect.json. */
char *layout_bisect(const char *install, const char *id);
/* The folder of every venv. */
char *layout_venvs(const char *install);
char *layout_reports(const char *install, const char *workload);
/* Whether name is a training run's log (LAYOUT_LOG_PREFIX ...
 * LAYOUT_LOG_SUFFIX, something between). */
int layout_log_file(const char *name);
/* <top>/workloads/<workload>.yaml: a workload's recipe in the checkout
 * (its folder, <top>/workloads/<workload>, is layout_workload's). */
char *layout_recipe(const char *top, const char *workload);
/* <state_dir>/<name>.<job>: a file of a job in its stage's state folder
 * by its name (LAYOUT_PREFLIGHT_FAILED, LAYOUT_NODE_SETUP, ...). */
char *layout_job_file(const char *state_dir, const char *name, const char *job);
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

/* Every name above, as a list of strings: tests/t-modules.sh expands it
 * (cc -E) and fails on a file that spells one into a path by hand. */
#define LAYOUT_NAMES \
	LAYOUT_STATE, LAYOUT_DONE, LAYOUT_STAMPED, LAYOUT_ID, LAYOUT_JOBS, LAYOUT_EXECUTOR, LAYOUT_IMAGES, LAYOUT_VENVS, \
	LAYOUT_WORKLOADS, LAYOUT_EXPERIMENTS, LAYOUT_REPORTS, LAYOUT_HISTORY, LAYOUT_NIGHTLY, LAYOUT_EXEMPLAR, \
	LAYOUT_CFG, LAYOUT_RULES, LAYOUT_VALID, LAYOUT_IMAGE_SUFFIX, LAYOUT_IDENTITY_SUFFIX, \
	LAYOUT_HISTORY_SUFFIX, LAYOUT_LOCK_SUFFIX, LAYOUT_LOG_PREFIX, LAYOUT_LOG_SUFFIX, \
	LAYOUT_SLURM_LOG_PREFIX, LAYOUT_JOB_SCRIPT, \
	LAYOUT_JOB_STARTED, LAYOUT_JOB_EXIT, LAYOUT_JOB_ENV, LAYOUT_JOB_NOTE, LAYOUT_SUBMIT_NOTE, \
	LAYOUT_JOB_PENDING, LAYOUT_PROBE, LAYOUT_PROBE_AFTER, LAYOUT_PREFLIGHT, LAYOUT_NODE_SETUP, \
	LAYOUT_IMPORT_LOG, LAYOUT_SLURM_LIMITS, LAYOUT_SLURM_ROOM, LAYOUT_ROOM_LOCK, LAYOUT_SLURM_NODES, \
	LAYOUT_SLURM_JOBS, LAYOUT_SLURM_LOCK, LAYOUT_SUBMIT_BUCKET, LAYOUT_SUBMIT_LOCK, LAYOUT_SLURM_CACHE, \
	LAYOUT_QUERY_LOG, LAYOUT_TRAIN_DONE, LAYOUT_BISECT_RUNS, LAYOUT_BISECT_JSON, LAYOUT_BISECT_TEXT, LAYOUT_BISECT_ROUND, \
	LAYOUT_RESULT, LAYOUT_PROVENANCE, LAYOUT_VENV_DONE, LAYOUT_VENV_PREFIX, LAYOUT_ARCHIVE_MANIFEST, \
	LAYOUT_ARCHIVE_SYSDESC, LAYOUT_ARCHIVE_RUNCONFIG, LAYOUT_ARCHIVE_DEFAULT, LAYOUT_JOB_RECORD, \
	LAYOUT_JOB_LOCK, LAYOUT_PREFLIGHT_FAILED, LAYOUT_PREFLIGHT_EXCLUDE, LAYOUT_EXEMPLAR_TABLE, \
	LAYOUT_EXEMPLAR_JSON, LAYOUT_EXEMPLAR_STATUS, LAYOUT_EXEMPLAR_RUNS, LAYOUT_OVERRIDE_PREFIX, \
	LAYOUT_NIGHT_STATUS, LAYOUT_NIGHT_SUMMARY, LAYOUT_NIGHT_VERDICT, LAYOUT_NIGHT_TREND, \
	LAYOUT_NIGHT_CONFIRMATIONS, LAYOUT_NIGHT_VERSION, LAYOUT_NIGHTLY_CURRENT, LAYOUT_NIGHTLY_LOCK

/* The names the job scripts write, X(KEY, name) each: run/jobscript.c
 * defines the m4 macro LLMB_NAME_<KEY> of each, which the templates use
 * (an _EXT is a suffix without its dot: "$store.LLMB_NAME_LOCK_EXT"). */
#define LAYOUT_SCRIPT_NAMES(X) \
	X(STARTED, LAYOUT_JOB_STARTED) X(EXIT, LAYOUT_JOB_EXIT) X(ENV, LAYOUT_JOB_ENV) X(NOTE, LAYOUT_JOB_NOTE) \
	X(PREFLIGHT, LAYOUT_PREFLIGHT) X(PREFLIGHT_FAILED, LAYOUT_PREFLIGHT_FAILED) X(NODE_SETUP, LAYOUT_NODE_SETUP) \
	X(IMPORT_LOG, LAYOUT_IMPORT_LOG) X(LOG_EXT, LAYOUT_LOG_SUFFIX + 1) X(VENV_DONE, LAYOUT_VENV_DONE) \
	X(IDENTITY_EXT, LAYOUT_IDENTITY_SUFFIX + 1) X(LOCK_EXT, LAYOUT_LOCK_SUFFIX + 1)

#endif
