/* pb_wire.h: a small, safe protobuf wire-format reader over contiguous
 * memory (one message already in memory; pb_stream.h frames messages out of
 * a chunked input).
 *
 * What it accepts (FORMATS.md §3.1): tags (field number 1 .. 2^29 - 1),
 * wire types 0 VARINT, 1 I64, 2 LEN, 5 I32. Varints are at most 10 bytes and
 * must fit in 64 bits; non-minimal encodings (0x80 0x00) are accepted, as
 * protobuf itself does (Perfetto's protozero writes padded 4-byte lengths).
 * Rejected with ST_ERR_PROTO: groups (3/4), wire types 6/7, field number 0,
 * varints longer than 10 bytes or with bits past 64, a LEN payload running
 * past the end of its message; ST_ERR_LIMIT: nesting deeper than
 * ST_PB_MAX_DEPTH. Every error carries the absolute byte offset (in the
 * decoded input) of the byte where it was found: a reader knows the
 * absolute offset of its buffer (`origin`).
 *
 *   st_pb_reader r;
 *   st_pb_reader_init(&r, buf, len, abs_offset_of_buf);
 *   st_pb_field f;
 *   int k;
 *   while ((k = st_pb_next(&r, &f, &err)) > 0) {
 *     if (f.num == 3 && f.wire == ST_PB_LEN) {
 *       st_pb_reader sub;
 *       if (st_pb_enter(&r, &f, &sub, &err) != ST_OK) ...;  // nested message
 *     } else if (f.num == 1) id = f.u;                       // scalar
 *   }
 *   if (k < 0) ... err says what and where
 *
 * Packed repeated scalars: st_pb_packed_init() over a LEN field, then
 * st_pb_packed_next() per element. Unknown fields are skipped simply by
 * ignoring them: st_pb_next has already stepped over their payload.
 */
#ifndef STRATA_PB_WIRE_H
#define STRATA_PB_WIRE_H

#include "base.h"

#include <string.h>

#define ST_PB_MAX_DEPTH 64
#define ST_PB_MAX_FIELD 536870911u /* 2^29 - 1 */

typedef enum st_pb_wire {
  ST_PB_VARINT = 0,
  ST_PB_I64 = 1,
  ST_PB_LEN = 2,
  ST_PB_I32 = 5
} st_pb_wire;

typedef struct st_pb_reader {
  const uint8_t *p;    /* next byte */
  const uint8_t *end;  /* end of this message */
  const uint8_t *base; /* the byte whose absolute offset is `origin` */
  uint64_t origin;
  uint32_t depth; /* 0 for a top-level message */
} st_pb_reader;

typedef struct st_pb_field {
  uint32_t num;        /* field number */
  uint8_t wire;        /* st_pb_wire */
  uint64_t u;          /* VARINT value, or the I64/I32 bits (little-endian decoded) */
  const uint8_t *data; /* LEN: payload (inside the reader's buffer) */
  size_t len;          /* LEN: payload length */
  uint64_t offset;     /* absolute offset of the tag's first byte */
} st_pb_field;

/* Varint at p (at most end - p bytes). Returns the bytes used (1..10),
 * 0 if the input ends inside the varint, -1 if it is longer than 10 bytes
 * or does not fit in 64 bits. */
static inline int st_pb_varint(const uint8_t *p, const uint8_t *end, uint64_t *v) {
  if (p < end && p[0] < 0x80) {
    *v = p[0];
    return 1;
  }
  uint64_t r = 0;
  for (int i = 0; i < 10; i++) {
    if (p + i >= end) return 0;
    uint8_t c = p[i];
    if (i == 9 && c > 1) return -1; /* bits past 64, or an 11th byte follows */
    r |= (uint64_t)(c & 0x7F) << (7 * i);
    if (c < 0x80) {
      *v = r;
      return i + 1;
    }
  }
  return -1; /* unreachable: i == 9 returns above */
}

/* Two's-complement reinterpretation without implementation-defined casts. */
static inline int64_t st_pb_i64(uint64_t u) {
  return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}
/* An I64 field's bits as a double (the bits are already host integers). */
static inline double st_pb_double(uint64_t bits) {
  double d;
  _Static_assert(sizeof(double) == sizeof(uint64_t), "IEEE double");
  memcpy(&d, &bits, sizeof d);
  return d;
}

void st_pb_reader_init(st_pb_reader *r, const void *data, size_t len, uint64_t origin);
/* Absolute offset of a pointer into the reader's buffer. */
static inline uint64_t st_pb_offset(const st_pb_reader *r, const uint8_t *p) {
  return r->origin + (uint64_t)(p - r->base);
}

/* Reads the next field. Returns 1 (f filled), 0 at the end of the message,
 * -1 on a wire error (err set; the reader stays at the bad field). */
int st_pb_next(st_pb_reader *r, st_pb_field *f, st_error *err);

/* A reader over the payload of LEN field f (read from r), one level deeper.
 * ST_ERR_PROTO if f is not LEN, ST_ERR_LIMIT past ST_PB_MAX_DEPTH. */
st_code st_pb_enter(const st_pb_reader *r, const st_pb_field *f, st_pb_reader *sub, st_error *err);

/* Packed repeated scalars inside LEN field f: elements of wire type `wire`
 * (VARINT, I64 or I32). st_pb_packed_next returns 1 (v set), 0 at the end,
 * -1 on a malformed element (err set). */
st_code st_pb_packed_init(const st_pb_reader *r, const st_pb_field *f, st_pb_reader *sub,
                          st_error *err);
int st_pb_packed_next(st_pb_reader *sub, st_pb_wire wire, uint64_t *v, st_error *err);

/* Repeated scalar either way: calls fn(ud, value) for f's value (unpacked,
 * f.wire == wire) or each element (packed, f.wire == LEN). */
st_code st_pb_repeated(const st_pb_reader *r, const st_pb_field *f, st_pb_wire wire,
                       void (*fn)(void *ud, uint64_t v), void *ud, st_error *err);

/* Human name of a wire type for messages ("VARINT", "I64", ...). */
const char *st_pb_wire_name(unsigned wire);

#endif
