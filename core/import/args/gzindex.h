/* gzindex.h: random access into gzip / zlib compressed input (zlib's zran
 * technique), so the args of one event in a .json.gz trace can be decoded
 * without inflating the file from the start.
 *
 * Building: feed the whole compressed file, in order, in chunks of any
 * size. Every `span` decoded bytes (at the next deflate block boundary) a
 * restart point records the compressed offset (and bit), the decoded offset
 * and the 32 KiB of output before it (the window the next block may refer
 * back to). A gzip member start is a restart point without a window.
 * Memory: about 32 KiB per point, i.e. span 4 MiB costs 8 KiB per MiB of
 * decoded data (0.8%).
 *
 * Reading decoded [offset, offset + len): st_gzread_begin() says from which
 * compressed byte to feed; push compressed chunks from there until `done`.
 *
 *   st_gzindex *ix = st_gzindex_create(&alloc, 0);        // span 4 MiB
 *   while (more) st_gzindex_push(ix, chunk, n, &err);
 *   st_gzindex_finish(ix, &err);
 *   uint64_t from;
 *   st_gzread *r = st_gzread_begin(ix, src, 65536, &from);
 *   ... st_gzread_push(r, file + from, n, &done) until done ...
 *   const uint8_t *bytes = st_gzread_data(r, &got);
 *   st_gzread_end(r); st_gzindex_destroy(ix);
 */
#ifndef STRATA_GZINDEX_H
#define STRATA_GZINDEX_H

#include "base.h"

#define ST_GZINDEX_SPAN (4u << 20)

typedef struct st_gzindex st_gzindex;
typedef struct st_gzread st_gzread;

st_gzindex *st_gzindex_create(const st_alloc *a, uint64_t span);
void st_gzindex_destroy(st_gzindex *ix);
/* ST_OK, ST_ERR_GZIP (corrupt; err->offset in the compressed input),
 * ST_ERR_FORMAT (not gzip / zlib) or ST_ERR_NOMEM. Later calls repeat it. */
st_code st_gzindex_push(st_gzindex *ix, const void *data, size_t len, st_error *err);
/* ST_ERR_TRUNCATED if the stream was cut short (the points so far still
 * work for the data before the cut). */
st_code st_gzindex_finish(st_gzindex *ix, st_error *err);
uint32_t st_gzindex_points(const st_gzindex *ix);
uint64_t st_gzindex_decoded(const st_gzindex *ix); /* decoded bytes seen */

/* Starts reading up to len decoded bytes at offset. *in_offset: the first
 * compressed byte to push. NULL on bad arguments or allocation failure. */
st_gzread *st_gzread_begin(const st_gzindex *ix, uint64_t offset, size_t len, uint64_t *in_offset);
/* Feeds the next compressed bytes. *done becomes 1 when len bytes were
 * collected or the data ended. ST_OK or ST_ERR_GZIP / ST_ERR_NOMEM. */
st_code st_gzread_push(st_gzread *r, const void *data, size_t len, int *done);
const uint8_t *st_gzread_data(const st_gzread *r, size_t *len);
void st_gzread_end(st_gzread *r);

/* ---- saving and restoring the points (streaming mode's index file,
 * core/import/stream/stream_stx.h) ------------------------------------------
 * A point as the index holds it: the compressed offset `in` (and `bits` of
 * the byte before it still to use), the decoded offset `out`, `head` (a
 * gzip member / zlib stream start: no window) and the win_len bytes of
 * output before `out` (at most 32 KiB). */
#define ST_GZINDEX_WINDOW 32768u
typedef struct st_gzpoint {
  uint64_t in, out;
  uint8_t bits, head;
  uint32_t win_len;
  const uint8_t *win;
} st_gzpoint;
/* Point i (0 if out of range). */
int st_gzindex_point(const st_gzindex *ix, uint32_t i, st_gzpoint *out);
int st_gzindex_is_gzip(const st_gzindex *ix); /* 1 gzip, 0 zlib */
uint64_t st_gzindex_span(const st_gzindex *ix);
size_t st_gzindex_bytes(const st_gzindex *ix); /* resident memory */
/* An index for reading only (st_gzindex_push refuses), rebuilt from saved
 * points: st_gzindex_restore_point adds them in order, checked (the first a
 * head at 0, then strictly increasing offsets, bits <= 7, a window of at
 * most 32 KiB and at most `out` bytes, none for a head): ST_ERR_FORMAT
 * otherwise (untrusted input), ST_ERR_NOMEM. `decoded`: the decoded size
 * (st_gzindex_decoded). */
st_gzindex *st_gzindex_restore(const st_alloc *a, int gzip, uint64_t span, uint64_t decoded);
st_code st_gzindex_restore_point(st_gzindex *ix, const st_gzpoint *p);
/* A point's window packed for saving (raw deflate, 3-6x smaller on trace
 * text): *out allocated through a (st_free), returns its length; 0 on
 * allocation failure. st_gzwin_unpack: exactly len (<= 32 KiB) bytes from
 * the packed in[0, n) into out; 1, or 0 if they are not exactly that. */
size_t st_gzwin_pack(const st_alloc *a, const uint8_t *win, uint32_t len, uint8_t **out);
int st_gzwin_unpack(const st_alloc *a, const uint8_t *in, size_t n, uint8_t *out, uint32_t len);

#endif
