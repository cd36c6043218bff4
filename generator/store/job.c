/* job: the job states' names, Slurm's spellings of them, and which are final. */
#include <string.h>

#include "store/job.h"

static const char *const jstate_names[] = {
	[J_UNKNOWN] = "UNKNOWN", [J_PENDING] = "PENDING", [J_RUNNING] = "RUNNING",
	[J_COMPLETING] = "COMPLETING", [J_COMPLETED] = "COMPLETED", [J_FAILED] = "FAILED",
	[J_TIMEOUT] = "TIMEOUT", [J_CANCELLED] = "CANCELLED", [J_NODE_FAIL] = "NODE_FAIL",
	[J_OOM] = "OUT_OF_MEMORY", [J_PREEMPTED] = "PREEMPTED", [J_REQUEUED] = "REQUEUED",
	[J_BOOT_FAIL] = "BOOT_FAIL", [J_DEADLINE] = "DEADLINE", [J_VANISHED] = "VANISHED",
	[J_PREFLIGHT] = "PREFLIGHT",
};

const char *
jstate_name(enum jstate s)
{
	return (unsigned)s < sizeof jstate_names / sizeof *jstate_names ? jstate_names[s] : "UNKNOWN";
}

/* Accepts Slurm's spellings: "CANCELLED by 0", "CANCELLED+", "OUT_OF_ME+",
 * and the other requeue and configuring states. */
enum jstate
jstate_parse(const char *name)
{
	static const struct { const char *prefix; enum jstate s; } alias[] = {
		{"CONFIGURING", J_PENDING}, {"REQUEUE_HOLD", J_REQUEUED}, {"REQUEUE_FED", J_REQUEUED},
		{"RESV_DEL_HOLD", J_PENDING}, {"SUSPENDED", J_RUNNING}, {"STOPPED", J_RUNNING},
		{"SIGNALING", J_RUNNING}, {"STAGE_OUT", J_COMPLETING}, {"RESIZING", J_RUNNING},
		{"OUT_OF_ME", J_OOM}, {"SPECIAL_EXIT", J_FAILED}, {"REVOKED", J_CANCELLED},
	};
	size_t n = strcspn(name, " +");
	for (size_t i = 1; i < sizeof jstate_names / sizeof *jstate_names; i++)
		if (strlen(jstate_names[i]) == n && !strncmp(name, jstate_names[i], n))
			return (enum jstate)i;
	for (size_t i = 0; i < sizeof alias / sizeof *alias; i++)
		if (!strncmp(name, alias[i].prefix, strlen(alias[i].prefix)))
			return alias[i].s;
	return J_UNKNOWN;
}

int
jstate_terminal(enum jstate s)
{
	switch (s) {
	case J_COMPLETED: case J_FAILED: case J_TIMEOUT: case J_CANCELLED: case J_NODE_FAIL:
	case J_OOM: case J_BOOT_FAIL: case J_DEADLINE: case J_VANISHED: case J_PREFLIGHT:
	case J_PREEMPTED: /* Slurm's PREEMPTED is final; a requeued job shows PENDING */
		return 1;
	default:
		return 0;
	}
}
