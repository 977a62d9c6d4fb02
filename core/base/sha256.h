/* sha256.h: SHA-256 (FIPS 180-4) of a byte string, in one call.
 *
 * The one SHA-256 of the project: the standalone report's
 * Content-Security-Policy names its inline script and style by their
 * sha256 hashes (core/report/report.h), and the page, `strata export` and
 * the notebook's viewer all get that file from the same builder.
 *
 *   uint8_t h[ST_SHA256_SIZE];
 *   st_sha256("abc", 3, h);   // ba7816bf 8f01cfea ...
 *
 * data may be NULL when n is 0 (also for st_sha256_update). Streams of any length (the message
 * length is counted in bits modulo 2^64, as the standard says).
 */
#ifndef STRATA_SHA256_H
#define STRATA_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ST_SHA256_SIZE 32

void st_sha256(const void *data, size_t n, uint8_t out[ST_SHA256_SIZE]);

/* The same over a message given in pieces (st_trace_digest). */
typedef struct st_sha256_ctx {
  uint32_t h[8];
  uint64_t n; /* bytes so far */
  uint8_t buf[64];
  unsigned fill;
} st_sha256_ctx;
void st_sha256_init(st_sha256_ctx *c);
void st_sha256_update(st_sha256_ctx *c, const void *data, size_t n);
void st_sha256_final(st_sha256_ctx *c, uint8_t out[ST_SHA256_SIZE]);

#endif
