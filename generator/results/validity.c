/* validity: see validity.h. The rules table says each finding's verdict;
 * the NCCL line shapes and the throttle bits are tables too. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jget.h"
#include "base/util.h"
#include "results/validity.h"

enum rule {
	R_SOCKET, R_PLUGIN_SOCKET, R_PLUGIN, R_THERMAL, R_BRAKE, R_THROTTLE, R_ECC, R_XID, R_GPU_LOST, R_COUNTER, R_GPU_ROW,
	R_PF_WARN, R_PF_FAIL, R_PROBE, R_PROBE_AFTER, R_N
};
enum verdict { V_FLAGGED, V_INVALID };

/* Which finding is which: sockets where RDMA is there cost about a quarter
 * of the step time with no error; thermal or power-brake slowdown halve
 * the clocks or worse; a new uncorrectable error or XID means the GPU
 * misbehaved under the run. A power cap or a plugin that did not load
 * where NCCL still used RDMA may be the cluster's normal state: flagged. */
static const struct {
	const char *name;
	enum verdict verdict;
	const char *words; /* the reason, before its details */
} rules[R_N] = {
	[R_SOCKET] = {"nccl_socket_on_fabric", V_INVALID, "NCCL used sockets (NET/Socket) on nodes with"},
	[R_PLUGIN_SOCKET] = {"nccl_plugin_fallback", V_INVALID,
			     "NCCL's network plugin did not load and NCCL fell back to sockets on nodes with"},
	[R_PLUGIN] = {"nccl_plugin_failed", V_FLAGGED, "NCCL's network plugin did not load"},
	[R_THERMAL] = {"gpu_thermal_slowdown", V_INVALID, "GPU clocks throttled during the run:"},
	[R_BRAKE] = {"gpu_power_brake", V_INVALID, "GPU clocks throttled during the run:"},
	[R_THROTTLE] = {"gpu_clocks_limited", V_FLAGGED, "GPU clocks limited during the run:"},
	[R_ECC] = {"gpu_ecc_uncorrectable", V_INVALID, "new uncorrectable ECC errors during the run"},
	[R_XID] = {"gpu_xid", V_INVALID, "new XID events during the run"},
	/* a GPU that fell off the bus took its counters with it */
	[R_GPU_LOST] = {"gpu_lost", V_INVALID, "a GPU present before the run is missing after it:"},
	/* evidence that cannot be read is not read as zero */
	[R_COUNTER] = {"gpu_counter_unreadable", V_FLAGGED, "a GPU counter the probe recorded is not a count:"},
	[R_GPU_ROW] = {"gpu_row_unreadable", V_FLAGGED, "a GPU's row of nvidia-smi could not be read after the run:"},
	/* A node's state before the run (templates/probe-node.sh's checks):
	 * what it did to the numbers is unknown, so the run keeps them. A
	 * failing check under PREFLIGHT=warn ran anyway. */
	[R_PF_WARN] = {"preflight_warn", V_FLAGGED, "pre-flight warned:"},
	[R_PF_FAIL] = {"preflight_fail", V_FLAGGED, "pre-flight failed (the policy let the run go on):"},
	/* A node whose probe failed or could not be read was not judged:
	 * the run keeps its numbers, flagged, as for a pre-flight warning. */
	[R_PROBE] = {"node_probe_failed", V_FLAGGED, "a node was not judged before the run:"},
	[R_PROBE_AFTER] = {"node_probe_after_failed", V_FLAGGED, "a node was not judged after the run:"},
};

