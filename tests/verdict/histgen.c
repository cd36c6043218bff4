/* histgen: writes a generated nightly history (format v1, one run record
 * per line) for the verdict tests and the detection benchmark. Every
 * number comes from a seeded generator, so the same arguments give the
 * same bytes on every machine.
 *
 *   histgen [-n NIGHTS] [-s STEPS] [-b BASE] [-r RUN_NOISE] [-w STEP_NOISE]
 *           [-a AR1] [-S SEED] [-f FINGERPRINT] [-d FIRST_NIGHT]
 *           [EVENT...]
 * events (nights count from 1):
 *   shift:N:F    nights N.. run F times slower (F=1.3: 30% slower)
 *   spike:N:F    night N only
 *   drift:N:F    from night N each night F more (F=0.005: 0.5% per night)
 *   bimodal:P:F[:RUN[:ONSET]]  every night, with probability P, runs F
 *                times slower (a slow mode: node placement, a slower switch);
 *                drawn from a generator of its own, so the noise is that of
 *                the same series without it. RUN > 1: slow nights come in
 *                runs of RUN nights on average (a Markov chain whose share
 *                of slow nights stays P); ONSET > 1: nights before ONSET
 *                are all fast (a second mode that appears and lasts).
 *                Without them (RUN 1, ONSET 1) each night is independent
 *                and the draws are those of bimodal:P:F
 *   stall:N:F:K  night N has K steps (spread over the window) F times slower
 *   noisier:N:F  from night N on, run-to-run noise F times larger (a shared
 *                partition, a noisier fabric); the level stays
 *   invalid:N:REASON   night N is recorded invalid
 *   failed:N     night N failed (no samples)
 *   nan:N        night N has a NaN step, written null (the record says valid: the reader's check catches it)
 *   short:N      night N's window is incomplete (summary.n > samples)
 *   repeat:N     night N has two runs
 *   skip:N       no record for night N
 *   ref:STEP:TOL every record carries this reference
 *   image:N:REF  from night N on, the image reference is REF */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static double
