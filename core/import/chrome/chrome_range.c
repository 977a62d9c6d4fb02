/* chrome_range.c: one task of a split Chrome JSON import (see
 * chrome_range.h): the plan, the scan for where a task starts, the parse
 * of its elements into records (chrome_record.h) and the result's header.
 */
#include "chrome_range.h"

#include "chrome_event.h"
#include "chrome_record.h"
#include "import_chrome.h"
#include "json_scan.h"
#include "scan_simd.h"

#include <string.h>

#define MAGIC 0x31524753u /* "SGR1" */
#define VERSION 1u

/* the header, as written (all fields 4 or 8 bytes: no padding) */
typedef struct header {
  uint32_t magic, version;
  uint64_t base, next, size, start, stop;
  uint32_t status, expect_value, after_comma, pad;
  uint64_t last_src, newlines, last_nl, records, body_bytes;
} header;

/* tasks of at least this many bytes (fewer, bigger tasks when the input is
 * small), at most this many per worker for an even spread */
#define TASK_MIN ((uint64_t)4u << 20)
#define TASK_MAX ((uint64_t)16u << 20)

uint32_t st_range_plan(uint64_t size, uint32_t workers, uint64_t *task_bytes) {
  if (task_bytes) *task_bytes = 0;
  if (workers <= 1 || size < ST_RANGE_MIN_SPLIT) return 0;
  /* ~8 tasks per worker: a slow task (a busy core) does not hold up the
   * others for long, and results arrive in order soon after they start */
  uint64_t tb = size / ((uint64_t)workers * 8u);
  if (tb < TASK_MIN) tb = TASK_MIN;
  if (tb > TASK_MAX) tb = TASK_MAX;
  uint64_t n = size / tb + (size % tb != 0);
  if (n > UINT32_MAX) return 0;
  if (task_bytes) *task_bytes = tb;
  return (uint32_t)n;
}

static int is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* 1 if f ('{') opens an object whose first key looks like one: ws* '"',
 * up to 128 bytes without a quote or a backslash, '"', ws*, ':'. Inside a string,
 * "},{" is followed by that only if the string ends right there and what
 * follows it reads like a key: rare, and caught by the main thread. */
static int key_follows(const char *f, const char *end) {
  const char *g = f + 1;
  while (g < end && is_ws(*g)) g++;
  if (g >= end || *g != '"') return 0;
  const char *lim = end - g > 130 ? g + 130 : end;
  for (g++; g < lim && *g != '"'; g++)
    if (*g == '\\') return 0;
  if (g >= lim) return 0;
  for (g++; g < end && is_ws(*g); g++) {
  }
  return g < end && *g == ':';
}

/* c = the first '{' in [p, min(p + ST_RANGE_SCAN, end)) that follows '}' ws*
 * ',' ws*, the '}' at or after p, and opens an object with a key; NULL if
 * none. Reads at most a few hundred bytes past the window (the key). */
static const char *cut(const char *p, const char *end, const char *cap) {
  const char *lim = (size_t)(end - p) > ST_RANGE_SCAN ? p + ST_RANGE_SCAN : end;
  if (lim > cap) lim = cap;
  for (const char *c = p; c < lim; c++) {
    c = memchr(c, ',', (size_t)(lim - c));
    if (!c) return NULL;
    const char *b = c - 1;
    while (b >= p && is_ws(*b)) b--;
    if (b < p || *b != '}') continue;
    const char *f = c + 1;
    while (f < lim && is_ws(*f)) f++;
    if (f < lim && *f == '{' && key_follows(f, end)) return f;
  }
  return NULL;
}