/* NCCL's lines ("host:pid:tid [dev] NCCL INFO ..."), by what they say. */
enum nccl_ev { NE_SOCKET, NE_PLUGIN_FAIL };
static const struct {
	const char *text;
	enum nccl_ev ev;
} nccl_lines[] = {
	{"Using network Socket", NE_SOCKET},
	{"via NET/Socket", NE_SOCKET},
	{"NET/Plugin: Plugin load returned", NE_PLUGIN_FAIL},   /* 2.21 and later */
	{"NET/Plugin : Plugin load (", NE_PLUGIN_FAIL},          /* 2.19, 2.20 */
	{"NET/Plugin : dlerror=", NE_PLUGIN_FAIL},               /* before 2.19 */
	{"NET/Plugin: Failed to find ncclNetPlugin", NE_PLUGIN_FAIL},
	{"NET/Plugin : Failed to find ncclNetPlugin", NE_PLUGIN_FAIL},
	{"NET/Plugin: Could not find", NE_PLUGIN_FAIL},
};

/* NVML's clock throttle (event) reason bits that slow a run. */
static const struct {
	unsigned long long bit;
	const char *name;
	enum rule rule;
} throttle_bits[] = {
	{0x40, "HW thermal slowdown", R_THERMAL},
	{0x20, "SW thermal slowdown", R_THERMAL},
	{0x80, "HW power brake slowdown", R_BRAKE},
	{0x08, "HW slowdown", R_THROTTLE},
	{0x04, "SW power cap", R_THROTTLE},
};

/* The GPU counters whose growth during the run is an ECC finding. */
static const char *const ecc_fields[] = {"ecc.errors.uncorrected.volatile.total",
					 "ecc.errors.uncorrected.aggregate.total"};

/* What the log said about NCCL's network. */
struct nccl_seen {
	int any;                /* an NCCL INFO or WARN line */
	long socket_line;       /* first line of each event, 0 none */
	long plugin_line;
	char plugin_text[160];  /* what the plugin line said, from NET/Plugin */
};

static void
scan_log(const char *log, struct nccl_seen *ns)
{
	FILE *f = log ? fopen(log, "r") : NULL;
	char buf[8192];
	long line = 0;
	int whole = 1; /* buf starts a line */
	while (f && fgets(buf, sizeof buf, f)) {
		line += whole;
		whole = strchr(buf, '\n') != NULL;
		if (!strstr(buf, " NCCL INFO ") && !strstr(buf, " NCCL WARN "))
			continue;
		ns->any = 1;
		for (size_t i = 0; i < sizeof nccl_lines / sizeof *nccl_lines; i++) {
			const char *at = strstr(buf, nccl_lines[i].text);
			if (!at)
				continue;
			if (nccl_lines[i].ev == NE_SOCKET && !ns->socket_line)
				ns->socket_line = line;
			if (nccl_lines[i].ev == NE_PLUGIN_FAIL && !ns->plugin_line) {
				ns->plugin_line = line;
				snprintf(ns->plugin_text, sizeof ns->plugin_text, "%.*s", (int)strcspn(at, "\r\n"), at);
			}
		}
	}
	if (f)
		fclose(f);
}

/* One finding per (rule, what), with where it was first seen and how many
 * more places saw it. */
struct tally {
	enum rule rule;
	char what[64];
	char first[256];
	size_t more;
};

/* Grows as findings come: a node names its own pre-flight checks, so their
 * number is the node's to choose, and no finding may push out another. */
struct tallies {
	struct tally *v;
	size_t n;
};

