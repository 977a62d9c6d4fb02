/* chrome_event.c: parsing one Chrome trace event object (see
 * chrome_event.h).
 *
 * One pass over the object's keys: the keys strata uses are recognised by
 * length and a few byte compares (no hashing, no decoding unless a key has
 * escapes), their values parsed in place; every other value is skipped
 * structurally. Numbers become integers without a double (ts/dur in ns).
 */
#include "chrome_event.h"

/* Result of parsing one value. */
#define PV_OK 0
#define PV_MORE 1
#define PV_BAD 2

/* A value we only need to skip. */
static int pv_skip(const char **pp, const char *end, const char **bad) {
  const char *q;
  st_json_status s = st_json_skip_value(*pp, end, &q);
  if (s == ST_JSON_OK) {
    *pp = q;
    return PV_OK;
  }
  if (s == ST_JSON_INCOMPLETE) return PV_MORE;
  *bad = q;
  return PV_BAD;
}

static int pv_string(const char **pp, const char *end, st_json_str *out, const char **bad) {
  const char *p = *pp, *q;
  if (*p != '"') return pv_skip(pp, end, bad); /* not a string: ignored */
  int esc;
  if (st_json_string(p + 1, end, &q, &esc) != ST_JSON_OK) return PV_MORE;
  out->p = p + 1;
  out->n = (size_t)(q - p - 1);
  out->esc = esc;
  *pp = q + 1;
  return PV_OK;
}

/* ts/dur: number or numeric string of microseconds -> ns. */
static int pv_time(const char **pp, const char *end, int64_t *out, uint8_t *has, uint8_t *badv,
                   const char **bad) {
  const char *p = *pp;
  unsigned c = (unsigned char)*p;
  if (c == '-' || (c >= '0' && c <= '9')) {
    const char *q = st_json_number_end(p, end);
    if (q >= end) return PV_MORE;
    if (st_json_decimal_scaled(p, (size_t)(q - p), 3, out))
      *has = 1;
    else
      *badv = 1;
    *pp = q;
    return PV_OK;
  }
  if (c == '"') {
    st_json_str s;
    int r = pv_string(pp, end, &s, bad);
    if (r != PV_OK) return r;
    if (!s.esc && st_json_decimal_scaled(s.p, s.n, 3, out))
      *has = 1;
    else
      *badv = 1;
    return PV_OK;
  }
  *badv = 1;
  return pv_skip(pp, end, bad);
}

/* pid/tid/id/bind_id: number or string. */
static int pv_id(const char **pp, const char *end, st_chrome_id *out, const char **bad) {
  const char *p = *pp;
  unsigned c = (unsigned char)*p;
  if (c == '-' || (c >= '0' && c <= '9')) {
    const char *q = st_json_number_end(p, end);
    if (q >= end) return PV_MORE;
    if (st_json_int_key(p, (size_t)(q - p), &out->num)) out->kind = ST_CHROME_ID_NUM;
    *pp = q;
    return PV_OK;
  }
  if (c == '"') {
    int r = pv_string(pp, end, &out->s, bad);
    if (r == PV_OK) out->kind = ST_CHROME_ID_STR;
    return r;
  }
  return pv_skip(pp, end, bad);
}

static int pv_range(const char **pp, const char *end, const char **v, const char **vend,
                    const char **bad) {
  const char *start = *pp;
  int r = pv_skip(pp, end, bad);
  if (r == PV_OK) {
    *v = start;
    *vend = *pp;
  }
  return r;
}

static int pv_bool(const char **pp, const char *end, uint8_t *out, const char **bad) {
  const char *p = *pp;
  int r = pv_skip(pp, end, bad);
  if (r == PV_OK) *out = *p == 't' || (*p >= '1' && *p <= '9');
  return r;
}

/* id2: {"local": x} or {"global": x} */
static void parse_id2(st_chrome_ev *e, const char *v, const char *vend) {
  st_chrome_objit it = st_chrome_objit_of(v, vend);
  st_json_str k;
  const char *a, *ae;
  while (st_chrome_objit_next(&it, &k, &a, &ae)) {
    int local = st_chrome_str_eq(k, "local");
    if (!local && !st_chrome_str_eq(k, "global")) continue;
    st_json_str s;
    if (st_chrome_value_str(a, ae, &s)) {
      e->id2.kind = ST_CHROME_ID_STR;
      e->id2.s = s;
    } else if (st_json_int_key(a, (size_t)(ae - a), &e->id2.num)) {
      e->id2.kind = ST_CHROME_ID_NUM;
    } else {
      continue;
    }
    e->has_id2 = 1;
    e->id2_local = (uint8_t)local;
  }
}

/* k[0..n) == lit for a short literal key. Not memcmp: with n constant this
 * unrolls to a few byte compares, where wasm would call musl's byte-wise
 * memcmp for every key of every event. */
static inline int key_is(const char *k, const char *lit, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (k[i] != lit[i]) return 0;
  return 1;
}