uint8_t *st_chrome_range_parse(const st_alloc *a, const uint8_t *bytes, size_t len, uint64_t base,
                               uint64_t next, uint64_t size, size_t *out_len) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (out_len) *out_len = 0;
  if (!bytes || !out_len || next < base || base > size || len > size - base) return NULL;
  const char *buf = (const char *)bytes, *end = buf + len;
  header h;
  memset(&h, 0, sizeof h);
  h.magic = MAGIC;
  h.version = VERSION;
  h.base = base;
  h.next = next;
  h.size = size;
  h.last_src = h.last_nl = UINT64_MAX;
  /* records take about as many bytes as the JSON they come from */
  st_chrome_recbuf rb = {0};
  uint64_t share = next - base < len ? next - base : len;
  size_t first = sizeof h + 256 + (size_t)share + (size_t)share / 4;
  rb.p = st_malloc(&al, first);
  if (!rb.p) return NULL;
  rb.cap = first;
  rb.len = sizeof h;

  const char *start = cut(buf, end, end);
  if (!start) {
    h.status = ST_RANGE_NO_START;
    h.start = UINT64_MAX;
    h.stop = base;
  } else {
    /* where the next task starts; none for the last one (or none found: this
     * task then runs until its bytes end, and the main thread goes on) */
    const char *stop_at = NULL;
    if (next < size && next - base < len) stop_at = cut(buf + (next - base), end, end);
    /* the task's share ends at its nominal end */
    const char *share_end = next - base < len ? buf + (next - base) : end;
    const char *p = start;
    int ev = 1, ac = 1;
    uint64_t nrec = 0;
  again:
    h.status = ST_RANGE_TROUBLE;
    for (;;) {
      p = st_json_ws(p, end);
      if (p >= end) break; /* the bytes ended: the main thread reads on */
      char c = *p;
      uint64_t at = base + (uint64_t)(p - buf);
      if (c == '{') {
        if (stop_at && p >= stop_at && ev && ac) {
          h.status = ST_RANGE_AT_NEXT;
          break;
        }
        st_chrome_ev e;
        const char *q, *bad, *why;
        if (st_chrome_parse_event(p, end, &e, &q, &bad, &why) != ST_JSON_OK) break;
        if (!ev && !st_chrome_rec_warn(&rb, &al, CREC_W_MISSING_COMMA, h.last_src)) goto nomem;
        if (!(st_chrome_rec_x_fits(&e)      ? st_chrome_rec_x(&rb, &al, &e, at)
              : st_chrome_rec_needs_raw(&e) ? st_chrome_rec_raw(&rb, &al, p, (size_t)(q - p), at)
                                            : st_chrome_rec_event(&rb, &al, &e, at)))
          goto nomem;
        nrec += 1 + !ev;
        h.last_src = at;
        ev = ac = 0;
        p = q;
      } else if (c == ',') {
        if (ev) break; /* a syntax error: the main thread reports it */
        ev = ac = 1;
        p++;
      } else if (c == ']') {
        h.status = ST_RANGE_LIST_END;
        break;
      } else {
        const char *q;
        if (st_json_skip_value(p, end, &q) != ST_JSON_OK) break;
        if (!st_chrome_rec_warn(&rb, &al, CREC_W_NON_OBJECT, at)) goto nomem;
        nrec++;
        h.last_src = at;
        ev = ac = 0;
        p = q;
      }
    }
    if (p > end) p = end;
    /* Stopped inside its share at a ']' or at bytes it could not read: the
     * list was not traceEvents (Kineto's deviceProperties comes first), or
     * it ended, or the main thread will meet an error here. Start again at
     * the next cut of the share: what came before is the main thread's. */
    const char *again_at;
    if (h.status != ST_RANGE_AT_NEXT && p < share_end &&
        (again_at = cut(p + 1, end, share_end)) != NULL) {
      st_chrome_rec_truncate(&rb, sizeof h);
      nrec = 0;
      h.last_src = UINT64_MAX;
      start = p = again_at;
      ev = ac = 1;
      goto again;
    }
    h.start = base + (uint64_t)(start - buf);
    h.stop = base + (uint64_t)(p - buf);
    h.expect_value = (uint32_t)ev;
    h.after_comma = (uint32_t)ac;
    h.records = nrec;
    h.newlines = st_scan_count(start, p, '\n');
    const char *lnl = h.newlines ? st_scan_last_byte(start, p, '\n') : NULL;
    if (lnl) h.last_nl = base + (uint64_t)(lnl - buf);
  }
  st_chrome_rec_done(&rb, &al);
  h.body_bytes = rb.len - sizeof h;
  memcpy(rb.p, &h, sizeof h);
  *out_len = rb.len;
  return rb.p;
nomem:
  st_chrome_rec_done(&rb, &al);
  st_free(&al, rb.p);
  return NULL;
}

int st_range_info_read(const uint8_t *blob, size_t len, st_range_info *out) {
  header h;
  if (!blob || len < sizeof h) return 0;
  memcpy(&h, blob, sizeof h);
  if (h.magic != MAGIC || h.version != VERSION || h.body_bytes != len - sizeof h) return 0;
  if (h.status > ST_RANGE_NO_START || h.expect_value > 1 || h.after_comma > 1) return 0;
  if (h.next < h.base || h.base > h.size || h.next > h.size) return 0;
  if (h.status == ST_RANGE_NO_START) {
    if (h.start != UINT64_MAX || h.stop != h.base || h.records || h.body_bytes) return 0;
  } else if (h.start < h.base || h.stop < h.start || h.stop > h.size) {
    return 0;
  }
  out->base = h.base;
  out->next = h.next;
  out->size = h.size;
  out->start = h.start;
  out->stop = h.stop;
  out->status = h.status;
  out->expect_value = h.expect_value;
  out->after_comma = h.after_comma;
  out->last_src = h.last_src;
  out->newlines = h.newlines;
  out->last_nl = h.last_nl;
  out->records = h.records;
  out->body_bytes = h.body_bytes;
  return 1;
}

const uint8_t *st_range_body(const uint8_t *blob) { return blob + sizeof(header); }

void st_range_parts_begin(st_range_parts *it, const uint8_t *blob, size_t len) {
  it->origin = blob;
  it->p = len >= sizeof(header) ? blob + sizeof(header) : blob + len;
  it->end = blob + len;
}

int st_range_parts_next(st_range_parts *it, uint64_t *src) {
  st_chrome_reader rd = {it->p, it->end, it->origin, 0, 0, 0};
  st_chrome_rec r;
  int after_missing = 0;
  while (st_chrome_rec_next(&rd, &r) > 0) {
    it->p = rd.p;
    if (r.kind == CREC_WARN) {
      after_missing = r.which == CREC_W_MISSING_COMMA;
      continue;
    }
    if (!after_missing) {
      *src = r.src;
      return 1;
    }
    after_missing = 0;
  }
  it->p = it->end;
  return 0;
}
