/* test_pb_wire.c: the protobuf wire reader (pb_wire), the chunk-fed field
 * framing (pb_stream), the Perfetto/XSpace sniff, and hostile inputs:
 * varints of 10/11 bytes, lengths past the end, groups, bad wire types,
 * deep nesting, truncation, caps; every error with its absolute offset. */
#include "check.h"
#include "pb_enc.h"
#include "pb_sniff.h"
#include "pb_stream.h"
#include "pb_wire.h"

static void test_varint(void) {
  uint64_t v = 7;
  const uint8_t one[] = {0x05};
  CHECK_EQ_INT(st_pb_varint(one, one + 1, &v), 1);
  CHECK_EQ_INT(v, 5);
  const uint8_t max[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
  CHECK_EQ_INT(st_pb_varint(max, max + 10, &v), 10);
  CHECK(v == UINT64_MAX);
  const uint8_t over[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02};
  CHECK_EQ_INT(st_pb_varint(over, over + 10, &v), -1); /* bit 64 */
  const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  CHECK_EQ_INT(st_pb_varint(eleven, eleven + 11, &v), -1);
  CHECK_EQ_INT(st_pb_varint(max, max + 9, &v), 0);   /* truncated */
  const uint8_t padded[] = {0x80, 0x80, 0x80, 0x00}; /* protozero-style: accepted */
  CHECK_EQ_INT(st_pb_varint(padded, padded + 4, &v), 4);
  CHECK_EQ_INT(v, 0);
  CHECK_EQ_INT(st_pb_i64(UINT64_MAX), -1);
  CHECK(st_pb_i64(0x8000000000000000ull) == INT64_MIN);
}

static void test_fields(void) {
  enc e = {0}, sub = {0};
  enc_u(&sub, 1, 42);
  enc_i(&e, 1, -5);
  enc_fixed64(&e, 2, 0x1122334455667788ull);
  enc_double(&e, 3, 2.5);
  enc_msg(&e, 4, &sub);
  enc_tag(&e, 5, 5);
  enc_raw(&e, "\x01\x02\x03\x04", 4);
  st_pb_reader r, s;
  st_pb_field f;
  st_error err;
  st_pb_reader_init(&r, e.p, e.n, 1000);
  CHECK_EQ_INT(st_pb_next(&r, &f, &err), 1);
  CHECK(f.num == 1 && f.wire == ST_PB_VARINT && st_pb_i64(f.u) == -5 && f.offset == 1000);
  CHECK_EQ_INT(st_pb_next(&r, &f, &err), 1);
  CHECK(f.num == 2 && f.u == 0x1122334455667788ull && f.offset == 1011);
  CHECK_EQ_INT(st_pb_next(&r, &f, &err), 1);
  CHECK(f.num == 3 && st_pb_double(f.u) == 2.5);
  CHECK_EQ_INT(st_pb_next(&r, &f, &err), 1);
  CHECK(f.num == 4 && f.wire == ST_PB_LEN && f.len == 2);
  CHECK_EQ_INT(st_pb_enter(&r, &f, &s, &err), ST_OK);
  st_pb_field g;
  CHECK_EQ_INT(st_pb_next(&s, &g, &err), 1);
  CHECK(g.num == 1 && g.u == 42 && g.offset == st_pb_offset(&r, f.data));
  CHECK_EQ_INT(st_pb_next(&s, &g, &err), 0);
  CHECK_EQ_INT(st_pb_next(&r, &f, &err), 1);
  CHECK(f.num == 5 && f.wire == ST_PB_I32 && f.u == 0x04030201u);
  CHECK_EQ_INT(st_pb_next(&r, &f, &err), 0);
  /* entering a scalar is an error */
  st_pb_reader_init(&r, e.p, e.n, 0);
  st_pb_next(&r, &f, &err);
  CHECK_EQ_INT(st_pb_enter(&r, &f, &s, &err), ST_ERR_PROTO);
  enc_free(&e);
  enc_free(&sub);
}

/* Reads every field of a buffer; returns the first error. */
static st_code read_all(const void *p, size_t n, uint64_t origin, st_error *err) {
  st_pb_reader r;
  st_pb_field f;
  int k;
  memset(err, 0, sizeof *err);
  st_pb_reader_init(&r, p, n, origin);
  while ((k = st_pb_next(&r, &f, err)) > 0) {
  }
  return k < 0 ? err->code : ST_OK;
}

static void test_hostile(void) {
  st_error err;
  /* length past the end: offset of the length varint, absolute */
  CHECK_EQ_INT(read_all("\x08\x01\x12\x05"
                        "ab",
                        6, 100, &err),
               ST_ERR_PROTO);
  CHECK_EQ_INT(err.offset, 103);
  CHECK(strstr(err.msg, "claims 5 bytes but only 2 remain") != NULL);
  /* huge length (2^63) never forms a pointer */
  CHECK_EQ_INT(read_all("\x12\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 11, 0, &err), ST_ERR_PROTO);
  /* 11-byte varint value */
  CHECK_EQ_INT(read_all("\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 12, 0, &err),
               ST_ERR_PROTO);
  CHECK_EQ_INT(err.offset, 1);
  CHECK(strstr(err.msg, "longer than 10 bytes") != NULL);
  /* 10-byte varint with bit 64 set */
  CHECK_EQ_INT(read_all("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x03", 11, 0, &err), ST_ERR_PROTO);
  /* a 10-byte varint that fits is fine */
  CHECK_EQ_INT(read_all("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11, 0, &err), ST_OK);
  /* groups, invalid wire types, field 0, truncated fixed */
  CHECK_EQ_INT(read_all("\x08\x01\x0b", 3, 0, &err), ST_ERR_PROTO);
  CHECK_EQ_INT(err.offset, 2);
  CHECK(strstr(err.msg, "groups") != NULL);
  CHECK_EQ_INT(read_all("\x0c", 1, 0, &err), ST_ERR_PROTO);
  CHECK_EQ_INT(read_all("\x0e", 1, 0, &err), ST_ERR_PROTO);
  CHECK(strstr(err.msg, "invalid wire type 6") != NULL);
  CHECK_EQ_INT(read_all("\x00\x01", 2, 0, &err), ST_ERR_PROTO);
  CHECK(strstr(err.msg, "invalid field number 0") != NULL);
  CHECK_EQ_INT(read_all("\x09\x01\x02\x03", 4, 0, &err), ST_ERR_PROTO);
  CHECK(strstr(err.msg, "8-byte value") != NULL);
  CHECK_EQ_INT(read_all("\x08", 1, 0, &err), ST_ERR_PROTO); /* tag without value */
  CHECK_EQ_INT(read_all("\x80", 1, 0, &err), ST_ERR_PROTO); /* tag cut */
}

static void test_depth(void) {
  /* 70 levels of field 1 nested messages */
  enc a = {0}, b = {0};
  enc_u(&a, 2, 1);
  for (int i = 0; i < 70; i++) {
    enc_reset(&b);
    enc_msg(&b, 1, &a);
    enc t = a;
    a = b;
    b = t;
  }
  st_pb_reader r, s;
  st_pb_field f;
  st_error err;
  st_pb_reader_init(&r, a.p, a.n, 0);
  int depth = 0;
  st_code c = ST_OK;
  while (st_pb_next(&r, &f, &err) > 0 && f.num == 1) {
    c = st_pb_enter(&r, &f, &s, &err);
    if (c != ST_OK) break;
    r = s;
    depth++;
  }
  CHECK_EQ_INT(c, ST_ERR_LIMIT);
  CHECK_EQ_INT(depth, ST_PB_MAX_DEPTH);
  CHECK(strstr(err.msg, "nested deeper") != NULL);
  enc_free(&a);
  enc_free(&b);
}

static void add1(void *ud, uint64_t v) { *(uint64_t *)ud += v; }

static void test_packed(void) {
  enc e = {0}, p = {0};
  enc_varint(&p, 1);
  enc_varint(&p, 300);
  enc_varint(&p, 5);
  enc_msg(&e, 7, &p);
  enc_u(&e, 7, 1000); /* the same field unpacked */
  st_pb_reader r;
  st_pb_field f;
  st_error err;
  uint64_t sum = 0;
  st_pb_reader_init(&r, e.p, e.n, 0);
  while (st_pb_next(&r, &f, &err) > 0)
    CHECK_EQ_INT(st_pb_repeated(&r, &f, ST_PB_VARINT, add1, &sum, &err), ST_OK);
  CHECK_EQ_INT(sum, 1306);
  /* packed fixed64 with a cut element */
  enc_reset(&e);
  enc_bytes(&e, 47, "\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00", 10);
  st_pb_reader_init(&r, e.p, e.n, 50);
  sum = 0;
  CHECK_EQ_INT(st_pb_next(&r, &f, &err), 1);
  CHECK_EQ_INT(st_pb_repeated(&r, &f, ST_PB_I64, add1, &sum, &err), ST_ERR_PROTO);
  CHECK_EQ_INT(sum, 1);
  CHECK_EQ_INT(err.offset, 50 + 3 + 8); /* 2-byte tag, 1-byte length */
  enc_free(&e);
  enc_free(&p);
}

/* ---- pb_stream --------------------------------------------------------- */
typedef struct seen {
  int fields;
  uint64_t sum, offsets, data_offsets;
  int fail_at;
} seen;

static st_code on_field(void *ud, const st_pb_field *f, uint64_t data_offset, st_error *err) {
  seen *s = ud;
  s->fields++;
  s->offsets += f->offset * (uint64_t)s->fields;
  s->data_offsets += data_offset;
  s->sum += f->num * 1000 + f->u;
  for (size_t i = 0; i < f->len; i++) s->sum += f->data[i] * (i + 1);
  if (s->fail_at && s->fields == s->fail_at)
    return st_error_set(err, ST_ERR_PROTO, f->offset, "callback says no");
  return ST_OK;
}

static st_code stream_all(const uint8_t *p, size_t n, size_t chunk, uint64_t max, seen *s,
                          st_error *err, size_t *peak) {
  memset(s, 0, sizeof *s);
  memset(err, 0, sizeof *err);
  st_pb_stream *st = st_pb_stream_create(NULL, max, on_field, s, "packet");
  st_code c = ST_OK;
  *peak = 0;
  for (size_t i = 0; i < n && c == ST_OK; i += chunk) {
    c = st_pb_stream_push(st, p + i, n - i < chunk ? n - i : chunk, err);
    if (st_pb_stream_buffer_bytes(st) > *peak) *peak = st_pb_stream_buffer_bytes(st);
  }
  if (c == ST_OK) c = st_pb_stream_finish(st, err);
  st_pb_stream_destroy(st);
  return c;
}

static void test_stream_chunking(void) {
  enc e = {0}, big = {0};
  for (int i = 0; i < 5000; i++) enc_raw(&big, "x", 1);
  enc_u(&e, 3, 1ull << 40);
  enc_str(&e, 1, "hello");
  enc_msg(&e, 1, &big);
  enc_fixed64(&e, 2, 77);
  enc_tag(&e, 4, 5);
  enc_raw(&e, "\x01\x00\x00\x00", 4);
  enc_bytes(&e, 1, "", 0);
  seen ref, s;
  st_error err;
  size_t peak;
  CHECK_EQ_INT(stream_all(e.p, e.n, e.n, 1 << 20, &ref, &err, &peak), ST_OK);
  CHECK_EQ_INT(ref.fields, 6);
  CHECK_EQ_INT(peak, 0); /* one chunk: decoded in place */
  for (size_t chunk = 1; chunk < 40; chunk++) {
    CHECK_EQ_INT(stream_all(e.p, e.n, chunk, 1 << 20, &s, &err, &peak), ST_OK);
    CHECK(s.fields == ref.fields && s.sum == ref.sum && s.offsets == ref.offsets &&
          s.data_offsets == ref.data_offsets);
  }
  /* truncated inside the big field: offset of its tag */
  CHECK_EQ_INT(stream_all(e.p, e.n - 100, 64, 1 << 20, &s, &err, &peak), ST_ERR_TRUNCATED);
  CHECK(strstr(err.msg, "inside a packet") != NULL);
  CHECK_EQ_INT(err.offset, 14); /* 7 + 7 bytes before it */
  /* over the cap */
  CHECK_EQ_INT(stream_all(e.p, e.n, 7, 1000, &s, &err, &peak), ST_ERR_LIMIT);
  CHECK_EQ_INT(err.offset, 15); /* its length */
  CHECK(strstr(err.msg, "5000 bytes") != NULL);
  /* a callback error stops the stream and keeps its offset */
  memset(&s, 0, sizeof s);
  s.fail_at = 2;
  st_pb_stream *st = st_pb_stream_create(NULL, 1 << 20, on_field, &s, "packet");
  CHECK_EQ_INT(st_pb_stream_push(st, e.p, e.n, &err), ST_ERR_PROTO);
  CHECK_EQ_INT(err.offset, 7);
  CHECK_EQ_INT(st_pb_stream_push(st, e.p, 1, &err), ST_ERR_PROTO); /* sticky */
  st_pb_stream_destroy(st);
  enc_free(&e);
  enc_free(&big);
}

static void test_stream_hostile(void) {
  seen s;
  st_error err;
  size_t peak;
  /* a 60 MB length with 10 bytes behind it: the buffer grows only with data */
  uint8_t p[64] = {0x0A, 0x80, 0x80, 0x80, 0x1E};
  CHECK_EQ_INT(stream_all(p, sizeof p, 3, 64u << 20, &s, &err, &peak), ST_ERR_TRUNCATED);
  CHECK(peak <= 4096);
  CHECK_EQ_INT(err.offset, 0);
  /* group at top level, 11-byte length varint, over-long tag */
  CHECK_EQ_INT(stream_all((const uint8_t *)"\x0b\x00", 2, 1, 1 << 20, &s, &err, &peak),
               ST_ERR_PROTO);
  CHECK(strstr(err.msg, "wire type 3") != NULL);
  CHECK_EQ_INT(stream_all((const uint8_t *)"\x0a\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 12,
                          1, 1 << 20, &s, &err, &peak),
               ST_ERR_PROTO);
  CHECK_EQ_INT(err.offset, 1);
  CHECK_EQ_INT(stream_all((const uint8_t *)"\x08\x01\x0a", 3, 1, 1 << 20, &s, &err, &peak),
               ST_ERR_TRUNCATED);
  CHECK_EQ_INT(err.offset, 2);
  CHECK(strstr(err.msg, "header") != NULL);
}

static void test_sniff(void) {
  enc plane = {0}, sp = {0};
  enc_str(&plane, 2, "/host:CPU");
  enc_msg(&sp, 1, &plane);
  CHECK_EQ_INT(st_pb_sniff(sp.p, sp.n), ST_PB_XSPACE);
  enc_reset(&plane);
  enc_reset(&sp);
  enc_u(&plane, 1, 3);
  enc_str(&plane, 2, "/device:GPU:2");
  enc_msg(&sp, 1, &plane);
  CHECK_EQ_INT(st_pb_sniff(sp.p, sp.n), ST_PB_XSPACE);
  CHECK_EQ_INT(st_pb_sniff(sp.p, 6), ST_PB_XSPACE); /* cut sniff window */
  enc_reset(&plane);
  enc_reset(&sp);
  enc_u(&plane, 8, 1000);
  enc_u(&plane, 10, 1);
  enc_msg(&sp, 1, &plane);
  CHECK_EQ_INT(st_pb_sniff(sp.p, sp.n), ST_PB_PERFETTO);
  enc_reset(&plane);
  enc_reset(&sp);
  enc_bytes(&plane, 2, "\x0a\x02\x08\x01", 4); /* process_tree */
  enc_msg(&sp, 1, &plane);
  CHECK_EQ_INT(st_pb_sniff(sp.p, sp.n), ST_PB_PERFETTO);
  CHECK_EQ_INT(st_pb_sniff((const uint8_t *)"\x0a", 1), ST_PB_PERFETTO);
  enc_free(&plane);
  enc_free(&sp);
}

int main(void) {
  RUN(test_varint);
  RUN(test_fields);
  RUN(test_hostile);
  RUN(test_depth);
  RUN(test_packed);
  RUN(test_stream_chunking);
  RUN(test_stream_hostile);
  RUN(test_sniff);
  return check_report();
}
