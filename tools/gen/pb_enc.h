/* pb_enc.h: a tiny protobuf encoder for tests and fuzz seeds: fixtures are
 * built in memory from the field numbers in FORMATS.md §3-4, so the suite
 * needs no protoc. Nested messages are encoded into their own buffer and
 * appended with enc_msg().
 *
 *   enc m = {0}, p = {0};
 *   enc_str(&p, 2, "/host:CPU");
 *   enc_msg(&m, 1, &p);            // appends tag, length, p's bytes
 *   ... m.p, m.n ...; enc_free(&m); enc_free(&p);
 */
#ifndef STRATA_PB_ENC_H
#define STRATA_PB_ENC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct enc {
  uint8_t *p;
  size_t n, cap;
} enc;

static inline void enc_raw(enc *e, const void *d, size_t n) {
  if (e->n + n > e->cap) {
    size_t cap = e->cap ? e->cap : 256;
    while (cap < e->n + n) cap *= 2;
    e->p = realloc(e->p, cap);
    if (!e->p) abort();
    e->cap = cap;
  }
  if (n) memcpy(e->p + e->n, d, n);
  e->n += n;
}
static inline void enc_varint(enc *e, uint64_t v) {
  uint8_t b[10];
  int n = 0;
  do {
    b[n] = (uint8_t)(v & 0x7F);
    v >>= 7;
    if (v) b[n] |= 0x80;
    n++;
  } while (v);
  enc_raw(e, b, (size_t)n);
}
static inline void enc_tag(enc *e, uint32_t num, int wire) {
  enc_varint(e, ((uint64_t)num << 3) | (uint64_t)wire);
}
static inline void enc_u(enc *e, uint32_t num, uint64_t v) {
  enc_tag(e, num, 0);
  enc_varint(e, v);
}
static inline void enc_i(enc *e, uint32_t num, int64_t v) { enc_u(e, num, (uint64_t)v); }
static inline void enc_fixed64(enc *e, uint32_t num, uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
  enc_tag(e, num, 1);
  enc_raw(e, b, 8);
}
static inline void enc_double(enc *e, uint32_t num, double d) {
  uint64_t v;
  memcpy(&v, &d, 8);
  enc_fixed64(e, num, v);
}
static inline void enc_bytes(enc *e, uint32_t num, const void *d, size_t n) {
  enc_tag(e, num, 2);
  enc_varint(e, n);
  enc_raw(e, d, n);
}
static inline void enc_str(enc *e, uint32_t num, const char *s) { enc_bytes(e, num, s, strlen(s)); }
static inline void enc_msg(enc *e, uint32_t num, const enc *m) { enc_bytes(e, num, m->p, m->n); }
static inline void enc_reset(enc *e) { e->n = 0; }
static inline void enc_free(enc *e) {
  free(e->p);
  memset(e, 0, sizeof *e);
}

#endif
