#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

const char *progname = "llmb";

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	struct sb s = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&s, fmt, ap);
	va_end(ap);
	return sb_steal(&s);
}

void
die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: error: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void
warn(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: warning: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
sb_grow(struct sb *s, size_t extra)
{
	if (s->len + extra + 1 <= s->cap)
		return;
	size_t cap = s->cap ? s->cap : 64;
	while (cap < s->len + extra + 1)
		cap *= 2;
	s->buf = xrealloc(s->buf, cap);
	s->cap = cap;
}

void
sb_addn(struct sb *s, const char *str, size_t n)
{
	sb_grow(s, n);
	memcpy(s->buf + s->len, str, n);
	s->len += n;
	s->buf[s->len] = 0;
}

void
sb_add(struct sb *s, const char *str)
{
	sb_addn(s, str, strlen(str));
}

void
sb_addc(struct sb *s, char c)
{
	sb_addn(s, &c, 1);
}

void
sb_vaddf(struct sb *s, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		die("bad format string");
	sb_grow(s, (size_t)n);
	vsnprintf(s->buf + s->len, (size_t)n + 1, fmt, ap);
	s->len += (size_t)n;
}

void
sb_addf(struct sb *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(s, fmt, ap);
	va_end(ap);
}

void
sb_add_shquote(struct sb *s, const char *str)
{
	sb_addc(s, '\'');
	for (; *str; str++) {
		if (*str == '\'')
			sb_add(s, "'\\''");
		else
			sb_addc(s, *str);
	}
	sb_addc(s, '\'');
}

void
sb_reset(struct sb *s)
{
	s->len = 0;
	if (s->buf)
		s->buf[0] = 0;
}

char *
sb_steal(struct sb *s)
{
	char *p = s->buf ? s->buf : xstrdup("");
	s->buf = NULL;
	s->len = s->cap = 0;
	return p;
}

void
sb_free(struct sb *s)
{
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}

char *
read_file(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *s = read_fd(fd, lenp);
	int e = errno;
	close(fd);
	errno = e;
	return s;
}

char *
read_fd(int fd, size_t *lenp)
{
	struct sb s = {0};
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			sb_free(&s);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		sb_addn(&s, buf, (size_t)n);
	}
	if (lenp)
		*lenp = s.len;
	return sb_steal(&s);
}

static int write_atomic(const char *path, const void *data, size_t len, int sync);

/* A writer killed between its write and its rename leaves path.tmp.<pid>
 * for good; the next write of the same path removes those of processes
 * that are gone. Only old ones (a minute): on an install tree shared by
 * several hosts the pid may be another host's live writer. */
static void
remove_stale_tmps(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path + (slash == path))) : xstrdup(".");
	const char *base = slash ? slash + 1 : path;
	size_t bl = strlen(base);
	DIR *d = opendir(dir);
	time_t now = time(NULL);
	for (struct dirent *e; d && (e = readdir(d));) {
		const char *n = e->d_name;
		if (strncmp(n, base, bl) || strncmp(n + bl, ".tmp.", 5) || !n[bl + 5] ||
		    strspn(n + bl + 5, "0123456789") != strlen(n + bl + 5))
			continue;
		long pid = strtol(n + bl + 5, NULL, 10);
		char *t = xasprintf("%s/%s", dir, n);
		struct stat st;
		if (pid > 0 && pid != (long)getpid() && (pid > INT32_MAX || (kill((pid_t)pid, 0) < 0 && errno == ESRCH)) &&
		    lstat(t, &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtime > 60)
			unlink(t);
		free(t);
	}
	if (d)
		closedir(d);
	free(dir);
}

int
write_file_atomic(const char *path, const void *data, size_t len)
{
	int rc = write_atomic(path, data, len, 1);
	if (rc == 0)
		remove_stale_tmps(path);
	return rc;
}

static int
write_atomic(const char *path, const void *data, size_t len, int sync)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT && mkdir_p(path, 1) == 0)
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t n = write(fd, p, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		p += n;
		left -= (size_t)n;
	}
	if (sync && fsync(fd) < 0 && errno != EINVAL)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		fd = -1;
		goto fail;
	}
	free(tmp);
	return 0;
fail:;
	int e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = e;
	return -1;
}

int
write_file_if_changed(const char *path, const void *data, size_t len)
{
	size_t old_len;
	char *old = read_file(path, &old_len);
	if (old) {
		int same = old_len == len && memcmp(old, data, len) == 0;
		free(old);
		if (same)
			return 0;
	}
	/* Generated files can be made again: renamed into place, not synced. */
	return write_atomic(path, data, len, 0) < 0 ? -1 : 1;
}

int
mkdir_p(const char *path, int dir_of)
{
	char *p = xstrdup(path);
	if (dir_of) {
		char *slash = strrchr(p, '/');
		if (!slash) {
			free(p);
			return 0;
		}
		*slash = 0;
	}
	for (char *c = p + 1; ; c++) {
		if (*c == '/' || *c == 0) {
			char save = *c;
			*c = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				int e = errno;
				free(p);
				errno = e;
				return -1;
			}
			*c = save;
			if (!save)
				break;
		}
	}
	free(p);
	return 0;
}

