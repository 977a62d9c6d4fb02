/* pb_wire.c: the protobuf wire-format reader (see pb_wire.h).
 *
 * Bounds are checked against the reader's `end` before every read; lengths
 * are compared as uint64 against the bytes left, so a hostile length can
 * never form an out-of-range pointer. */
#include "pb_wire.h"

const char *st_pb_wire_name(unsigned wire) {
  switch (wire) {
  case 0: return "VARINT";
  case 1: return "I64";
  case 2: return "LEN";
  case 3: return "SGROUP";
  case 4: return "EGROUP";
  case 5: return "I32";
  default: return "invalid";
  }
}

void st_pb_reader_init(st_pb_reader *r, const void *data, size_t len, uint64_t origin) {
  const uint8_t *p = data;
  r->p = p;
  r->end = p ? p + len : p;
  r->base = p;
  r->origin = origin;
  r->depth = 0;
}

static uint64_t le_bits(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

int st_pb_next(st_pb_reader *r, st_pb_field *f, st_error *err) {
  const uint8_t *p = r->p, *end = r->end;
  if (p >= end) return 0;
  uint64_t tag, at = st_pb_offset(r, p);
  int n = st_pb_varint(p, end, &tag);
  if (n <= 0) {
    st_error_set(err, ST_ERR_PROTO, at,
                 n == 0 ? "protobuf: message ends inside a field tag"
                        : "protobuf: field tag is an over-long varint (more than 10 bytes)");
    return -1;
  }
  uint64_t num = tag >> 3;
  unsigned wire = (unsigned)(tag & 7);
  if (num == 0 || num > ST_PB_MAX_FIELD) {
    st_error_set(err, ST_ERR_PROTO, at, "protobuf: invalid field number %llu",
                 (unsigned long long)num);
    return -1;
  }
  p += n;
  f->num = (uint32_t)num;
  f->wire = (uint8_t)wire;
  f->offset = at;
  f->u = 0;
  f->data = NULL;
  f->len = 0;
  switch (wire) {
  case ST_PB_VARINT:
    n = st_pb_varint(p, end, &f->u);
    if (n <= 0) {
      st_error_set(err, ST_ERR_PROTO, st_pb_offset(r, p),
                   n == 0 ? "protobuf: message ends inside the varint of field %u"
                          : "protobuf: varint of field %u is longer than 10 bytes",
                   (unsigned)num);
      return -1;
    }
    p += n;
    break;
  case ST_PB_I64:
  case ST_PB_I32: {
    int w = wire == ST_PB_I64 ? 8 : 4;
    if (end - p < w) {
      st_error_set(err, ST_ERR_PROTO, st_pb_offset(r, p),
                   "protobuf: message ends inside the %d-byte value of field %u", w, (unsigned)num);
      return -1;
    }
    f->u = le_bits(p, w);
    p += w;
    break;
  }
  case ST_PB_LEN: {
    uint64_t len;
    const uint8_t *lp = p;
    n = st_pb_varint(p, end, &len);
    if (n <= 0) {
      st_error_set(err, ST_ERR_PROTO, st_pb_offset(r, p),
                   n == 0 ? "protobuf: message ends inside the length of field %u"
                          : "protobuf: length of field %u is longer than 10 bytes",
                   (unsigned)num);
      return -1;
    }
    p += n;
    if (len > (uint64_t)(end - p)) {
      st_error_set(err, ST_ERR_PROTO, st_pb_offset(r, lp),
                   "protobuf: field %u claims %llu bytes but only %llu remain in its message",
                   (unsigned)num, (unsigned long long)len, (unsigned long long)(end - p));
      return -1;
    }
    f->data = p;
    f->len = (size_t)len;
    p += len;
    break;
  }
  case 3:
  case 4:
    st_error_set(err, ST_ERR_PROTO, at,
                 "protobuf: field %u uses groups (wire type %u), which "
                 "are not supported",
                 (unsigned)num, wire);
    return -1;
  default:
    st_error_set(err, ST_ERR_PROTO, at, "protobuf: field %u has invalid wire type %u",
                 (unsigned)num, wire);
    return -1;
  }
  r->p = p;
  return 1;
}

st_code st_pb_enter(const st_pb_reader *r, const st_pb_field *f, st_pb_reader *sub, st_error *err) {
  if (f->wire != ST_PB_LEN)
    return st_error_set(err, ST_ERR_PROTO, f->offset,
                        "protobuf: field %u should be a message (LEN) but has wire type %s",
                        (unsigned)f->num, st_pb_wire_name(f->wire));
  if (r->depth + 1 > ST_PB_MAX_DEPTH)
    return st_error_set(err, ST_ERR_LIMIT, f->offset,
                        "protobuf: messages nested deeper than %d levels", ST_PB_MAX_DEPTH);
  sub->p = f->data;
  sub->end = f->data + f->len;
  sub->base = r->base;
  sub->origin = r->origin;
  sub->depth = r->depth + 1;
  return ST_OK;
}

st_code st_pb_packed_init(const st_pb_reader *r, const st_pb_field *f, st_pb_reader *sub,
                          st_error *err) {
  if (f->wire != ST_PB_LEN)
    return st_error_set(err, ST_ERR_PROTO, f->offset, "protobuf: packed field %u has wire type %s",
                        (unsigned)f->num, st_pb_wire_name(f->wire));
  sub->p = f->data;
  sub->end = f->data + f->len;
  sub->base = r->base;
  sub->origin = r->origin;
  sub->depth = r->depth;
  return ST_OK;
}

int st_pb_packed_next(st_pb_reader *sub, st_pb_wire wire, uint64_t *v, st_error *err) {
  const uint8_t *p = sub->p;
  if (p >= sub->end) return 0;
  if (wire == ST_PB_VARINT) {
    int n = st_pb_varint(p, sub->end, v);
    if (n <= 0) {
      st_error_set(err, ST_ERR_PROTO, st_pb_offset(sub, p),
                   n == 0 ? "protobuf: packed varints end inside an element"
                          : "protobuf: packed element is a varint longer than 10 bytes");
      return -1;
    }
    sub->p = p + n;
    return 1;
  }
  int w = wire == ST_PB_I64 ? 8 : 4;
  if (sub->end - p < w) {
    st_error_set(err, ST_ERR_PROTO, st_pb_offset(sub, p),
                 "protobuf: packed %d-byte values end inside an element", w);
    return -1;
  }
  *v = le_bits(p, w);
  sub->p = p + w;
  return 1;
}

st_code st_pb_repeated(const st_pb_reader *r, const st_pb_field *f, st_pb_wire wire,
                       void (*fn)(void *ud, uint64_t v), void *ud, st_error *err) {
  if (f->wire == wire) {
    fn(ud, f->u);
    return ST_OK;
  }
  st_pb_reader sub;
  memset(&sub, 0, sizeof sub);
  st_code c = st_pb_packed_init(r, f, &sub, err);
  if (c != ST_OK) return c;
  uint64_t v;
  int k;
  while ((k = st_pb_packed_next(&sub, wire, &v, err)) > 0) fn(ud, v);
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}
