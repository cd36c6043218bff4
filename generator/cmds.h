/* cmds: the subcommands of the llmb binary. Each is implemented by the
 * module named beside it and dispatched from main.c's table. */
#ifndef LLMB_CMDS_H
#define LLMB_CMDS_H

int cmd_gen(int argc, char **argv);     /* gen.c: recipes -> make fragments */
int cmd_check(int argc, char **argv);   /* gen.c: validate recipes only */
int cmd_explain(int argc, char **argv); /* plan.c: why each target is stale */
int cmd_validate(int argc, char **argv); /* gen.c: JSON outputs that do not validate, for make */
int cmd_script(int argc, char **argv);  /* jobscript.c: print a stage's job script */
int cmd_run(int argc, char **argv);     /* run.c: submit or reattach, wait, stamp */
int cmd_status(int argc, char **argv);  /* run.c: state of every stage */
int cmd_cancel(int argc, char **argv);  /* run.c: cancel the jobs of stages */
int cmd_parse(int argc, char **argv);   /* cmd_parse.c: training logs -> results */
int cmd_report(int argc, char **argv);  /* cmd_report.c: results -> tables */
int cmd_flops(int argc, char **argv);   /* flops.c: model FLOPs of a workload */
int cmd_metrics(int argc, char **argv); /* cmd_metrics.c: derived metrics from a step time */
int cmd_calc(int argc, char **argv);    /* expr.c: evaluate an expression */
int cmd_import(int argc, char **argv);  /* import.c: upstream metadata.yaml -> workload */
int cmd_record(int argc, char **argv);  /* nightly_import.c: runs -> history records */
int cmd_nightly(int argc, char **argv); /* nightly.c: one night: make, record, judge */
int cmd_exemplar(int argc, char **argv); /* exemplar.c: a suite: make, certify */
int cmd_bisect(int argc, char **argv);   /* bisect.c: good and bad runs -> the culprit */

int cmd_judge(int argc, char **argv);   /* judge.c: nightly history -> verdicts, trend page */
int cmd_annotate(int argc, char **argv); /* history.c: accept a baseline, acknowledge a false alarm */
int cmd_diff(int argc, char **argv);    /* diff.c: what changed between two runs */
int cmd_sysdesc(int argc, char **argv); /* sysdesc.c: MLPerf-style system description */
int cmd_archive(int argc, char **argv); /* archive.c: an install tree's results -> one archive */
int cmd_verify_archive(int argc, char **argv); /* archive.c: check an archive against its MANIFEST */

#endif
