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
 * data may be NULL when n is 0. Streams of any length (the message length
 * is counted in bits modulo 2^64, as the standard says).
 */
#ifndef STRATA_SHA256_H
#define STRATA_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ST_SHA256_SIZE 32

void st_sha256(const void *data, size_t n, uint8_t out[ST_SHA256_SIZE]);

#endif
