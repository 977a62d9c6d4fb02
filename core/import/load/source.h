/* source.h: the first stage of loading: compression sniffing and streaming
 * inflate. Raw file bytes go in (chunks of any size, down to 1 byte);
 * decoded bytes come out through a sink callback, in pieces of at most
 * ST_SOURCE_OUT_BYTES.
 *
 * Sniffing by content (file names are never consulted here):
 *   1F 8B          gzip; every member of a multi-member file is inflated
 *                  (the output is their concatenation); bytes after the last
 *                  member that do not start another member are ignored and
 *                  reported in st_source_info.trailing_garbage.
 *   CMF FLG        zlib (CM 8, CINFO <= 7, no preset dictionary,
 *                  (CMF*256 + FLG) % 31 == 0)
 *   anything else  passed through unchanged.
 * Corrupt or truncated compressed data is ST_ERR_GZIP with the offset in
 * the compressed input. Content sniffing of the decoded bytes (JSON or
 * protobuf) is the loader's job.
 *
 *   st_source *s = st_source_create(&alloc, sink, ud);
 *   st_source_push(s, chunk, n, &err);  ... st_source_finish(s, &err);
 *   st_source_destroy(s);
 */
#ifndef STRATA_SOURCE_H
#define STRATA_SOURCE_H

#include "base.h"

#define ST_SOURCE_OUT_BYTES (256u * 1024u)

typedef enum st_compression {
  ST_COMPRESSION_UNKNOWN = 0, /* fewer than 2 bytes seen so far */
  ST_COMPRESSION_NONE,
  ST_COMPRESSION_GZIP,
  ST_COMPRESSION_ZLIB
} st_compression;

/* Receives decoded bytes. Return ST_OK to go on; any other code stops the
 * source (it is returned from push/finish; the sink sets err itself). */
typedef st_code (*st_source_sink)(void *ud, const uint8_t *data, size_t len);

typedef struct st_source_info {
  st_compression compression;
  uint64_t bytes_in;         /* raw bytes pushed */
  uint64_t bytes_out;        /* decoded bytes given to the sink */
  uint32_t members;          /* gzip members started */
  uint64_t trailing_garbage; /* bytes ignored after the compressed data */
  uint64_t trailing_offset;  /* raw offset of the first ignored byte */
} st_source_info;

typedef struct st_source st_source;

st_source *st_source_create(const st_alloc *a, st_source_sink sink, void *ud);
void st_source_destroy(st_source *s);
/* Returns ST_OK or the first error (later calls return it again). */
st_code st_source_push(st_source *s, const void *data, size_t len, st_error *err);
/* End of input: flushes, and reports a compressed stream cut short. */
st_code st_source_finish(st_source *s, st_error *err);
const st_source_info *st_source_get_info(const st_source *s);
/* Counts n input bytes as read and passed on without passing them (their
 * content was handled elsewhere: a split import's task result). Only for
 * an uncompressed source past its sniff: 1 done, 0 not allowed. */
int st_source_skip(st_source *s, uint64_t n);

/* The sniffing rule alone, for 2 bytes (b1 may be -1 if only one exists). */
st_compression st_source_sniff(int b0, int b1);

#endif
