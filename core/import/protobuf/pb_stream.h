/* pb_stream.h: frames the top-level fields of one protobuf message that
 * arrives in chunks of any size (down to 1 byte), so a file-sized message
 * (a Perfetto `Trace`, an `XSpace`) is decoded one field at a time
 * (one TracePacket, one XPlane) and never held whole.
 *
 * Each complete top-level field is handed to a callback as an st_pb_field
 * whose offsets are absolute in the decoded input. A LEN field wholly
 * inside the current chunk is passed in place (no copy); one cut by a chunk
 * boundary is accumulated in a buffer that grows with the bytes actually
 * received (a hostile length costs nothing until the bytes arrive) and is
 * reused for the next one. The payload pointer is valid only during the
 * callback. Memory held: the largest field seen, capped by `max_len`.
 *
 *   st_pb_stream *s = st_pb_stream_create(&alloc, 64u << 20, on_field, ud, "packet");
 *   st_pb_stream_push(s, chunk, n, &err); ...
 *   st_pb_stream_finish(s, &err);  // ST_ERR_TRUNCATED if input ended mid-field
 *   st_pb_stream_destroy(s);
 *
 * Errors: wire errors in a tag/length (ST_ERR_PROTO), a field longer than
 * max_len (ST_ERR_LIMIT), or whatever the callback returns (it sets err).
 * After an error every call returns it again.
 */
#ifndef STRATA_PB_STREAM_H
#define STRATA_PB_STREAM_H

#include "base.h"
#include "pb_wire.h"

/* f->data points at the payload of a LEN field and data_offset is the
 * absolute offset of its first byte, so the callback can read it with
 * offsets intact: st_pb_reader_init(&r, f->data, f->len, data_offset). */
typedef st_code (*st_pb_stream_fn)(void *ud, const st_pb_field *f, uint64_t data_offset,
                                   st_error *err);

typedef struct st_pb_stream st_pb_stream;

/* what: a noun for messages ("packet", "plane"); a static string. */
st_pb_stream *st_pb_stream_create(const st_alloc *a, uint64_t max_len, st_pb_stream_fn fn, void *ud,
                                  const char *what);
void st_pb_stream_destroy(st_pb_stream *s);
st_code st_pb_stream_push(st_pb_stream *s, const uint8_t *data, size_t len, st_error *err);
st_code st_pb_stream_finish(st_pb_stream *s, st_error *err);
/* Bytes of buffer currently held (for memory statements and tests). */
size_t st_pb_stream_buffer_bytes(const st_pb_stream *s);

/* An importer's first error, kept: once a push, the finish or the importer
 * itself failed, every later call reports that same error. */
typedef struct st_pb_status {
  st_code code;
  st_error err;
} st_pb_status;

/* Keeps c and *e if c is an error and none is kept yet (e is read only
 * then); copies the kept error to *err (if err is not NULL and there is
 * one) and returns its code (ST_OK if none). */
st_code st_pb_status_record(st_pb_status *st, st_code c, const st_error *e, st_error *err);
/* st_pb_stream_push / st_pb_stream_finish with the error kept in st: once
 * one is kept they do nothing and return it. */
st_code st_pb_stream_push_kept(st_pb_stream *s, st_pb_status *st, const uint8_t *data, size_t len,
                               st_error *err);
st_code st_pb_stream_finish_kept(st_pb_stream *s, st_pb_status *st, st_error *err);

#endif