/* Parses the event object at p ('{'). No side effects on the importer. */
st_json_status st_chrome_parse_event(const char *p, const char *end, st_chrome_ev *e,
                                     const char **out, const char **bad, const char **why) {
  memset(e, 0, sizeof *e);
  e->obj = p;
  p = st_json_ws(p + 1, end);
  if (p >= end) return ST_JSON_INCOMPLETE;
  if (*p == '}') {
    *out = e->obj_end = p + 1;
    return ST_JSON_OK;
  }
  for (;;) {
    if (*p != '"') {
      *bad = p;
      *why = "expected a key string in an event";
      return ST_JSON_BAD;
    }
    const char *k = p + 1, *q = k;
    while (q < end && *q != '"' && *q != '\\') q++;
    if (q >= end) return ST_JSON_INCOMPLETE;
    size_t kn = (size_t)(q - k);
    int kesc = 0;
    if (*q == '\\') { /* escaped key: rare; compare its decoded form */
      if (st_json_string(k, end, &q, &kesc) != ST_JSON_OK) return ST_JSON_INCOMPLETE;
      kn = (size_t)(q - k);
    }
    char kbuf[80];
    if (kesc) { /* none of our keys is longer than 11 bytes once decoded */
      kn = kn <= 24 ? st_json_unescape(k, kn, kbuf) : 0;
      k = kbuf;
    }
    p = st_json_ws(q + 1, end);
    if (p >= end) return ST_JSON_INCOMPLETE;
    if (*p != ':') {
      *bad = p;
      *why = "expected ':' after a key in an event";
      return ST_JSON_BAD;
    }
    p = st_json_ws(p + 1, end);
    if (p >= end) return ST_JSON_INCOMPLETE;
    e->nkeys++;
    int r = -1;
    switch (kn) {
    case 1:
      if (k[0] == 's') r = pv_string(&p, end, &e->scope_s, bad);
      break;
    case 2:
      if (k[0] == 'p' && k[1] == 'h') {
        r = pv_string(&p, end, &e->ph, bad);
        e->has_ph = 1;
      } else if (k[0] == 't' && k[1] == 's') {
        r = pv_time(&p, end, &e->ts, &e->has_ts, &e->bad_ts, bad);
      } else if (k[0] == 'i' && k[1] == 'd') {
        r = pv_id(&p, end, &e->id, bad);
      } else if (k[0] == 'b' && k[1] == 'p') {
        r = pv_string(&p, end, &e->bp, bad);
      }
      break;
    case 3:
      if (key_is(k, "pid", 3))
        r = pv_id(&p, end, &e->pid, bad);
      else if (key_is(k, "tid", 3))
        r = pv_id(&p, end, &e->tid, bad);
      else if (key_is(k, "cat", 3))
        r = pv_string(&p, end, &e->cat, bad);
      else if (key_is(k, "dur", 3))
        r = pv_time(&p, end, &e->dur, &e->has_dur, &e->bad_dur, bad);
      else if (key_is(k, "id2", 3)) {
        const char *v = NULL, *ve = NULL;
        r = pv_range(&p, end, &v, &ve, bad);
        if (r == PV_OK) parse_id2(e, v, ve);
      }
      break;
    case 4:
      if (key_is(k, "name", 4))
        r = pv_string(&p, end, &e->name, bad);
      else if (key_is(k, "args", 4))
        r = pv_range(&p, end, &e->args, &e->args_end, bad);
      break;
    case 5:
      if (key_is(k, "scope", 5)) r = pv_string(&p, end, &e->scope, bad);
      break;
    case 7:
      if (key_is(k, "bind_id", 7))
        r = pv_id(&p, end, &e->bind_id, bad);
      else if (key_is(k, "entries", 7))
        r = pv_range(&p, end, &e->entries, &e->entries_end, bad);
      else if (key_is(k, "flow_in", 7))
        r = pv_bool(&p, end, &e->flow_in, bad);
      break;
    case 8:
      if (key_is(k, "flow_out", 8)) r = pv_bool(&p, end, &e->flow_out, bad);
      break;
    case 11:
      if (key_is(k, "event_stats", 11)) r = pv_string(&p, end, &e->event_stats, bad);
      break;
    default: break;
    }
    if (r < 0) r = pv_skip(&p, end, bad);
    if (r == PV_MORE) return ST_JSON_INCOMPLETE;
    if (r == PV_BAD) {
      *why = "invalid value in an event";
      return ST_JSON_BAD;
    }
    p = st_json_ws(p, end);
    if (p >= end) return ST_JSON_INCOMPLETE;
    if (*p == ',') {
      p = st_json_ws(p + 1, end);
      if (p >= end) return ST_JSON_INCOMPLETE;
      continue;
    }
    if (*p == '}') {
      *out = e->obj_end = p + 1;
      return ST_JSON_OK;
    }
    *bad = p;
    *why = "expected ',' or '}' in an event";
    return ST_JSON_BAD;
  }
}
