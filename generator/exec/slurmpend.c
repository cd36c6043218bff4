/* slurmpend: why a pending Slurm job waits (see slurmpend.h). The reason
 * names are Slurm 22.05's: squeue(1) JOB REASON CODES and the strings of
 * job_reason_string() in libslurm (src/common/slurm_protocol_defs.c), as
 * 22.05.8 prints them. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "base/capture.h"
#include "exec/slurmpend.h"
#include "recipe/slurmcmd.h"
#include "store/layout.h"

#define NODES_CACHE_S 20 /* node states shared this long */

/* Reasons by name. Not listed: the Assoc and QOS limit families, by shape
 * below, and anything else, which waits (PENDING_LIMIT bounds it). */
static const struct {
	const char *name;
	enum pend_kind kind;
	const char *words; /* what it means, for a person */
} reasons[] = {
	/* waiting for others: clears by itself */
	{"None", PEND_WAITS, ""},
	{"WaitingForScheduling", PEND_WAITS, "not yet looked at by the scheduler"},
	{"Priority", PEND_WAITS, "jobs of a higher priority go first"},
	{"Resources", PEND_WAITS, "waiting for nodes to become free"},
	{"Dependency", PEND_WAITS, "waiting for the jobs it depends on"},
	{"BeginTime", PEND_WAITS, "its earliest start time is not reached"},
	{"Reservation", PEND_WAITS, "waiting for its reservation"},
	{"Licenses", PEND_WAITS, "waiting for a license"},
	{"Prolog", PEND_WAITS, "PrologSlurmctld is running"},
	{"Cleaning", PEND_WAITS, "cleaning up after a requeue"},
	{"SchedDefer", PEND_WAITS, "scheduling deferred"},
	{"JobArrayTaskLimit", PEND_WAITS, "its array's task limit"},
	{"JobHeldUser", PEND_WAITS, "held by its user"},
	{"JobHeldAdmin", PEND_WAITS, "held by an administrator"},
	{"BurstBufferResources", PEND_WAITS, "waiting for burst buffer space"},
	{"BurstBufferStageIn", PEND_WAITS, "burst buffer stage-in"},
	{"BurstBufferOperation", PEND_WAITS, "burst buffer operation"},
	{"PowerNotAvail", PEND_WAITS, "waiting for power"},
	{"PowerReserved", PEND_WAITS, "waiting for power"},
	{"FedJobLock", PEND_WAITS, "federation lock"},
	/* a job count or usage of the association or QOS: the user's own jobs end */
	{"AssociationJobLimit", PEND_WAITS, "the association's job count limit"},
	{"AssociationResourceLimit", PEND_WAITS, "an association resource limit"},
	{"AssociationTimeLimit", PEND_WAITS, "the association's time limit"},
	{"QOSJobLimit", PEND_WAITS, "the QOS's job count limit"},
	{"QOSResourceLimit", PEND_WAITS, "a QOS resource limit"},
	{"QOSTimeLimit", PEND_WAITS, "the QOS's time limit"},
	{"QOSUsageThreshold", PEND_WAITS, "the QOS usage threshold (usage decays)"},
	{"AccountingPolicy", PEND_WAITS, "an accounting policy limit"},
	{"AssocMaxJobsLimit", PEND_WAITS, "the association's running job limit"},
	{"AssocMaxSubmitJobLimit", PEND_WAITS, "the association's submitted job limit"},
	/* the nodes: temporary while they are merely busy or reserved */
	{"ReqNodeNotAvail", PEND_NODES, "a node it needs is not available"},
	{"NodeDown", PEND_NODES, "a node it needs is down"},
	/* an operator must act */
	{"PartitionDown", PEND_NEVER, "its partition is DOWN"},
	{"PartitionInactive", PEND_NEVER, "its partition is INACTIVE"},
	{"PartitionNodeLimit", PEND_NEVER, "it asks for more nodes than its partition allows, or its required nodes are down"},
	{"PartitionTimeLimit", PEND_NEVER, "its time limit is over its partition's (TIME_LIMIT)"},
	{"PartitionConfig", PEND_NEVER, "its request does not fit its partition's configuration"},
	{"BadConstraints", PEND_NEVER, "its constraints cannot be satisfied"},
	{"InvalidAccount", PEND_NEVER, "its account is invalid"},
	{"InvalidQOS", PEND_NEVER, "its QOS is invalid"},
	{"AccountNotAllowed", PEND_NEVER, "its account may not use the partition"},
	{"QOSNotAllowed", PEND_NEVER, "its QOS may not use the partition"},
	{"FrontEndDown", PEND_NEVER, "no front end node is up"},
	{"ReservationDeleted", PEND_NEVER, "its reservation was deleted"},
	{"JobHoldMaxRequeue", PEND_NEVER, "held after too many requeues"},
	{"MaxMemPerLimit", PEND_NEVER, "it asks for more memory than allowed"},
	{"DependencyNeverSatisfied", PEND_NEVER, "a job it depends on failed"},
};

