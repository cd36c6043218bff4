/* sysdesc: `llmb sysdesc`, an MLPerf-style system description of the
 * machine a report ran on: the system_desc JSON of MLPerf submissions (one
 * object of string fields: system_name, number_of_nodes,
 * host_processor_model_name, accelerators_per_node,
 * accelerator_model_name, accelerator_memory_capacity, framework,
 * operating_system, ...), filled from the provenance of the report's runs
 * (the report JSON's runs carry their provenance.json), or of run
 * directories and provenance files. The machine is that of the run on the
 * most nodes; its first probed node speaks for the others. What no probe
 * recorded is left empty, never guessed; facts that differ between nodes
 * are named in hw_notes. Exit: 0, 2 bad input or usage. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "base/cmds.h"
#include "base/jget.h"
#include "base/util.h"
#include "results/nodes.h"
#include "results/sysdesc.h"
#include "store/layout.h"

static const char usage_text[] =
	"usage: llmb sysdesc [--system-name=NAME] [--submitter=NAME] [--division=closed|open]\n"
	"                    [--status=available|preview|rdi] [--out=FILE] INPUT...\n"
	"INPUT: a report JSON (llmb report --format=json or its --out file), a run directory\n"
	"(its provenance.json) or a provenance file. Writes an MLPerf-style system description\n"
	"(JSON) of the machine the runs ran on; what no probe recorded is left empty.\n";

/* The MLPerf system_desc fields, all strings. */
static const char *const fields[] = {
	"accelerator_frequency", "accelerator_host_interconnect", "accelerator_interconnect",
	"accelerator_interconnect_topology", "accelerator_memory_capacity", "accelerator_memory_configuration",
	"accelerator_model_name", "accelerator_on-chip_memories", "accelerators_per_node", "cooling", "division",
	"framework", "host_memory_capacity", "host_memory_configuration", "host_networking",
	"host_networking_topology", "host_processor_caches", "host_processor_core_count",
	"host_processor_frequency", "host_processor_interconnect", "host_processor_model_name",
	"host_processor_vcpu_count", "host_processors_per_node", "host_storage_capacity", "host_storage_type",
	"hw_notes", "number_of_nodes", "operating_system", "other_software_stack", "status", "submitter",
	"sw_notes", "system_name", "system_type",
};

/* Every provenance object of an input, appended to all. */
static int
load_input(const char *arg, json_t *all)
{
	struct stat st;
	char *path = stat(arg, &st) == 0 && S_ISDIR(st.st_mode) ? layout_in(arg, LAYOUT_PROVENANCE) : xstrdup(arg);
	json_error_t e;
	size_t len;
	const char *why;
	char *text = read_regular_file(path, &len, &why);
	json_t *j = text ? json_loadb(text, len, JSON_REJECT_DUPLICATES, &e) : NULL;
	free(text);
	int rc = 0;
	if (!text) {
		fprintf(stderr, "llmb sysdesc: error: %s: %s\n", path, why);
		rc = -1;
	} else if (!j) {
		fprintf(stderr, "%s:%d:%d: error: %s\n", path, e.line > 0 ? e.line : 1, e.column > 0 ? e.column : 1, e.text);
		rc = -1;
	} else if (json_object_get(j, "runs") || json_object_get(j, "excluded")) {
		static const char *const lists[] = {"runs", "excluded"};
		for (size_t l = 0; l < 2; l++) {
			size_t i;
			json_t *r;
			json_array_foreach(json_object_get(j, lists[l]), i, r)
				if (json_is_object(json_object_get(r, "provenance")))
					json_array_append(all, json_object_get(r, "provenance"));
		}
	} else if (json_object_get(j, "nodes") && json_object_get(j, "machine")) {
		json_array_append(all, j);
	} else {
		fprintf(stderr, "%s:1:1: error: neither a report nor a provenance file\n", path);
		rc = -1;
	}
	json_decref(j);
	free(path);
	return rc;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The probed nodes of a run (status ok), sorted by name, into *names
 * (NULL when none is asked for): how many, however many there are. */
static size_t
ok_nodes(const json_t *prov, const char ***names)
{
	const json_t *nodes = json_object_get(prov, "nodes");
	const char **v = names ? xcalloc(json_object_size(nodes) + 1, sizeof *v) : NULL;
	const char *k;
	json_t *x;
	size_t n = 0;
	json_object_foreach((json_t *)nodes, k, x)
		if (!strcmp(jget_str(x, "status"), "ok")) {
			if (v)
				v[n] = k;
			n++;
		}
	if (v)
		qsort(v, n, sizeof *v, by_name);
	if (names)
		*names = v;
	return n;
}

/* Nodes of a run: Slurm's node list (counted, never expanded), or the
 * probed ones when more. */
static size_t
node_count(const json_t *prov)
{
	size_t n = ok_nodes(prov, NULL), m = 0;
	nodes_count(jget_str(json_object_get(prov, "machine"), "nodes"), &m);
	return n > m ? n : m;
}

static void
set(json_t *d, const char *k, char *v)
{
	json_object_set_new(d, k, json_string(v ? v : ""));
	free(v);
}

/* A value of the node's first GPU, or NULL. */
static const char *
gpu0(const json_t *node, const char *k)
{
	const char *s = json_string_value(json_object_get(json_array_get(json_object_get(node, "gpus"), 0), k));
	return s && *s && strcmp(s, "[N/A]") ? s : NULL;
}

/* Facts that differ between the probed nodes of the run. */
static char *
node_differences(const json_t *prov, const char **names, size_t n)
{
	static const char *const gk[] = {"name", "clocks.applications.graphics", "power.limit", "driver_version"};
	struct sb s = {0};
	const json_t *nodes = json_object_get(prov, "nodes"), *ref = json_object_get(nodes, names[0]);
	for (size_t i = 1; i < n; i++) {
		const json_t *x = json_object_get(nodes, names[i]);
		for (size_t k = 0; k < sizeof gk / sizeof *gk; k++) {
			const char *a = gpu0(ref, gk[k]), *b = gpu0(x, gk[k]);
			if (a && b && strcmp(a, b))
				sb_addf(&s, "%s%s: %s %s (%s: %s)", s.len ? "; " : "", names[i], gk[k], b, names[0], a);
		}
	}
	return s.buf ? sb_steal(&s) : NULL;
}

static char *
framework(const json_t *sw)
{
	const json_t *img = json_object_get(sw, "image"), *venv = json_object_get(sw, "venv");
	if (json_is_string(json_object_get(img, "ref")))
		return xstrdup(jget_str(img, "ref"));
	if (!json_is_string(json_object_get(venv, "python")))
		return NULL;
	struct sb s = {0};
	sb_addf(&s, "Python %s", jget_str(venv, "python"));
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(venv, "pins"), i, p)
		if (json_is_string(p)) /* a provenance's own: a pin that is no string is skipped */
			sb_addf(&s, ", %s", json_string_value(p));
	return sb_steal(&s);
}