static void
tally(struct tallies *t, enum rule r, const char *what, const char *where)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].rule == r && !strcmp(t->v[i].what, what)) {
			t->v[i].more++;
			return;
		}
	t->v = xrealloc(t->v, (t->n + 1) * sizeof *t->v);
	struct tally *x = &t->v[t->n++];
	x->rule = r;
	x->more = 0;
	snprintf(x->what, sizeof x->what, "%s", what);
	snprintf(x->first, sizeof x->first, "%s", where);
	/* cut where a truncation split a character, and no control character
	 * (a node's value, as the probe recorded it): the reason stays one
	 * line of text */
	long bad = utf8_invalid_at(x->what);
	if (bad >= 0)
		x->what[bad] = 0;
	if ((bad = utf8_invalid_at(x->first)) >= 0)
		x->first[bad] = 0;
	for (char *c = x->first; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	for (char *c = x->what; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

/* A counter the probe recorded as decimal text (NVML's are unsigned
 * 64-bit), into *v: 1. 0 when there is none (not recorded, or one of
 * nvidia-smi's documented "not available" answers); -1 when it is there
 * but not a count (another word, a sign, past 2^64 - 1). */
static int
counter(const json_t *o, const char *k, unsigned long long *v)
{
	const json_t *j = json_object_get(o, k);
	if (!json_is_string(j))
		return 0;
	const char *s = json_string_value(j);
	if (!strcmp(s, "[N/A]") || !strcmp(s, "N/A") || !strcmp(s, "[Not Supported]"))
		return 0;
	if (!*s || s[strspn(s, "0123456789")])
		return -1;
	char *end;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno == ERANGE ? -1 : 1;
}

/* The RDMA fabric of a node's probe that NCCL should have used: "EFA",
 * "InfiniBand", or NULL. Ports that are not ACTIVE do not count. */
static const char *
node_fabric(const json_t *probe)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(probe, "fabric"), i, p) {
		if (!strstr(jget_str(p, "state"), "ACTIVE"))
			continue;
		if (!strcmp(jget_str(p, "driver"), "efa") || !strncmp(jget_str(p, "device"), "efa", 3))
			return "EFA";
		if (!strcmp(jget_str(p, "link_layer"), "InfiniBand"))
			return "InfiniBand";
	}
	return NULL;
}

/* The nodes with a fabric, "InfiniBand: n1, n2" into out; 0 when none. */
static int
fabric_nodes(const json_t *nodes, struct sb *out)
{
	const char *name, *kind = NULL;
	json_t *probe;
	size_t n = 0;
	struct sb list = {0};
	json_object_foreach((json_t *)nodes, name, probe) {
		const char *k = node_fabric(probe);
		if (!k)
			continue;
		kind = kind && strcmp(kind, k) ? "InfiniBand or EFA" : k;
		sb_addf(&list, "%s%s", n++ ? ", " : "", name);
	}
	if (n)
		sb_addf(out, "%s: %s", kind, list.buf);
	sb_free(&list);
	return n > 0;
}

static void
nccl_findings(const struct nccl_seen *ns, const json_t *nodes, struct tallies *t)
{
	struct sb fab = {0};
	int rdma = fabric_nodes(nodes, &fab);
	char where[256];
	if (ns->socket_line && rdma) {
		snprintf(where, sizeof where, "%s (log line %ld)", fab.buf, ns->socket_line);
		tally(t, ns->plugin_line ? R_PLUGIN_SOCKET : R_SOCKET, "", where);
	} else if (ns->plugin_line) {
		snprintf(where, sizeof where, "(log line %ld: %s)", ns->plugin_line, ns->plugin_text);
		tally(t, R_PLUGIN, "", where);
	}
	sb_free(&fab);
}

/* What identifies a GPU between two probes: its UUID, else its PCI bus
 * id, else (a probe that has neither) nvidia-smi's index. Not its place
 * in the list: a GPU that drops out moves the ones after it. */
static const char *
gpu_key(const json_t *g, char *buf, size_t len)
{
	static const char *const ids[] = {"uuid", "pci.bus_id"};
	for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
		const char *v = jget_str(g, ids[i]);
		if (*v && *v != '[' && strcmp(v, "N/A"))
			return v;
	}
	snprintf(buf, len, "index %s", jget_str(g, "index"));
	return buf;
}

static const json_t *
gpu_match(const json_t *gpus, const json_t *g)
{
	char b1[32], b2[32];
	const char *k = gpu_key(g, b1, sizeof b1);
	size_t i;
	json_t *x;
	json_array_foreach(gpus, i, x)
		if (!strcmp(gpu_key(x, b2, sizeof b2), k))
			return x;
	return NULL;
}

/* A counter of the after probe against the one before: 1 when it grew;
 * a side that holds something other than a count is a finding. */
