/* annotate: `llmb annotate`, an annotation appended to one configuration's
 * history (an accepted baseline, an acknowledged false alarm or an accepted
 * mode) under the history lock, through the reader's own checks
 * (history.c). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/util.h"
#include "store/history.h"
#include "store/layout.h"

static const char annotate_usage[] =
	"usage: llmb annotate --install DIR FINGERPRINT (--accept-baseline NIGHT | --ack NIGHT | --accept-mode NIGHT)\n"
	"                     --reason TEXT [--wait SECONDS]\n"
	"  --accept-baseline NIGHT  a new baseline segment starts at NIGHT (an intended change)\n"
	"  --ack NIGHT              NIGHT was a false alarm: excluded from baselines, counted\n"
	"  --accept-mode NIGHT      NIGHT's level is a normal mode of this configuration (two-mode clusters):\n"
	"                           OK and kept in baselines; short runs at that level are no change, counted\n"
	"Appended to DIR/history/FINGERPRINT.jsonl under DIR/history/.lock (--wait: give up after SECONDS).\n";

static int
has_night(const struct history *h, int day)
{
	for (size_t i = 0; i < h->nruns; i++)
		if (h->runs[i].day == day)
			return 1;
	return 0;
}

int
cmd_annotate(int argc, char **argv)
{
	const char *install = NULL, *fp = NULL, *night = NULL, *reason = NULL;
	int action = -1; /* ANN_* */
	static const struct option longopts[] = {
		{"install", required_argument, NULL, 'i'}, {"accept-baseline", required_argument, NULL, 'b'},
		{"ack", required_argument, NULL, 'a'}, {"accept-mode", required_argument, NULL, 'm'},
		{"reason", required_argument, NULL, 'r'},
		{"wait", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *text;
	int c;
	cliopt_start();
	while ((c = cliopt_next(argc, argv, "-h", longopts, &text)) != -1) {
		/* the values are "--name=value" or the next word */
		if (c == 'h' && (!strcmp(text, "-h") || !strcmp(text, "--help"))) {
			fputs(annotate_usage, stdout);
			return 0;
		} else if (c == 1 && optarg[0] != '-' && !fp) {
			fp = optarg;
		} else if ((c == 'b' || c == 'a' || c == 'm') && action >= 0) {
			fprintf(stderr, "%s: error: one action per annotation: --accept-baseline, --ack or --accept-mode, once\n",
				progname);
			return 2;
		} else if (c == 'w') {
			if (lock_wait_option(optarg) < 0)
				return 2;
		} else if (c == 'i' || c == 'b' || c == 'a' || c == 'm' || c == 'r') {
			if (c == 'i')
				install = optarg;
			else if (c == 'r')
				reason = optarg;
			else
				action = c == 'b' ? ANN_ACCEPT : c == 'a' ? ANN_ACK : ANN_MODE, night = optarg;
		} else {
			fputs(annotate_usage, stderr);
			return 2;
		}
	}
	if (cliopt_dashes()) { /* never allowed */
		fputs(annotate_usage, stderr);
		return 2;
	}
	if (!install || !fp || action < 0 || !reason) {
		fputs(annotate_usage, stderr);
		return 2;
	}
	if (!*reason || strchr(reason, '\n')) {
		fprintf(stderr, "%s: the reason must be one non-empty line\n", progname);
		return 2;
	}
	long bad = utf8_invalid_at(reason);
	if (bad >= 0) {
		fprintf(stderr, "%s: error: the reason is not valid UTF-8 (byte %ld): nothing appended\n", progname, bad + 1);
		return 2;
	}
	if (!history_fingerprint_ok(fp)) {
		fprintf(stderr, "%s: '%s' is not a configuration fingerprint\n", progname, fp);
		return 2;
	}
	int day = history_day(night);
	if (day < 0) {
		fprintf(stderr, "%s: night '%s' is not a date (YYYY-MM-DD)\n", progname, night);
		return 2;
	}
	char *path = layout_history(install, fp);
	struct history h;
	int rc = 2;
	if (!file_exists(path))
		fprintf(stderr, "%s: unknown fingerprint '%s': no %s\n", progname, fp, path);
	else if (history_load(path, &h) == 0) {
		if (action != ANN_ACCEPT && !has_night(&h, day))
			fprintf(stderr, "%s: %s has no run on night %s to %s\n", progname, fp, night,
				action == ANN_ACK ? "acknowledge" : "accept as a mode");
		else {
			char *line = history_annotation_line(fp, history_action_name(action), night, reason, "user");
			char *lock = layout_history_lock(install);
			int arc = line ? history_append_line(lock, path, line) : -2;
			if (arc == 0)
				rc = 0;
			else if (arc == -2)
				fprintf(stderr, "%s: error: not appending an annotation the history reader would refuse\n", progname);
			else if (arc == -1)
				fprintf(stderr, "%s: cannot append to %s: %s\n", progname, path, strerror(errno));
			free(line);
			free(lock);
		}
		history_free(&h);
	} else
		history_free(&h);
	free(path);
	return rc;
}