int
file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int
lock_fd(int fd, int flags)
{
	while (flock(fd, LOCK_EX | (flags & LK_TRY ? LOCK_NB : 0)) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

int
lock_file(const char *path, int flags)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | (flags & LK_NOFOLLOW ? O_NOFOLLOW : 0), 0644);
	if (fd < 0)
		return -1;
	if (lock_fd(fd, flags) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -2;
	}
	return fd;
}

/* SHA-256 (FIPS 180-4). */
static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void
sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + sha_k[i] + w[i];
		uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

void
sha256_hex(const void *data, size_t len, char out[65])
{
	uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	const unsigned char *p = data;
	size_t left = len;
	while (left >= 64) {
		sha256_block(h, p);
		p += 64;
		left -= 64;
	}
	unsigned char tail[128] = {0};
	memcpy(tail, p, left);
	tail[left] = 0x80;
	size_t tl = left < 56 ? 64 : 128;
	uint64_t bits = (uint64_t)len * 8;
	for (int i = 0; i < 8; i++)
		tail[tl - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha256_block(h, tail);
	if (tl == 128)
		sha256_block(h, tail + 64);
	for (int i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", h[i]);
}

int
has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 1;
	return 0;
}

long
long_or(const char *text, long dflt)
{
	return text && *text ? atol(text) : dflt;
}

const char bool_spellings[] = "1/0, true/false, yes/no or on/off";

int
parse_bool(const char *s)
{
	static const char *const on[] = {"1", "true", "yes", "on"}, *const off[] = {"0", "false", "no", "off"};
	for (size_t i = 0; i < sizeof on / sizeof *on; i++) {
		if (!strcasecmp(s, on[i]))
			return 1;
		if (!strcasecmp(s, off[i]))
			return 0;
	}
	return -1;
}

size_t
list_word(const char **p)
{
	*p += strspn(*p, " \t,");
	return strcspn(*p, " \t,");
}

int
list_has(const char *list, const char *w, size_t n)
{
	for (size_t l; (l = list_word(&list)); list += l)
		if (l == n && !strncmp(list, w, n))
			return 1;
	return 0;
}

double
now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

char *
utc_time_as(time_t t, const char *fmt)
{
	char buf[64];
	struct tm tm;
	gmtime_r(&t, &tm);
	if (!strftime(buf, sizeof buf, fmt, &tm))
		buf[0] = 0;
	return xstrdup(buf);
}

char *
utc_now_as(const char *fmt)
{
	return utc_time_as(time(NULL), fmt);
}

char *
utc_timestamp(void)
{
	return utc_now_as("%Y-%m-%dT%H:%M:%SZ");
}

void
sb_add_html(struct sb *o, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': sb_add(o, "&amp;"); break;
		case '<': sb_add(o, "&lt;"); break;
		case '>': sb_add(o, "&gt;"); break;
		case '"': sb_add(o, "&quot;"); break;
		case '\'': sb_add(o, "&#39;"); break;
		default: sb_addc(o, *s);
		}
	}
}

long
utf8_invalid_at(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; u[i];) {
		unsigned char c = u[i];
		size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		if (!n)
			return (long)i;
		for (size_t k = 1; k < n; k++)
			if ((u[i + k] & 0xc0) != 0x80)
				return (long)i;
		if (n > 2 && ((c == 0xe0 && u[i + 1] < 0xa0) || (c == 0xed && u[i + 1] >= 0xa0) ||
			      (c == 0xf0 && u[i + 1] < 0x90) || (c == 0xf4 && u[i + 1] >= 0x90)))
			return (long)i;
		i += n;
	}
	return -1;
}

int
out_path_ok(const char *prog, const char *path)
{
	struct stat st;
	if (!*path) {
		fprintf(stderr, "%s: error: --out: an empty file name\n", prog);
		return -1;
	}
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : (fprintf(stderr, "%s: error: --out %s: %s\n", prog, path, strerror(errno)), -1);
	if (S_ISREG(st.st_mode))
		return 0;
	const char *what = S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory" :
			   S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" :
			   "not a regular file";
	fprintf(stderr, "%s: error: --out %s: %s, not a regular file: refusing to replace it (- writes to stdout)\n",
		prog, path, what);
	return -1;
}

char *
read_regular_file(const char *path, size_t *lenp, const char **why)
{
	/* O_NONBLOCK: opening a FIFO without a writer must not block */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	*why = NULL;
	if (fd < 0 || fstat(fd, &st) < 0) {
		*why = strerror(errno);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		*why = S_ISDIR(st.st_mode) ? "a directory, not a regular file" : "not a regular file";
		return NULL;
	}
	close(fd);
	char *s = read_file(path, lenp);
	if (!s)
		*why = strerror(errno);
	return s;
}