/* The reason's name: up to a comma or a space. Slurm 22.05 words the
 * ReqNodeNotAvail of a job without a node list as a sentence. */
static size_t
reason_name(const char *r, const char **name)
{
	static const char nodes_text[] = "Nodes required for job are DOWN";
	if (!strncmp(r, nodes_text, sizeof nodes_text - 1) || !strncmp(r, "Nodes_required_for_job", 22)) {
		*name = "ReqNodeNotAvail";
		return strlen(*name);
	}
	*name = r;
	return strcspn(r, ", ");
}

static int
has(const char *s, size_t n, const char *what)
{
	size_t w = strlen(what);
	for (size_t i = 0; i + w <= n; i++)
		if (!memcmp(s + i, what, w))
			return 1;
	return 0;
}

enum pend_kind
slurm_pend_kind(const char *reason)
{
	const char *r;
	size_t n = reason_name(reason, &r);
	for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
		if (strlen(reasons[i].name) == n && !memcmp(reasons[i].name, r, n))
			return reasons[i].kind;
	/* The limit families: Assoc<Grp|Max><TRES>..., QOS<Grp|Max|Min><TRES>... */
	if (strncmp(r, "Assoc", 5) && strncmp(r, "QOS", 3))
		return PEND_WAITS;
	/* a per-job (or per-node) limit, or a QOS minimum: the job's own
	 * request is outside it */
	if (has(r, n, "PerJob") || has(r, n, "PerNode") || !strncmp(r, "QOSMin", 6))
		return PEND_NEVER;
	if (has(r, n, "Grp")) {
		/* GrpTRESMins: a budget spent, refilled by an operator; GrpTRES
		 * and GrpTRESRunMins free up as the group's running jobs end */
		if (has(r, n, "Minutes") && !has(r, n, "RunMinutes"))
			return PEND_NEVER;
		return PEND_GROUP;
	}
	return PEND_WAITS; /* per user or account: the user's own jobs end */
}

static const char *
reason_words(const char *reason)
{
	const char *r;
	size_t n = reason_name(reason, &r);
	for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
		if (strlen(reasons[i].name) == n && !memcmp(reasons[i].name, r, n))
			return reasons[i].words;
	return NULL;
}

/* ---- the cluster -------------------------------------------------------------------- */

/* The value of key ("Partition=") in `scontrol show job -o` output, or
 * NULL; allocated. Keys start a word. */
static char *
field(const char *line, const char *key)
{
	size_t k = strlen(key);
	for (const char *p = line; (p = strstr(p, key)); p += k)
		if (p == line || p[-1] == ' ') {
			char *v = xstrndup(p + k, strcspn(p + k, " \n"));
			if (!*v || !strcmp(v, "(null)")) {
				free(v);
				return NULL;
			}
			return v;
		}
	return NULL;
}

/* Names Slurm gave us (partitions, node lists, accounts) go to argv, never
 * a shell; still, only the characters such names are made of. */
static int
plain(const char *s)
{
	return s && *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-,[]") == strlen(s);
}

/* A node in one of these states takes no new job until an operator acts
 * (sinfo(1) NODE STATE CODES, short forms; "*" not responding is left to
 * become down). */
static int
node_unusable(const char *state)
{
	static const char *const bad[] = {"down", "drain", "drng", "fail", "failg", "futr", "inval"};
	size_t n = strspn(state, "abcdefghijklmnopqrstuvwxyz_");
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (strlen(bad[i]) == n && !strncmp(state, bad[i], n))
			return 1;
	return 0;
}

