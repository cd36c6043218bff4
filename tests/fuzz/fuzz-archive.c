/* fuzz-archive: libFuzzer target for llmb verify-archive's reader (tar.c's
 * tar_next, archive.c's MANIFEST and name checks) and tar.c's writer. Each
 * input is checked as an archive's decompressed tar stream, as it is and
 * with every header's checksum made right (else nearly every mutation
 * stops at the first header). None may crash, leak, hang or read out of
 * bounds; a stream found ok holds only plain names below one folder. Then
 * the input cut into a path (its first line), a time (its first 8 bytes)
 * and data (the rest) goes through tar_add and must come back from
 * tar_next as it went in. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/archive.h"
#include "base/tar.h"
#include "base/util.h"
#include "quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether p has no empty, "." or ".." part and does not start with '/'. */
static int
plain(const char *p)
{
	for (;; p++) {
		size_t n = strcspn(p, "/");
		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += n;
		if (!*p)
			return 1;
	}
}

/* An archive verify-archive found ok: the MANIFEST first, every member in
 * its folder, every name plain. */
static void
check_ok(const char *buf, size_t len)
{
	struct tar_reader r = {.buf = buf, .len = len};
	struct tar_member m;
	char *folder = NULL;
	int got;
	while ((got = tar_next(&r, &m)) == 1) {
		if (!plain(m.path))
			abort();
		if (!folder) {
			const char *slash = strchr(m.path, '/');
			if (!slash || strcmp(slash + 1, "MANIFEST"))
				abort();
			folder = xstrndup(m.path, (size_t)(slash - m.path + 1));
		} else if (strncmp(m.path, folder, strlen(folder))) {
			abort();
		}
		free(m.path);
	}
	if (got < 0 || !folder)
		abort();
	free(folder);
}

/* Each header on the way through buf given its right checksum. */
static void
fix_checksums(unsigned char *buf, size_t len)
{
	for (size_t pos = 0; len - pos >= 512 && len >= 512;) {
		unsigned char *h = buf + pos;
		unsigned sum = 0;
		size_t z = 0;
		while (z < 512 && !h[z])
			z++;
		if (z == 512)
			return;
		for (int i = 0; i < 512; i++)
			sum += i >= 148 && i < 156 ? ' ' : h[i];
		char ck[8];
		snprintf(ck, sizeof ck, "%06o", sum & 0777777);
		memcpy(h + 148, ck, 7);
		h[155] = ' ';
		unsigned long long size = 0;
		for (int i = 124; i < 136 && h[i] >= '0' && h[i] <= '7'; i++)
			size = size * 8 + (unsigned)(h[i] - '0');
		if (size > len)
			return;
		pos += 512 + (size_t)(size + 511) / 512 * 512;
		if (pos > len)
			return;
	}
}

/* tar_add, then tar_next: the same path and bytes back. */
static void
round_trip(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t plen = nl ? (size_t)(nl - data) : size;
	char *path = xstrndup((const char *)data, plen); /* a NUL ends it early: a name has none */
	long long t = 0;
	if (size >= 8)
		memcpy(&t, data, 8);
	t &= 0x3fffffffffffffffLL; /* no negative time: the archive's is never one */
	const uint8_t *body = nl ? nl + 1 : data + size;
	size_t blen = (size_t)(data + size - body);
	struct sb tar = {0};
	if (tar_add(&tar, path, body, blen, (time_t)t) < 0)
		abort();
	tar_end(&tar);
	struct tar_reader r = {.buf = tar.buf, .len = tar.len};
	struct tar_member m;
	if (tar_next(&r, &m) != 1 || strcmp(m.path, path) || m.type != '0' || m.len != blen ||
	    (blen && memcmp(m.data, body, blen)))
		abort();
	free(m.path);
	if (tar_next(&r, &m) != 0)
		abort();
	sb_free(&tar);
	free(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int out_closed;
	if (!out_closed && !getenv("LLMB_FUZZ_STDERR")) { /* verify-archive's findings go to stdout */
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		close(null);
	}
	out_closed = 1;
	int saved = quiet_begin();
	char *copy = xmalloc(size + 1);
	memcpy(copy, data, size);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			fix_checksums((unsigned char *)copy, size);
		if (archive_verify_tar("fuzz.tar", copy, size) == 0)
			check_ok(copy, size);
	}
	fflush(stdout);
	free(copy);
	round_trip(data, size);
	quiet_end(saved);
	return 0;
}