static int
grew(const json_t *g0, const json_t *g, const char *field, const char *where, struct tallies *t)
{
	unsigned long long a = 0, b = 0;
	int ra = counter(g, field, &a), rb = g0 ? counter(g0, field, &b) : 0;
	if (ra < 0 || rb < 0) {
		char *w = xasprintf("%s (%s: %s)", where, field, jget_str(ra < 0 ? g : g0, field));
		tally(t, R_COUNTER, "", w);
		free(w);
	}
	return ra > 0 && rb > 0 && a > b;
}

/* The after probe of one node against its probe before training. */
static void
gpu_findings(const char *node, const json_t *before, const json_t *after, struct tallies *t)
{
	char where[128];
	size_t i;
	json_t *g;
	const json_t *gb = json_object_get(before, "gpus"), *ga = json_object_get(after, "gpus");
	int unread = 0; /* after rows the probe could not read: a GPU not found may be one */
	json_array_foreach(ga, i, g) {
		if (json_object_get(g, "status")) {
			snprintf(where, sizeof where, "on %s (%s)", node, jget_str(g, "why"));
			tally(t, R_GPU_ROW, "", where);
			unread = 1;
			continue;
		}
		const json_t *g0 = gpu_match(gb, g);
		/* named as the run knew it when it started */
		snprintf(where, sizeof where, "on %s GPU %s", node, jget_str(g0 ? g0 : g, "index"));
		const char *mask = jget_str(g, "clocks_throttle_reasons.active");
		unsigned long long m = strtoull(mask, NULL, 16);
		for (size_t b = 0; b < sizeof throttle_bits / sizeof *throttle_bits; b++)
			if (m & throttle_bits[b].bit)
				tally(t, throttle_bits[b].rule, throttle_bits[b].name, where);
		int ecc = 0;
		for (size_t k = 0; k < sizeof ecc_fields / sizeof *ecc_fields; k++)
			ecc |= grew(g0, g, ecc_fields[k], where, t);
		if (ecc)
			tally(t, R_ECC, "", where);
	}
	/* each GPU of the probe before, when nvidia-smi answered after */
	json_array_foreach(json_is_array(ga) && !unread ? gb : NULL, i, g) {
		if (json_object_get(g, "status") || gpu_match(ga, g))
			continue;
		char b[32];
		snprintf(where, sizeof where, "on %s GPU %s (%s)", node, jget_str(g, "index"), gpu_key(g, b, sizeof b));
		tally(t, R_GPU_LOST, "", where);
	}
	snprintf(where, sizeof where, "on %s", node);
	if (grew(before, after, "xid_events", where, t)) {
		unsigned long long x1 = 0, x0 = 0;
		counter(after, "xid_events", &x1);
		counter(before, "xid_events", &x0);
		snprintf(where, sizeof where, "on %s (%llu)", node, x1 - x0);
		tally(t, R_XID, "", where);
	}
}

/* Nodes whose probe did not answer (failed, killed at its bound, or
 * unreadable): named, with why. Not a group that is missing as a whole
 * (no probe at all: the checks are then not listed as made). */
static void
unprobed(const json_t *nodes, enum rule r, struct tallies *t)
{
	const char *name;
	json_t *p;
	if (json_is_string(json_object_get(nodes, "status")))
		return;
	json_object_foreach((json_t *)nodes, name, p) {
		if (!strcmp(jget_str(p, "status"), "ok"))
			continue;
		char *w = xasprintf("%s (%s)", name, *jget_str(p, "why") ? jget_str(p, "why") : "no reason recorded");
		tally(t, r, "", w);
		free(w);
	}
}

/* The pre-flight findings of each node's probe before training, one tally
 * per check (a node's reason the first time). 1 when a probe judged. */
static int
preflight_findings(const json_t *nodes, struct tallies *t)
{
	const char *name;
	json_t *p;
	int judged = 0;
	json_object_foreach((json_t *)nodes, name, p) {
		const json_t *pf = json_object_get(p, "preflight");
		if (!json_is_object(pf))
			continue;
		judged = 1;
		size_t i;
		json_t *f;
		json_array_foreach(json_object_get(pf, "findings"), i, f) {
			const char *v = jget_str(f, "verdict");
			if (strcmp(v, "warn") && strcmp(v, "fail"))
				continue;
			char where[256];
			snprintf(where, sizeof where, "on %s (%s)", name, jget_str(f, "why"));
			tally(t, strcmp(v, "fail") ? R_PF_WARN : R_PF_FAIL, jget_str(f, "check"), where);
		}
	}
	return judged;
}