/* Every node's state in every partition, "node|partition|state" lines
 * (sinfo -N), shared by the waiting llmb processes of the install tree
 * through cache_dir/slurm.nodes for NODES_CACHE_S: one sinfo however many
 * jobs wait on their nodes. NULL when sinfo failed. */
static char *
node_table(const char *cache_dir)
{
	char *path = layout_executor_file(cache_dir, LAYOUT_SLURM_NODES);
	char *lock = layout_executor_file(cache_dir, LAYOUT_SLURM_NODES LAYOUT_LOCK_SUFFIX);
	int fd = lock_file(lock, 0);
	char *text = read_file(path, NULL), *ret = NULL;
	double at, now = now_seconds();
	int n = 0;
	if (text && sscanf(text, "llmb-slurm-nodes 1 %lf%n", &at, &n) == 1 && text[n] == '\n' && now - at < NODES_CACHE_S &&
	    now >= at) {
		ret = xstrdup(text + n + 1);
	} else {
		struct sb out = {0}, errs = {0}, file = {0};
		char *argv[] = {"sinfo", "-h", "-N", "-o", "%N|%P|%t", NULL};
		if (capture_run(argv, &out, &errs) == 0) {
			sb_addf(&file, "llmb-slurm-nodes 1 %.3f\n%s", now, out.buf ? out.buf : "");
			if (write_file_atomic(path, file.buf, file.len) < 0)
				warn("cannot write '%s': %s", path, strerror(errno));
			ret = out.buf ? sb_steal(&out) : xstrdup("");
		}
		sb_free(&out);
		sb_free(&errs);
		sb_free(&file);
	}
	if (fd >= 0)
		close(fd);
	free(text);
	free(path);
	free(lock);
	return ret;
}

/* One partition: 1 the job cannot start in it (why appended), 0 it can.
 * req, exc: ",n1,n2," lists of the nodes it requires (NULL: any) and
 * excludes. */
static int
part_blocked(const char *table, const char *part, const char *req, const char *exc, long need, struct sb *why)
{
	struct sb bad = {0};
	long usable = 0, unusable = 0;
	char *copy = xstrdup(table), *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[3], key[96];
		int nf = 0;
		for (char *p = line; nf < 3 && p; nf++) {
			f[nf] = p;
			if ((p = strchr(p, '|')))
				*p++ = 0;
		}
		if (nf != 3)
			continue;
		f[1][strcspn(f[1], "*")] = 0; /* the default partition's mark */
		snprintf(key, sizeof key, ",%s,", f[0]);
		if (strcmp(f[1], part) || (req && !strstr(req, key)) || (exc && strstr(exc, key)))
			continue;
		if (!node_unusable(f[2])) {
			usable++;
			continue;
		}
		if (unusable++ < 6)
			sb_addf(&bad, "%s%s %s", bad.len ? ", " : "", f[0], f[2]);
	}
	if (unusable > 6)
		sb_addf(&bad, " and %ld more", unusable - 6);
	/* required nodes must all be there; otherwise enough of them */
	int ret = req ? unusable > 0 : usable < need;
	if (ret)
		sb_addf(why, "%spartition %s: %ld of its %ld node(s)%s usable, %ld needed%s%s%s", why->len ? "; " : "", part,
			usable, usable + unusable, req ? " the job requires" : "", need, bad.len ? " (" : "",
			bad.len ? bad.buf : "", bad.len ? ")" : "");
	free(copy);
	sb_free(&bad);
	return ret;
}

/* ",n1,n2," from a hostlist (scontrol expands it itself, asking no one),
 * or NULL. */
static char *
expand_hosts(const char *list)
{
	struct sb out = {0}, errs = {0}, r = {0};
	char *argv[] = {"scontrol", "show", "hostnames", (char *)list, NULL};
	if (capture_run(argv, &out, &errs) == 0 && out.buf) {
		sb_addc(&r, ',');
		for (char *p = out.buf; *p; p++)
			sb_addc(&r, *p == '\n' ? ',' : *p);
	}
	sb_free(&out);
	sb_free(&errs);
	return r.buf ? sb_steal(&r) : NULL;
}

/* Every node the job could use, in every partition it may run in, is
 * drained or down. */
