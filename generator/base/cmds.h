/* cmds: the subcommands of the llmb binary. Each is implemented by the
 * module named beside it (tests/t-modules.sh checks the names) and
 * dispatched from cmd/main.c's table. */
#ifndef LLMB_CMDS_H
#define LLMB_CMDS_H

int cmd_gen(int argc, char **argv);     /* run/gen.c: recipes -> make fragments */
int cmd_check(int argc, char **argv);   /* run/gen.c: validate recipes only */
int cmd_explain(int argc, char **argv); /* run/gen.c: why each target is stale */
int cmd_validate(int argc, char **argv); /* run/gen.c: JSON outputs that do not validate, for make */
int cmd_script(int argc, char **argv);  /* run/jobscript.c: print a stage's job script */
int cmd_run(int argc, char **argv);     /* run/stagerun.c: submit or reattach, wait, stamp */
int cmd_status(int argc, char **argv);  /* run/stagestatus.c: state of every stage */
int cmd_cancel(int argc, char **argv);  /* run/stagestatus.c: cancel the jobs of stages */
int cmd_parse(int argc, char **argv);   /* cmd/cmd_parse.c: training logs -> results */
int cmd_report(int argc, char **argv);  /* cmd/cmd_report.c: results -> tables */
int cmd_flops(int argc, char **argv);   /* recipe/flops.c: model FLOPs of a workload */
int cmd_metrics(int argc, char **argv); /* cmd/cmd_metrics.c: derived metrics from a step time */
int cmd_calc(int argc, char **argv);    /* recipe/expr.c: evaluate an expression */
int cmd_import(int argc, char **argv);  /* import/import.c: upstream metadata.yaml -> workload */
int cmd_record(int argc, char **argv);  /* nightly/nightrecord.c: runs -> history records */
int cmd_nightly(int argc, char **argv); /* nightly/nightly.c: one night: make, record, judge */
int cmd_exemplar(int argc, char **argv); /* cmd/exemplar.c: a suite: make, certify */
int cmd_bisect(int argc, char **argv);   /* nightly/bisect.c: good and bad runs -> the culprit */

int cmd_judge(int argc, char **argv);   /* verdict/judge.c: nightly history -> verdicts, trend page */
int cmd_annotate(int argc, char **argv); /* verdict/annotate.c: accept a baseline, acknowledge a false alarm */
int cmd_diff(int argc, char **argv);    /* results/diff.c: what changed between two runs */
int cmd_sysdesc(int argc, char **argv); /* results/sysdesc.c: MLPerf-style system description */
int cmd_archive(int argc, char **argv); /* results/archive.c: an install tree's results -> one archive */
int cmd_verify_archive(int argc, char **argv); /* results/archive.c: check an archive against its MANIFEST */

#endif
