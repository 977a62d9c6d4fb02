/* fuzz_pb_wire.c: libFuzzer target for the protobuf wire reader and the
 * chunk-fed framing: every field of the input is read recursively (LEN
 * payloads tried as messages and as packed varints/fixed64), and the same
 * bytes are framed by pb_stream in random-size chunks. Also runs the
 * Perfetto/XSpace sniff. Any crash or sanitizer report is a bug. */
#include "pb_sniff.h"
#include "pb_stream.h"
#include "pb_wire.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void walk(const st_pb_reader *r0) {
  st_pb_reader r = *r0, sub;
  st_pb_field f;
  st_error err;
  while (st_pb_next(&r, &f, &err) > 0) {
    sink += f.num + f.u + f.len + f.offset;
    if (f.wire != ST_PB_LEN) continue;
    uint64_t v;
    if (st_pb_packed_init(&r, &f, &sub, &err) == ST_OK)
      while (st_pb_packed_next(&sub, ST_PB_VARINT, &v, &err) > 0) sink += v;
    if (st_pb_packed_init(&r, &f, &sub, &err) == ST_OK)
      while (st_pb_packed_next(&sub, ST_PB_I64, &v, &err) > 0) sink += v;
    if (st_pb_enter(&r, &f, &sub, &err) == ST_OK) walk(&sub);
  }
}

static st_code on_field(void *ud, const st_pb_field *f, uint64_t data_offset, st_error *err) {
  (void)ud;
  (void)err;
  st_pb_reader r;
  st_pb_reader_init(&r, f->data, f->len, data_offset);
  if (f->wire == ST_PB_LEN) walk(&r);
  return ST_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  st_pb_reader r;
  st_pb_reader_init(&r, data, size, 0);
  walk(&r);
  sink += st_pb_sniff(data, size);
  uint32_t seed = size ? data[0] * 2654435761u + (uint32_t)size : 1;
  st_pb_stream *s = st_pb_stream_create(NULL, 1u << 20, on_field, NULL, "record");
  if (!s) return 0;
  st_error err;
  size_t i = 0;
  while (i < size) {
    seed = seed * 1103515245u + 12345u;
    size_t chunk = (seed >> 16) % 64 + 1;
    if (chunk > size - i) chunk = size - i;
    if (st_pb_stream_push(s, data + i, chunk, &err) != ST_OK) break;
    i += chunk;
  }
  st_pb_stream_finish(s, &err);
  st_pb_stream_destroy(s);
  return 0;
}