static int
nodes_blocked(const char *cache_dir, const char *info, struct sb *why)
{
	char *parts = field(info, "Partition="), *req = field(info, "ReqNodeList="), *exc = field(info, "ExcNodeList=");
	char *nn = field(info, "NumNodes="), *reql = NULL, *excl = NULL, *table = NULL;
	long need = nn ? atol(nn) : 1;
	int ret = -1, blocked = 1;
	struct sb w = {0};
	if (!plain(parts) || (req && !plain(req)) || (exc && !plain(exc)))
		goto out;
	if ((req && !(reql = expand_hosts(req))) || (exc && !(excl = expand_hosts(exc))) || !(table = node_table(cache_dir)))
		goto out;
	for (char *save = NULL, *p = strtok_r(parts, ",", &save); p && blocked; p = strtok_r(NULL, ",", &save))
		blocked = part_blocked(table, p, reql, excl, need > 0 ? need : 1, &w);
	if (blocked)
		sb_addf(why, "every node it could use is drained or down (%s)", w.buf ? w.buf : "no nodes");
	ret = blocked;
out:
	free(parts); free(req); free(exc); free(nn); free(reql); free(excl); free(table);
	sb_free(&w);
	return ret;
}

/* A group limit with none of the group's jobs running: nothing will free
 * what it holds (the job alone asks for more than the limit). */
static int
group_blocked(const char *info, const char *reason, struct sb *why)
{
	int qos = !strncmp(reason, "QOS", 3);
	char *who = field(info, qos ? "QOS=" : "Account=");
	struct sb out = {0}, errs = {0};
	char *argv[] = {"squeue", "-h", "-t", "RUNNING,COMPLETING,CONFIGURING", qos ? "-q" : "-A", who, "-o", "%i", NULL};
	int ret = -1;
	if (plain(who) && capture_run(argv, &out, &errs) == 0) {
		ret = !out.len;
		if (ret)
			sb_addf(why, "the %s %s has reached a limit with none of its jobs running: the job alone asks "
				"for more than the limit allows", qos ? "QOS" : "account", who);
	}
	free(who);
	sb_free(&out);
	sb_free(&errs);
	return ret;
}

int
slurm_pend_blocked(const char *cache_dir, const struct jobinfo *ji, struct sb *why)
{
	enum pend_kind k = slurm_pend_kind(ji->reason);
	const char *words = reason_words(ji->reason);
	if (k == PEND_WAITS)
		return 0;
	if (k == PEND_NEVER) {
		sb_add(why, words ? words : "a limit the job's own request exceeds");
		return 1;
	}
	if (!slurm_job_id_valid(ji->id))
		return -1;
	char *argv[] = {"scontrol", "show", "job", "-o", (char *)ji->id, NULL};
	struct sb out = {0}, errs = {0};
	int ret = -1;
	if (capture_run(argv, &out, &errs) == 0 && out.buf)
		ret = k == PEND_NODES ? nodes_blocked(cache_dir, out.buf, why) : group_blocked(out.buf, ji->reason, why);
	sb_free(&out);
	sb_free(&errs);
	return ret;
}

int
slurm_cancel_pending(const char *id, struct sb *err)
{
	struct sb out = {0}, errs = {0};
	char *cancel[] = {"scancel", "--state=PENDING", (char *)id, NULL};
	char *state[] = {"squeue", "-h", "-t", "all", "-j", (char *)id, "-o", "%T", NULL};
	int ret = -1;
	if (!slurm_job_id_valid(id)) {
		sb_add(err, "invalid job id");
		return -1;
	}
	if (capture_run(cancel, &out, &errs) != 0) {
		sb_addf(err, "scancel --state=PENDING %s failed: %.*s", id, errs.buf ? (int)strcspn(errs.buf, "\n") : 0,
			errs.buf ? errs.buf : "");
		goto out;
	}
	/* scancel --state says nothing when the job had moved on: ask */
	for (int i = 0; i < 50 && ret < 0; i++) {
		sb_reset(&out);
		sb_reset(&errs);
		if (capture_run(state, &out, &errs) != 0 || !out.buf)
			break;
		if (!strncmp(out.buf, "CANCELLED", 9))
			ret = 0;
		else if (strncmp(out.buf, "PENDING", 7))
			ret = 1;
		else
			nanosleep(&(struct timespec){0, 100000000}, NULL);
	}
	if (ret < 0)
		sb_addf(err, "job %s: cannot tell whether scancel took effect", id);
out:
	sb_free(&out);
	sb_free(&errs);
	return ret;
}