/* v when it is a count or a decimal figure written whole ("224", "1980",
 * "1980.5"; not "N/A", "", "12abc", "-1", "0x10"), else NULL: the field
 * is left empty, never 0. */
static const char *
number(const char *v)
{
	size_t i = v ? strspn(v, "0123456789") : 0, f = i && v[i] == '.' ? strspn(v + i + 1, "0123456789") : 0;
	return i && !v[i + (f ? f + 1 : 0)] ? v : NULL;
}

/* "<value/div> GiB" of a decimal figure written whole (number(); "N/A",
 * "", "12abc", "1e308": NULL, the field left empty rather than 0). */
static char *
gib(const char *v, double div)
{
	double x = number(v) ? strtod(v, NULL) : NAN;
	if (!isfinite(x) || x / div >= 1e15) /* more than a node holds: no figure */
		return NULL;
	return xasprintf("%.1f GiB", x / div);
}

json_t *
sysdesc_describe(json_t *all, const char *const opt[4])
{
	json_t *d = json_object();
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		json_object_set_new(d, fields[i], json_string(""));
	/* the most nodes any run ran on; the facts of the run with the most probed nodes */
	const json_t *best = NULL;
	const char **names = NULL;
	size_t bn = 0, n = 0, i;
	json_t *p;
	json_array_foreach(all, i, p) {
		size_t c = node_count(p), k = ok_nodes(p, NULL);
		bn = c > bn ? c : bn;
		if (!best || k > n)
			best = p, n = k;
	}
	n = ok_nodes(best, &names);
	const json_t *node = n ? json_object_get(json_object_get(best, "nodes"), names[0]) : NULL;
	const char *model = node ? gpu0(node, "name") : NULL;
	size_t ngpu = json_array_size(json_object_get(node, "gpus"));
	set(d, "system_name", opt[0] ? xstrdup(opt[0]) : model && bn ? xasprintf("%zu x %zu %s", bn, ngpu, model) : NULL);
	set(d, "submitter", opt[1] ? xstrdup(opt[1]) : NULL);
	set(d, "division", opt[2] ? xstrdup(opt[2]) : NULL);
	set(d, "status", opt[3] ? xstrdup(opt[3]) : NULL);
	set(d, "number_of_nodes", bn ? xasprintf("%zu", bn) : NULL);
	set(d, "accelerators_per_node", ngpu ? xasprintf("%zu", ngpu) : NULL);
	set(d, "accelerator_model_name", model ? xstrdup(model) : NULL);
	const char *mem = node ? gpu0(node, "memory.total") : NULL, *mhz = node ? number(gpu0(node, "clocks.max.sm")) : NULL;
	set(d, "accelerator_memory_capacity", gib(mem, 1024));
	set(d, "accelerator_frequency", mhz ? xasprintf("%s MHz", mhz) : NULL);
	const char *cpu = jget_str(node, "cpu_model"), *vcpu = number(jget_str(node, "cpus")), *hm = jget_str(node, "mem_total_kib");
	set(d, "host_processor_model_name", *cpu ? xstrdup(cpu) : NULL);
	set(d, "host_processor_vcpu_count", vcpu && !strchr(vcpu, '.') ? xstrdup(vcpu) : NULL);
	set(d, "host_memory_capacity", gib(hm, 1048576));
	set(d, "operating_system", *jget_str(node, "kernel") ? xasprintf("Linux %s", jget_str(node, "kernel")) : NULL);
	set(d, "framework", best ? framework(json_object_get(best, "software")) : NULL);
	struct sb o = {0};
	const char *drv = node ? gpu0(node, "driver_version") : NULL, *cuda = jget_str(node, "cuda_version");
	const char *nccl = jget_str(node, "nccl_version");
	if (drv)
		sb_addf(&o, "NVIDIA driver %s", drv);
	if (*cuda)
		sb_addf(&o, "%sCUDA %s", o.len ? ", " : "", cuda);
	if (*nccl)
		sb_addf(&o, "%sNCCL %s", o.len ? ", " : "", nccl);
	set(d, "other_software_stack", o.buf ? sb_steal(&o) : NULL);
	set(d, "hw_notes", n > 1 ? node_differences(best, names, n) : NULL);
	free(names);
	const char *ver = jget_str(json_object_get(best, "software"), "llmb_version");
	set(d, "sw_notes", xasprintf("from the provenance of %zu run%s by llmb sysdesc%s%s", json_array_size(all),
				     json_array_size(all) == 1 ? "" : "s", *ver ? ", llmb " : "", ver));
	return d;
}