unif(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

/* The mode of each night (bimodal:P:F) from its own stream. */
static uint64_t mode_state;

static double
mode_unif(void)
{
	uint64_t keep = state, z;
	state = mode_state;
	double u = unif();
	z = state, state = keep, mode_state = z;
	return u;
}

static double
gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

static void
night_name(int first_day, int i, char *out)
{
	/* civil_from_days (Howard Hinnant) */
	int z = first_day + i + 719468, era = z / 146097, doe = z - era * 146097;
	int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1, m = mp + (mp < 10 ? 3 : -9);
	sprintf(out, "%04d-%02d-%02d", (y + (m <= 2)) % 10000, m % 100, d % 100);
}

static int
day_of(const char *s)
{
	int y = atoi(s), m = atoi(s + 5), d = atoi(s + 8);
	y -= m <= 2;
	int era = y / 400, yoe = y - era * 400, doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

struct ev {
	char kind[16];
	int night;
	double f;
	char text[128];
	double run;    /* bimodal: mean length of a run of slow nights (1: independent) */
	int onset;     /* bimodal: the first night the slow mode can come */
	int slow;      /* bimodal: the mode of the night before */
};

/* One night's mode of a bimodal:P:F:RUN:ONSET event. Independent nights
 * draw slow with probability P; in runs, a slow night stays slow with
 * probability 1 - 1/RUN (runs of RUN nights on average) and a fast one
 * turns slow with probability P / (RUN (1 - P)), so that P of all nights
 * are slow. The first night after the onset draws from P. One draw a
 * night either way, so the stream stays that of bimodal:P:F. */
static int
bimodal_slow(struct ev *e, int n)
{
	double p = e->night / 1000.0, u = mode_unif(), q = p;
	if (e->run > 1 && n > e->onset)
		q = e->slow ? 1 - 1 / e->run : p / (e->run * (1 - p));
	e->slow = n >= e->onset && u < q;
	return e->slow;
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void
summary(const double *x, int n, double *mean, double *med, double *sd, double *mad)
{
	double s = 0, v = 0, c[4096], d[4096];
	for (int i = 0; i < n; i++)
		s += x[i], c[i] = x[i];
	*mean = s / n;
	for (int i = 0; i < n; i++)
		v += (x[i] - *mean) * (x[i] - *mean);
	*sd = n > 1 ? sqrt(v / (n - 1)) : 0;
	qsort(c, n, sizeof *c, cmpd);
	*med = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	for (int i = 0; i < n; i++)
		d[i] = fabs(x[i] - *med);
	qsort(d, n, sizeof *d, cmpd);
	*mad = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	int nights = 10, steps = 20, nev = 0;
	double base = 0.5, rn = 0.01, wn = 0.01, ar = 0.5;
	const char *fp = "tinygpt_cpu_tiny_fp32_1_0123456789ab", *first = "2026-01-01";
	struct ev ev[64];
	state = 1;
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && i + 1 < argc; i += 2) {
		const char *v = argv[i + 1];
		switch (argv[i][1]) {
		case 'n': nights = atoi(v); break;
		case 's': steps = atoi(v); break;
		case 'b': base = atof(v); break;
		case 'r': rn = atof(v); break;
		case 'w': wn = atof(v); break;
		case 'a': ar = atof(v); break;
		case 'S': state = strtoull(v, NULL, 10) * 0x2545F4914F6CDD1DULL + 7; mode_state = ~state; break;
		case 'f': fp = v; break;
		case 'd': first = v; break;
		default: fprintf(stderr, "histgen: unknown option %s\n", argv[i]); return 2;
		}
	}
	for (; i < argc && nev < 64; i++, nev++) {
		struct ev *e = &ev[nev];
		memset(e, 0, sizeof *e);
		const char *c1 = strchr(argv[i], ':');
		if (!c1 || (size_t)(c1 - argv[i]) >= sizeof e->kind) {
			fprintf(stderr, "histgen: bad event %s\n", argv[i]);
			return 2;
		}
		memcpy(e->kind, argv[i], (size_t)(c1 - argv[i]));
		if (!strcmp(e->kind, "ref")) {
			e->f = atof(c1 + 1);
			snprintf(e->text, sizeof e->text, "%s", strchr(c1 + 1, ':') ? strchr(c1 + 1, ':') + 1 : "0.05");
			continue;
		}
		e->night = !strcmp(e->kind, "bimodal") ? (int)(atof(c1 + 1) * 1000 + 0.5) : atoi(c1 + 1);
		const char *c2 = strchr(c1 + 1, ':');
		if (c2)
			e->f = atof(c2 + 1), snprintf(e->text, sizeof e->text, "%s", c2 + 1);
		e->run = 1, e->onset = 1;
		const char *c3 = c2 ? strchr(c2 + 1, ':') : NULL, *c4 = c3 ? strchr(c3 + 1, ':') : NULL;
		if (!strcmp(e->kind, "bimodal") && c3) {
			e->run = atof(c3 + 1);
			e->onset = c4 ? atoi(c4 + 1) : 1;
			double p = e->night / 1000.0;
			/* a chain with this share and these runs exists only if a fast
			 * night's chance to turn slow is a probability */
			if (e->run < 1 || e->onset < 1 || p <= 0 || p >= 1 || p / (e->run * (1 - p)) > 1) {
				fprintf(stderr, "histgen: bad event %s (RUN >= 1, ONSET >= 1, 0 < P < 1, P <= RUN (1 - P))\n", argv[i]);
				return 2;
			}
		}
	}
	int d0 = day_of(first), job = 1000;
	double drift = 0;
	const char *image = "nvcr.io/nvidia/pytorch:25.01";
	for (int n = 1; n <= nights; n++) {
		double factor = 1, spike = 1, stall = 1, noisy = 1;
		int nstall = 0, invalid = 0, failed = 0, nan = 0, shortw = 0, runs = 1, skip = 0;
		const char *why = "";
		const struct ev *ref = NULL;
		for (int k = 0; k < nev; k++) {
			struct ev *e = &ev[k];
			if (!strcmp(e->kind, "shift") && n >= e->night) factor *= e->f;
			if (!strcmp(e->kind, "spike") && n == e->night) spike *= e->f;
			if (!strcmp(e->kind, "bimodal") && bimodal_slow(e, n)) factor *= e->f;
			if (!strcmp(e->kind, "stall") && n == e->night)
				stall = e->f, nstall = strchr(e->text, ':') ? atoi(strchr(e->text, ':') + 1) : 1;
			if (!strcmp(e->kind, "drift") && n == e->night) drift = e->f;
			if (!strcmp(e->kind, "invalid") && n == e->night) invalid = 1, why = e->text;
			if (!strcmp(e->kind, "failed") && n == e->night) failed = 1;
			if (!strcmp(e->kind, "nan") && n == e->night) nan = 1;
			if (!strcmp(e->kind, "short") && n == e->night) shortw = 1;
			if (!strcmp(e->kind, "repeat") && n == e->night) runs = 2;
			if (!strcmp(e->kind, "skip") && n == e->night) skip = 1;
			if (!strcmp(e->kind, "ref")) ref = e;
			if (!strcmp(e->kind, "noisier") && n >= e->night) noisy *= e->f;
			if (!strcmp(e->kind, "image") && n >= e->night) image = e->text;
		}
		double level = 1;
		for (int k = 0; k < nev; k++)
			if (!strcmp(ev[k].kind, "drift") && n >= ev[k].night)
				level += drift * (n - ev[k].night + 1);
		char night[16];
		night_name(d0, n - 1, night);
		for (int r = 0; r < runs; r++) {
			/* always draw, so an event on one night leaves the others' numbers alone */
			double run = base * factor * spike * level * (1 + rn * noisy * gauss()), x[4096], e = 0;
			for (int s = 0; s < steps; s++) {
				e = ar * e + sqrt(1 - ar * ar) * gauss();
				x[s] = run * (1 + wn * e);
			}
			for (int k = 0; k < nstall && k < steps; k++)
				x[(2 * k + 1) * steps / (2 * nstall)] *= stall;
			if (skip)
				continue;
			int ns = failed ? 0 : steps;
			double mean = 0, med = 0, sd = 0, mad = 0;
			if (ns)
				summary(x, ns, &mean, &med, &sd, &mad);
			printf("{\"config_hash\":\"cfg-1\",\"executor\":\"local\",\"fingerprint\":\"%s\",", fp);
			printf("\"image\":{\"digest\":null,\"ref\":\"%s\"},", image);
			if (invalid)
				printf("\"invalid\":[\"%s\"],", why);
			else
				printf("\"invalid\":[],");
			printf("\"job\":\"%d\",\"key\":{\"dtype\":\"fp32\",\"gpu\":\"cpu\",\"parallel\":{\"gbs\":8,\"mbs\":4,\"pp\":1,\"seq\":128,\"tp\":1},\"scale\":1,\"size\":\"tiny\",\"workload\":\"tinygpt\"},",
			       job++);
			printf("\"llmb_version\":\"0.9\",\"mfu\":null,\"night\":\"%s\",\"nodes\":\"localhost\",\"recorded_at\":\"%sT03:00:00Z\",", night, night);
			if (ref)
				printf("\"reference\":{\"step_time\":%.6g,\"tolerance\":%s},", ref->f, ref->text);
			else
				printf("\"reference\":null,");
			printf("\"samples\":[");
			for (int s = 0; s < ns; s++) {
				if (nan && s == ns / 2)
					printf("%snull", s ? "," : "");
				else
					printf("%s%.6g", s ? "," : "", x[s]);
			}
			printf("],\"status\":\"%s\",", failed ? "failed" : "ok");
			if (ns)
				printf("\"summary\":{\"mad\":%.6g,\"mean\":%.6g,\"median\":%.6g,\"n\":%d,\"std\":%.6g},", mad, mean, med,
				       ns + shortw * 5, sd);
			else
				printf("\"summary\":{\"mad\":null,\"mean\":null,\"median\":null,\"n\":0,\"std\":null},");
			printf("\"tflops_per_gpu\":null,\"tokens_per_s\":%.6g,\"type\":\"run\",\"v\":1,\"valid\":%s}\n",
			       ns ? 1024 / mean : 0.0, invalid || failed ? "false" : "true");
		}
	}
	return 0;
}