static json_t *
result_of(const struct tallies *t, json_t *checked)
{
	json_t *inv = json_array(), *flg = json_array(), *fs = json_array();
	for (size_t i = 0; i < t->n; i++) {
		const struct tally *x = &t->v[i];
		char *why = xasprintf("%s%s%s %s", rules[x->rule].words, *x->what ? " " : "", x->what, x->first);
		if (x->more) {
			char *w = xasprintf("%s and %zu more", why, x->more);
			free(why);
			why = w;
		}
		int bad = rules[x->rule].verdict == V_INVALID;
		json_array_append_new(bad ? inv : flg, json_string(why));
		json_array_append_new(fs, json_pack("{s:s, s:s, s:s}", "rule", rules[x->rule].name,
						    "verdict", bad ? "invalid" : "flagged", "reason", why));
		free(why);
	}
	return json_pack("{s:b, s:o, s:o, s:o, s:o}", "valid", json_array_size(inv) == 0, "invalid", inv,
			 "flagged", flg, "findings", fs, "checked", checked);
}

json_t *
validity_check(const char *log, const json_t *prov)
{
	struct nccl_seen ns = {0};
	struct tallies t = {NULL, 0};
	json_t *checked = json_array();
	const json_t *nodes = json_object_get(prov, "nodes"), *after = json_object_get(prov, "nodes_after");
	scan_log(log, &ns);
	if (ns.any)
		json_array_append_new(checked, json_string("nccl_log"));
	const char *name;
	json_t *p;
	int fabric = 0, sampled = 0;
	json_object_foreach((json_t *)nodes, name, p)
		fabric |= json_is_array(json_object_get(p, "fabric"));
	if (fabric)
		json_array_append_new(checked, json_string("fabric"));
	nccl_findings(&ns, nodes, &t);
	if (preflight_findings(nodes, &t))
		json_array_append_new(checked, json_string("preflight"));
	unprobed(nodes, R_PROBE, &t);
	unprobed(after, R_PROBE_AFTER, &t);
	json_object_foreach((json_t *)after, name, p) {
		if (strcmp(jget_str(p, "status"), "ok"))
			continue;
		/* a node without nvidia-smi has its XID count only */
		unsigned long long x;
		sampled |= json_is_array(json_object_get(p, "gpus")) || counter(p, "xid_events", &x) != 0;
		gpu_findings(name, json_object_get(nodes, name), p, &t);
	}
	if (sampled)
		json_array_append_new(checked, json_string("after"));
	json_t *r = result_of(&t, checked);
	free(t.v);
	return r;
}

json_t *
validity_load_provenance(const char *path, char **why)
{
	const char *err;
	size_t len;
	char *text = read_regular_file(path, &len, &err); /* a FIFO is refused, not waited on */
	json_error_t je;
	json_t *p = text ? json_loadb(text, len, 0, &je) : NULL;
	*why = NULL;
	if (!text)
		*why = xstrdup(err);
	else if (!p)
		*why = has_control(je.text) ? xasprintf("not JSON (line %d, column %d)", je.line, je.column)
					    : xasprintf("not JSON (line %d: %s)", je.line, je.text);
	else if (!json_is_object(p))
		*why = xstrdup("not a provenance: a JSON object was expected");
	free(text);
	if (*why) {
		json_decref(p);
		return NULL;
	}
	return p;
}

json_t *
validity_of_files(const char *log, const char *prov_path)
{
	json_t *prov = prov_path ? json_load_file(prov_path, 0, NULL) : NULL;
	json_t *v = validity_check(log, json_is_object(prov) ? prov : NULL);
	json_decref(prov);
	return v;
}