char *
sysdesc_text(json_t *provs, const char *const opt[4])
{
	json_t *d = sysdesc_describe(provs, opt);
	char *s = json_dumps(d, JSON_SORT_KEYS | JSON_INDENT(4)), *txt = xasprintf("%s\n", s);
	free(s);
	json_decref(d);
	return txt;
}

int
cmd_sysdesc(int argc, char **argv)
{
	static const char *const flags[] = {"--system-name=", "--submitter=", "--division=", "--status="};
	const char *opt[4] = {0}, *out = NULL;
	json_t *all = json_array();
	int bad = 0, inputs = 0;
	for (int i = 1; i < argc; i++) {
		size_t f = 0;
		while (f < 4 && strncmp(argv[i], flags[f], strlen(flags[f])))
			f++;
		size_t fl = 0; /* "--name VALUE": the flag without its "=" */
		while (fl < 4 && (strlen(argv[i]) != strlen(flags[fl]) - 1 || strncmp(argv[i], flags[fl], strlen(argv[i]))))
			fl++;
		if (f < 4) {
			opt[f] = argv[i] + strlen(flags[f]);
		} else if (fl < 4 && i + 1 < argc) {
			opt[fl] = argv[++i];
		} else if (!strncmp(argv[i], "--out=", 6)) {
			out = argv[i] + 6;
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			json_decref(all);
			return fputs(usage_text, stdout), 0;
		} else if (argv[i][0] == '-') {
			json_decref(all);
			fprintf(stderr, "%s: unknown option '%s'\n", progname, argv[i]);
			return fputs(usage_text, stderr), 2;
		} else {
			inputs++;
			bad |= load_input(argv[i], all) < 0;
		}
	}
	if (!inputs) {
		json_decref(all);
		return fputs(usage_text, stderr), 2;
	}
	/* the enumerated options hold one of their words */
	if ((opt[2] && strcmp(opt[2], "closed") && strcmp(opt[2], "open")) ||
	    (opt[3] && strcmp(opt[3], "available") && strcmp(opt[3], "preview") && strcmp(opt[3], "rdi"))) {
		int st = opt[3] && strcmp(opt[3], "available") && strcmp(opt[3], "preview") && strcmp(opt[3], "rdi");
		fprintf(stderr, "llmb sysdesc: error: %s=%s: expected %s\n", st ? "--status" : "--division",
			st ? opt[3] : opt[2], st ? "available, preview or rdi" : "closed or open");
		json_decref(all);
		return 2;
	}
	if (!bad && !json_array_size(all)) {
		fprintf(stderr, "llmb sysdesc: no run with a provenance.json in the input\n");
		bad = 1;
	}
	if (bad) {
		json_decref(all);
		return 2;
	}
	char *txt = sysdesc_text(all, opt);
	int rc = 0;
	if (out && !strcmp(out, "-"))
		out = NULL;
	if (out && out_path_ok("llmb sysdesc", out) < 0)
		rc = 2;
	else if (out && write_file_atomic(out, txt, strlen(txt)) < 0) {
		fprintf(stderr, "llmb sysdesc: cannot write %s\n", out);
		rc = 2;
	} else if (!out) {
		fputs(txt, stdout);
	}
	free(txt);
	json_decref(all);
	return rc;
}
