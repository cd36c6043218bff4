/* validity: whether a finished run's numbers can be trusted, from what the
 * job saw. Two sources: NCCL's INFO and WARN lines in the training log
 * (the network it used, its plugin's load failures) and the node probes of
 * provenance.json, before training (nodes: the RDMA fabric, ECC and XID
 * counts) and after it (nodes_after: throttle reasons, ECC and XID
 * counts). A table of rules says what each finding does: make the run
 * invalid (never a baseline, never judged as a regression, left out of the
 * report's averages) or flag it (a warning the run keeps).
 *
 * The object (result.json's "validity"):
 *   valid     false when an invalid finding was made
 *   invalid   [reason...]   the reasons of the invalid findings
 *   flagged   [reason...]   the reasons of the flags
 *   findings  [{"rule", "verdict": "invalid"|"flagged", "reason"}...]
 *   checked   which sources there were: "nccl_log" (NCCL lines in the
 *             log), "fabric" (a probe recorded the RDMA ports), "after"
 *             (an after-training probe to compare with), "preflight" (a
 *             probe judged its node before training: its warnings and,
 *             when the policy let the run go on, failures flag the run)
 * A run without a source is not judged on it: "checked" says so. */
#ifndef LLMB_VALIDITY_H
#define LLMB_VALIDITY_H

#include <jansson.h>

/* The validity of the run whose training log is log (NULL: none) and
 * whose provenance is prov (NULL: none). */
json_t *validity_check(const char *log, const json_t *prov);
/* The same with the provenance read from a file; an absent or unreadable
 * file is no provenance (a history record of a run without one). */
json_t *validity_of_files(const char *log, const char *prov_path);
/* The provenance object of the file path, or NULL with *why (to free)
 * saying why not: not there, not a regular file (a FIFO is not waited
 * on), not JSON, not an object. */
json_t *validity_load_provenance(const char *path, char **why);

#endif
