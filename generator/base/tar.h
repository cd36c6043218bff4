/* tar: a POSIX tar stream written and read in memory (see tar.c). Members
 * are regular files only, with a normalised header (mode 0644, owner and
 * group 0 and unnamed, the mtime the caller gives), so the same members
 * give the same bytes. */
#ifndef LLMB_TAR_H
#define LLMB_TAR_H

#include <stddef.h>
#include <time.h>

#include "base/util.h"

/* Appends one regular file; a path over 100 bytes that ustar's prefix
 * cannot split, or an mtime after 2242, gets a pax header of its own
 * ("path=", "mtime="). Returns 0, or -1 when the size cannot be written
 * (8 GiB). */
int tar_add(struct sb *tar, const char *path, const void *data, size_t len, time_t mtime);
/* Appends the end of the archive (two zero blocks). */
void tar_end(struct sb *tar);

/* One member as tar_next reads it: path (to free), data inside the stream. */
struct tar_member {
	char *path;
	char type;              /* '0' a regular file; another typeflag as it is */
	const char *data;
	size_t len;
};

/* Reading a stream: buf and len, the position, and why it stopped. */
struct tar_reader {
	const char *buf;
	size_t len, pos;
	char err[128];
};

/* The next member that is not a directory, with the ustar prefix, a pax
 * "path=" record or a GNU long name applied. 1: a member (m->path to
 * free), 0: the end, -1: not a tar stream or cut short (r->err says). */
int tar_next(struct tar_reader *r, struct tar_member *m);

#endif
