/* argsrc_common.c: what every format's args decoder uses, at the bottom
 * of the args source's call order (argsrc_internal.h):
 *   - the query's reads: ask for a range next, finish, a protobuf record
 *     at the start of the range read;
 *   - the JSON text the decoders write: a growing buffer, capped at
 *     ST_ARGS_RESULT_MAX (members past it are left out and the result
 *     marked truncated), strings made valid UTF-8 and JSON.
 *
 * Contents
 *   1. the query's reads
 *   2. the JSON text writer
 */
#include "argsrc_internal.h"

#include "chrome_args.h" /* ST_ARGS_MAX_OBJECT */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== 1. the query's reads =============================================== */

/* Asks for [offset, offset + length) next. */
st_code argsrc_ask(st_args_query *q, uint64_t offset, uint64_t length, int *more,
                   st_args_span *read, st_error *err) {
  if (q->steps >= ST_ARGS_QUERY_STEPS)
    return st_error_set(err, ST_ERR_ARG, q->src, "args: too many reads");
  if (length > ST_ARGS_MAX_OBJECT)
    return st_error_set(err, ST_ERR_LIMIT, offset, "args: a record of %llu bytes is too large",
                        (unsigned long long)length);
  q->want = length;
  q->want_off = offset;
  read->offset = offset;
  read->length = length;
  *more = 1;
  return ST_OK;
}

st_code argsrc_finish(st_args_query *q, int *more, st_error *err) {
  if (q->out.o.nomem) return st_error_set(err, ST_ERR_NOMEM, q->src, "out of memory");
  q->done = 1;
  *more = 0;
  return ST_OK;
}

/* The LEN record with tag `tag` at the start of data: its payload, or a
 * request for the whole record when it goes on past len. */
st_code argsrc_record_at(st_args_query *q, const uint8_t *data, size_t len, uint64_t tag,
                         const char *what, const uint8_t **payload, size_t *plen, int *more,
                         st_args_span *read, st_error *err) {
  uint64_t t = 0, n = 0;
  int eof = len < q->want;
  int a = st_pb_varint(data, data + len, &t);
  int b = a > 0 ? st_pb_varint(data + a, data + len, &n) : 0;
  *payload = NULL;
  if (a < 0 || b < 0 || (a > 0 && t != tag))
    return st_error_set(err, ST_ERR_PROTO, q->src, "no %s record at byte %llu", what,
                        (unsigned long long)q->src);
  if (a == 0 || b == 0)
    return eof ? st_error_set(err, ST_ERR_TRUNCATED, q->src, "the input ends inside the %s", what)
               : st_error_set(err, ST_ERR_PROTO, q->src, "no %s record at byte %llu", what,
                              (unsigned long long)q->src);
  uint64_t head = (uint64_t)a + (uint64_t)b;
  if (n > ST_ARGS_MAX_OBJECT)
    return st_error_set(err, ST_ERR_LIMIT, q->src, "args: a %s of %llu bytes is too large", what,
                        (unsigned long long)n);
  if (head + n > len) {
    if (eof)
      return st_error_set(err, ST_ERR_TRUNCATED, q->src, "the input ends inside the %s", what);
    return argsrc_ask(q, q->src, head + n, more, read, err);
  }
  *payload = data + head;
  *plen = (size_t)n;
  return ST_OK;
}

/* ==== 2. the JSON text writer ============================================= */

void jb_put(jb *b, const char *s, size_t n) { st_jout_put(&b->o, s, n); }

void jb_lit(jb *b, const char *s) { st_jout_lit(&b->o, s); }

/* A JSON string: control characters escaped, invalid UTF-8 -> U+FFFD (0x7f
 * as it is), cut with an ellipsis past STR_MAX bytes of input. */
void jb_str(jb *b, const uint8_t *s, size_t n) {
  int cut = n > STR_MAX;
  if (cut) n = STR_MAX;
  st_jout_put(&b->o, "\"", 1);
  st_jout_esc(&b->o, (const char *)s, n, ST_JESC_UTF8);
  if (cut) st_jout_put(&b->o, ELLIPSIS, 3);
  st_jout_put(&b->o, "\"", 1);
}

void jb_cstr(jb *b, const char *s) { jb_str(b, (const uint8_t *)s, strlen(s)); }

/* Starts a member or element: 0 (and stop) once the result is over the cap. */
int jb_sep(jb *b, int *first) {
  if (b->stop) return 0;
  if (b->o.len > ST_ARGS_RESULT_MAX) {
    b->stop = b->truncated = 1;
    return 0;
  }
  if (!*first) jb_put(b, ", ", 2);
  *first = 0;
  return 1;
}

/* The shortest %g that reads back the same double. */
void jb_fmt_double(char *buf, size_t cap, double v) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, cap, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

/* An integer: a JSON number when a double holds it exactly, else a string. */
void jb_int(jb *b, int64_t v, int is_unsigned, uint64_t u) {
  char num[32];
  int exact = is_unsigned ? u <= (1ull << 53) : (v <= (1ll << 53) && v >= -(1ll << 53));
  if (is_unsigned)
    snprintf(num, sizeof num, "%llu", (unsigned long long)u);
  else
    snprintf(num, sizeof num, "%lld", (long long)v);
  if (exact)
    jb_lit(b, num);
  else
    jb_cstr(b, num);
}

/* Starts member k (after a separator). */
void jb_key(jb *b, int *first, const char *k) {
  jb_sep(b, first);
  jb_cstr(b, k);
  jb_put(b, ": ", 2);
}
