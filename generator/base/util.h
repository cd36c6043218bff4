/* util: memory that dies on exhaustion, growable strings, whole-file I/O,
 * atomic writes (tmp + rename), directory creation and SHA-256.
 * Everything that marks progress on disk goes through write_file_atomic. */
#ifndef LLMB_UTIL_H
#define LLMB_UTIL_H

#include <stddef.h>
#include <stdarg.h>
#include <time.h>

extern const char *progname;

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Growable NUL-terminated string. */
struct sb {
	char *buf;
	size_t len, cap;
};
void sb_grow(struct sb *s, size_t extra);
void sb_add(struct sb *s, const char *str);
void sb_addn(struct sb *s, const char *str, size_t n);
void sb_addc(struct sb *s, char c);
void sb_addf(struct sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct sb *s, const char *fmt, va_list ap);
/* Append str as one POSIX shell word in single quotes. */
void sb_add_shquote(struct sb *s, const char *str);
/* str with & < > " ' as HTML entities (NULL adds nothing). */
void sb_add_html(struct sb *s, const char *str);
void sb_reset(struct sb *s);
char *sb_steal(struct sb *s);
void sb_free(struct sb *s);

/* Read a whole file; NULL with errno set on failure. *len may be NULL. */
char *read_file(const char *path, size_t *len);
/* The same from an open descriptor, to its end (left open). */
char *read_fd(int fd, size_t *len);
/* read_file() of a regular file only: a FIFO, device or directory is
 * refused without blocking. NULL with *why saying why. */
char *read_regular_file(const char *path, size_t *len, const char **why);
/* Write via "<path>.tmp.<pid>" + fsync + rename. Returns 0 or -1 (errno).
 * Then removes the "<path>.tmp.<pid>" of killed writers (over a minute old). */
int write_file_atomic(const char *path, const void *data, size_t len);
/* May --out replace path? Yes when it does not exist or is a regular file;
 * a directory, device, FIFO or symbolic link is refused (the error printed
 * as prog's). 0 or -1. */
int out_path_ok(const char *prog, const char *path);
/* For generated files: atomic but not fsynced, and an identical file is
 * left untouched (mtime kept).
 * Returns 1 if written, 0 if unchanged, -1 on error. */
int write_file_if_changed(const char *path, const void *data, size_t len);
/* mkdir -p of the directory part of path (dir_of=1) or of path itself. */
int mkdir_p(const char *path, int dir_of);
int file_exists(const char *path);
/* The one way llmb waits for a lock: an exclusive flock on path, the file
 * created (0644) when missing, the wait not ended by a signal. LK_TRY:
 * fail at once (errno EWOULDBLOCK) while another process holds it;
 * LK_NOFOLLOW: refuse a symbolic link. Returns the descriptor (closing it
 * releases the lock), or -1 when path cannot be opened, -2 when it cannot
 * be locked (nothing left open), errno set. */
enum { LK_TRY = 1, LK_NOFOLLOW = 2 };
int lock_file(const char *path, int flags);
/* The same flock on an open descriptor: 0, or -1 (errno). */
int lock_fd(int fd, int flags);

/* A yes/no value as users spell it: 1/0, true/false, yes/no, on/off, in
 * any case. 1, 0, or -1 for anything else (which callers refuse). */
int parse_bool(const char *s);
/* text (a variable's value) as a number, dflt when NULL or empty. */
long long_or(const char *text, long dflt);
/* Whether s holds a control character (below 0x20, or DEL). */
int has_control(const char *s);
/* The offset of the first byte of s that is not well-formed UTF-8 (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF), or -1. */
long utf8_invalid_at(const char *s);
extern const char bool_spellings[];
/* The next word of a list as users write it ("a b,c", tabs too): moves
 * *p to the word and returns its length, 0 at the end. The caller steps
 * past it: for (size_t n; (n = list_word(&q)); q += n) */
size_t list_word(const char **p);
/* Whether list has the word w[0..n). */
int list_has(const char *list, const char *w, size_t n);

/* SHA-256 of data as 64 lowercase hex digits plus NUL. */
void sha256_hex(const void *data, size_t len, char out[65]);

/* Wall-clock time in seconds, with sub-second precision. */
double now_seconds(void);
/* Now in UTC as 2026-01-05T03:04:05Z (what history records carry). */
char *utc_timestamp(void);
/* Now, or t, in UTC through strftime's fmt (at most 63 characters out). */
char *utc_now_as(const char *fmt);
char *utc_time_as(time_t t, const char *fmt);

#endif
