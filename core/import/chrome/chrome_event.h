/* chrome_event.h: one Chrome Trace Event object, read out of the JSON
 * importer's window (import_chrome.c) into the fields strata uses, with no
 * side effects: strings and nested values stay byte ranges into the window,
 * undecoded, and nothing is interned. What an event then does to the model
 * is chrome_semantics.h's business.
 *
 * The readers below interpret the nested values a parsed event points at
 * (args, entries, id2): members of a complete object, strings, numbers.
 *
 *   st_chrome_ev e;
 *   const char *next, *bad, *why;
 *   switch (st_chrome_parse_event(p, end, &e, &next, &bad, &why)) ...
 *   st_chrome_objit it = st_chrome_objit_of(e.args, e.args_end);
 *   while (st_chrome_objit_next(&it, &key, &v, &vend)) ...
 */
#ifndef STRATA_CHROME_EVENT_H
#define STRATA_CHROME_EVENT_H

#include "json_scan.h"
#include "scan_simd.h"

#include <stdint.h>
#include <string.h>

/* pid, tid, id, id2, bind_id: a number or a string (or absent) */
typedef enum st_chrome_idkind {
  ST_CHROME_ID_NONE = 0,
  ST_CHROME_ID_NUM,
  ST_CHROME_ID_STR
} st_chrome_idkind;

typedef struct st_chrome_id {
  st_chrome_idkind kind;
  int64_t num;
  st_json_str s;
} st_chrome_id;

/* The fields of one event that strata uses (byte ranges into the window). */
typedef struct st_chrome_ev {
  uint32_t nkeys;
  uint8_t has_ph, has_ts, has_dur, bad_ts, bad_dur, id2_local, has_id2;
  uint8_t flow_in, flow_out;
  st_json_str ph, name, cat, scope_s, scope, event_stats, bp;
  int64_t ts, dur;
  st_chrome_id pid, tid, id, id2, bind_id;
  const char *obj, *obj_end; /* the whole object (keys strata reads rarely, e.g. a sample's sf) */
  const char *args, *args_end;
  const char *entries, *entries_end;
} st_chrome_ev;

/* Parses the event object at p ('{') into *e. ST_JSON_OK: *out is just past
 * its '}'. ST_JSON_INCOMPLETE: it runs past end. ST_JSON_BAD: syntax error
 * at *bad, described by *why. */
st_json_status st_chrome_parse_event(const char *p, const char *end, st_chrome_ev *e,
                                     const char **out, const char **bad, const char **why);

/* ---- reading values the event points at --------------------------------- */

/* s == lit, raw bytes (a string with escapes never matches) */
static inline int st_chrome_str_eq(st_json_str s, const char *lit) {
  size_t n = strlen(lit);
  return s.n == n && !s.esc && memcmp(s.p, lit, n) == 0;
}

/* iterating a complete object's members */
typedef struct st_chrome_objit {
  const char *p, *end;
} st_chrome_objit;

/* Next member: key string, value range. 0 at the end or on malformed text. */
static inline int st_chrome_objit_next(st_chrome_objit *it, st_json_str *key, const char **v,
                                       const char **vend) {
  const char *p = st_json_ws(it->p, it->end), *q;
  if (p >= it->end) return 0;
  if (*p == ',') p = st_json_ws(p + 1, it->end);
  if (p >= it->end || *p != '"') return 0;
  if (st_json_string(p + 1, it->end, &q, &key->esc) != ST_JSON_OK) return 0;
  key->p = p + 1;
  key->n = (size_t)(q - key->p);
  p = st_json_ws(q + 1, it->end);
  if (p >= it->end || *p != ':') return 0;
  p = st_json_ws(p + 1, it->end);
  if (st_json_skip_value(p, it->end, &q) != ST_JSON_OK) {
    /* a number ending exactly at the object's end is complete */
    q = st_json_number_end(p, it->end);
    if (q == p) return 0;
  }
  *v = p;
  *vend = q;
  it->p = q;
  return 1;
}

/* The members of the object [v, vend); none if it is not an object. */
static inline st_chrome_objit st_chrome_objit_of(const char *v, const char *vend) {
  st_chrome_objit it = {vend, vend};
  if (v && v < vend && *v == '{') it = (st_chrome_objit){v + 1, vend - 1};
  return it;
}

/* A value as a string (quoted) -> st_json_str; 0 if not a string. */
static inline int st_chrome_value_str(const char *v, const char *vend, st_json_str *out) {
  if (vend - v < 2 || *v != '"' || vend[-1] != '"') return 0;
  out->p = v + 1;
  out->n = (size_t)(vend - v - 2);
  out->esc = st_scan_contains(out->p, out->p + out->n, '\\');
  return 1;
}

/* Number or numeric string -> double. */
static inline int st_chrome_value_double(const char *v, const char *vend, double *out) {
  st_json_str s;
  if (st_chrome_value_str(v, vend, &s)) return !s.esc && st_json_double(s.p, s.n, out);
  return st_json_double(v, (size_t)(vend - v), out);
}

/* Number or numeric string of microseconds -> ns. */
static inline int st_chrome_value_ns(const char *v, const char *vend, int64_t *out) {
  st_json_str s;
  if (st_chrome_value_str(v, vend, &s)) return !s.esc && st_json_decimal_scaled(s.p, s.n, 3, out);
  return st_json_decimal_scaled(v, (size_t)(vend - v), 3, out);
}

#endif
