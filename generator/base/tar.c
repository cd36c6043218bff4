/* tar: the ustar format of POSIX (pax, IEEE 1003.1), as llmb archive needs
 * it. The writer makes regular files only, every header field that is not
 * the path, size and mtime fixed, so an archive depends on its members
 * alone. A path over 100 bytes is split into ustar's prefix and name when
 * it can be, else carried by a pax extended header ("path=" record), as
 * is a time after 2242 ("mtime="), which the header's octal cannot hold. The
 * reader takes what other tars write too (GNU's "ustar  " magic and long
 * names 'L', pax headers, directories, which it skips), so an archive
 * unpacked and packed again with tar(1) can still be checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tar.h"

#define BLOCK 512
#define OCTAL_MAX 077777777777ULL /* 11 octal digits: a size of 8 GiB - 1, a time in 2242 */

/* Field offsets and widths of a ustar header. */
enum {
	F_NAME = 0, F_MODE = 100, F_UID = 108, F_GID = 116, F_SIZE = 124, F_MTIME = 136,
	F_CHKSUM = 148, F_TYPE = 156, F_MAGIC = 257, F_VERSION = 263, F_PREFIX = 345,
};

static void
octal(unsigned char *h, int at, int width, unsigned long long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%0*llo", width - 1, v);
	memcpy(h + at, buf, (size_t)width); /* width - 1 digits and a NUL */
}

static unsigned
checksum(const unsigned char *h)
{
	unsigned sum = 0;
	for (int i = 0; i < BLOCK; i++)
		sum += i >= F_CHKSUM && i < F_CHKSUM + 8 ? ' ' : h[i];
	return sum;
}

/* One header block: name (and prefix) as given, the rest normalised. */
static void
header(struct sb *tar, const char *prefix, size_t plen, const char *name, char type, unsigned long long size,
       unsigned long long mtime)
{
	unsigned char h[BLOCK] = {0};
	size_t nlen = strlen(name);
	memcpy(h + F_NAME, name, nlen > 100 ? 100 : nlen);
	memcpy(h + F_PREFIX, prefix, plen);
	octal(h, F_MODE, 8, 0644);
	octal(h, F_UID, 8, 0);
	octal(h, F_GID, 8, 0);
	octal(h, F_SIZE, 12, size);
	octal(h, F_MTIME, 12, mtime);
	h[F_TYPE] = (unsigned char)type;
	memcpy(h + F_MAGIC, "ustar", 6);
	memcpy(h + F_VERSION, "00", 2);
	char ck[8];
	snprintf(ck, sizeof ck, "%06o", checksum(h));
	memcpy(h + F_CHKSUM, ck, 7); /* six digits, NUL, and the space left */
	h[F_CHKSUM + 7] = ' ';
	sb_addn(tar, (const char *)h, BLOCK);
}

/* data, padded with zeros to a whole block */
static void
body(struct sb *tar, const void *data, size_t len)
{
	sb_addn(tar, data, len);
	static const char zero[BLOCK];
	if (len % BLOCK)
		sb_addn(tar, zero, BLOCK - len % BLOCK);
}

static size_t
digits(size_t n)
{
	size_t d = 1;
	for (; n >= 10; n /= 10)
		d++;
	return d;
}

/* A pax record "<n> key=value\n", n counting its own digits. */
static void
pax_record(struct sb *s, const char *key, const char *value)
{
	size_t base = strlen(key) + strlen(value) + 3, n = base + 1; /* ' ', '=', '\n' */
	while (base + digits(n) != n)
		n = base + digits(n);
	sb_addf(s, "%zu %s=%s\n", n, key, value);
}

int
tar_add(struct sb *tar, const char *path, const void *data, size_t len, time_t mtime)
{
	if ((unsigned long long)len > OCTAL_MAX)
		return -1;
	size_t n = strlen(path);
	const char *cut = NULL; /* ustar: prefix (155 at most) '/' name (100 at most) */
	for (const char *s = strchr(path, '/'); n > 100 && s; s = strchr(s + 1, '/'))
		if ((size_t)(s - path) <= 155 && n - (size_t)(s - path) - 1 <= 100 && s[1])
			cut = s;
	struct sb pax = {0};
	if (n > 100 && !(cut && cut > path))
		pax_record(&pax, "path", path);
	/* A time the 11 octal digits cannot hold (after 2242) goes in a pax
	 * record; the header keeps the largest it can, never a cut one. */
	unsigned long long t = mtime > 0 ? (unsigned long long)mtime : 0;
	if (t > OCTAL_MAX) {
		char v[32];
		snprintf(v, sizeof v, "%llu", t);
		pax_record(&pax, "mtime", v);
		t = OCTAL_MAX;
	}
	if (pax.len) {
		const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
		char *pname = xasprintf("PaxHeaders/%.89s", base);
		header(tar, "", 0, pname, 'x', pax.len, t);
		body(tar, pax.buf, pax.len);
		free(pname);
	}
	if (cut && cut > path)
		header(tar, path, (size_t)(cut - path), cut + 1, '0', len, t);
	else
		header(tar, "", 0, path, '0', len, t); /* over 100 bytes: the pax path, its first 100 here */
	sb_free(&pax);
	body(tar, data, len);
	return 0;
}

