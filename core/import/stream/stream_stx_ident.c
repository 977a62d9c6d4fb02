/* stream_stx_ident.c: which raw bytes identify a trace for its index file
 * (stream_stx.h "the trace's identity"), and the check of an opened index
 * against the trace the front end read them from.
 */
#include "sha256.h"
#include "stream_internal.h"
#include "stream_stx.h"

#include <stdio.h>
#include <string.h>

#define HEAD ((uint64_t)64 << 10) /* the first and last 64 KiB */
#define SPOT ((uint64_t)4 << 10)  /* 16 blocks of 4 KiB between them */
#define SPOTS 16u

/* The ranges of a file of raw_size bytes. */
static uint32_t plan_of(uint64_t raw_size, st_stream_range *out) {
  if (raw_size == 0) return 0;
  if (raw_size <= 2 * HEAD + SPOTS * SPOT) {
    out[0] = (st_stream_range){0, raw_size};
    return 1;
  }
  uint32_t n = 0;
  out[n++] = (st_stream_range){0, HEAD};
  uint64_t room = raw_size - 2 * HEAD - SPOT; /* spot starts lie in [HEAD, HEAD + room] */
  for (uint32_t i = 1; i <= SPOTS; i++)
    out[n++] = (st_stream_range){HEAD + room / (SPOTS + 1) * i, SPOT};
  out[n++] = (st_stream_range){raw_size - HEAD, HEAD};
  return n;
}

uint32_t st_stream_identity_plan(const st_stream *s, st_stream_range out[ST_STX_SAMPLES]) {
  if (!s) return 0;
  if (!s->opened) return plan_of(s->raw_bytes, out);
  for (uint32_t k = 0; k < s->nsamples; k++)
    out[k] = (st_stream_range){s->samples[k].offset, s->samples[k].length};
  return s->nsamples;
}

st_code st_stream_verify(const st_stream *s, const char *file_name, uint64_t raw_size,
                         const uint8_t *const *samples, uint32_t nsamples, st_error *err) {
  const char *f = file_name ? file_name : "the trace";
  if (!s || !s->opened)
    return st_error_set(err, ST_ERR_ARG, 0, "index does not match %s: no index opened", f);
  if (raw_size != s->raw_bytes)
    return st_error_set(err, ST_ERR_ARG, 0,
                        "index does not match %s: the file has %llu bytes, the index is of a "
                        "file of %llu bytes",
                        f, (unsigned long long)raw_size, (unsigned long long)s->raw_bytes);
  if (nsamples != s->nsamples || (nsamples && !samples))
    return st_error_set(err, ST_ERR_ARG, 0, "index does not match %s: %u sampled blocks, not %u", f,
                        nsamples, s->nsamples);
  for (uint32_t k = 0; k < nsamples; k++) {
    const ssample *m = &s->samples[k];
    uint8_t h[32];
    if (samples[k]) st_sha256(samples[k], (size_t)m->length, h);
    if (!samples[k] || memcmp(h, m->sha, 32) != 0)
      return st_error_set(err, ST_ERR_ARG, m->offset,
                          "index does not match %s: bytes %llu..%llu %s (a stale or foreign "
                          "index)",
                          f, (unsigned long long)m->offset,
                          (unsigned long long)(m->offset + m->length),
                          samples[k] ? "differ" : "could not be read");
  }
  return ST_OK;
}
