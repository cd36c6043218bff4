/* archive: `llmb archive` and `llmb verify-archive` (archive.c); the
 * checking of an archive's tar stream on its own, for the fuzzer. */
#ifndef LLMB_ARCHIVE_H
#define LLMB_ARCHIVE_H

#include <stddef.h>

/* Checks the (decompressed) tar stream of file as llmb verify-archive
 * does, saying on stdout what differs: 0 ok, 1 a mismatch, 2 not an
 * archive of llmb's (said on stderr). */
int archive_verify_tar(const char *file, const char *tar, size_t len);

#endif