void
tar_end(struct sb *tar)
{
	static const char zero[2 * BLOCK];
	sb_addn(tar, zero, sizeof zero);
}

/* ---- reading -------------------------------------------------------------------- */

/* An octal field (leading spaces, then digits up to a space or NUL); -1
 * when it is none (GNU's base-256 sizes included). */
static long long
field(const unsigned char *h, int at, int width)
{
	int i = at, end = at + width;
	while (i < end && h[i] == ' ')
		i++;
	long long v = 0;
	int any = 0;
	for (; i < end && h[i] >= '0' && h[i] <= '7'; i++, any = 1)
		v = v * 8 + (h[i] - '0');
	if (!any || (i < end && h[i] != ' ' && h[i] != 0))
		return -1;
	return v;
}

static int
fail(struct tar_reader *r, const char *what)
{
	snprintf(r->err, sizeof r->err, "%s at byte %zu", what, r->pos);
	return -1;
}

/* A pax header's "path=" record, or NULL. */
static char *
pax_find_path(const char *d, size_t len)
{
	size_t at = 0;
	while (at < len) {
		char *end;
		unsigned long n = strtoul(d + at, &end, 10);
		if (end == d + at || *end != ' ' || n <= (size_t)(end - (d + at)) + 1 || n > len - at)
			return NULL;
		const char *kv = end + 1, *stop = d + at + n - 1; /* at the record's newline */
		if (*stop != '\n')
			return NULL;
		if ((size_t)(stop - kv) > 5 && !memcmp(kv, "path=", 5))
			return xstrndup(kv + 5, (size_t)(stop - kv) - 5);
		at += n;
	}
	return NULL;
}

int
tar_next(struct tar_reader *r, struct tar_member *m)
{
	char *long_path = NULL;
	for (;;) {
		if (r->len - r->pos < BLOCK) {
			free(long_path);
			return fail(r, "cut short (no end blocks)");
		}
		const unsigned char *h = (const unsigned char *)r->buf + r->pos;
		size_t z = 0;
		while (z < BLOCK && !h[z])
			z++;
		if (z == BLOCK) {
			free(long_path);
			return 0;
		}
		long long ck = field(h, F_CHKSUM, 8), size = field(h, F_SIZE, 12);
		if (memcmp(h + F_MAGIC, "ustar", 5) || ck < 0 || (unsigned)ck != checksum(h) || size < 0) {
			free(long_path);
			return fail(r, "not a tar header");
		}
		size_t pad = ((size_t)size + BLOCK - 1) / BLOCK * BLOCK;
		if ((unsigned long long)size > r->len || r->len - r->pos - BLOCK < pad) {
			free(long_path);
			return fail(r, "a member cut short");
		}
		const char *data = r->buf + r->pos + BLOCK;
		char type = h[F_TYPE] ? (char)h[F_TYPE] : '0';
		r->pos += BLOCK + pad;
		if (type == 'x' || type == 'L') {
			char *p = type == 'x' ? pax_find_path(data, (size_t)size) : xstrndup(data, (size_t)size);
			if (p) {
				free(long_path);
				long_path = p;
			}
			continue;
		}
		if (type == 'g' || type == '5') {
			free(long_path);
			long_path = NULL;
			continue;
		}
		if (long_path) {
			m->path = long_path;
		} else {
			struct sb s = {0};
			size_t pl = strnlen((const char *)h + F_PREFIX, 155), nl = strnlen((const char *)h + F_NAME, 100);
			if (pl && !memcmp(h + F_MAGIC, "ustar\0", 6)) /* GNU's magic has no prefix there */
				sb_addf(&s, "%.*s/", (int)pl, (const char *)h + F_PREFIX);
			sb_addn(&s, (const char *)h + F_NAME, nl);
			m->path = sb_steal(&s);
		}
		m->type = type == '7' ? '0' : type;
		m->data = data;
		m->len = (size_t)size;
		return 1;
	}
}
