/* import_chrome.c: Chrome Trace Event JSON -> st_builder (see import_chrome.h).
 *
 * This file is the container: the input window, the state machine over the
 * top-level value (array form, or an object whose traceEvents list holds
 * the events and whose other keys are skipped or kept as metadata text;
 * its `samples` list and `stackFrames` object are read member by member
 * like events and handed to chrome_samples.c),
 * errors with line/column, and the public API. Each complete event object
 * is parsed by chrome_event.c and handed to chrome_semantics.c, which
 * turns it into builder calls.
 *
 * Contents
 *   1. state: window, container state machine
 *   2. small helpers: errors with line/column, warnings
 *   3. the container state machine (array/object form, top-level keys)
 *   4. public API
 */
#include "import_chrome.h"

#include "chrome_event.h"
#include "chrome_range.h"
#include "chrome_record.h"
#include "chrome_semantics.h"
#include "json_scan.h"
#include "scan_simd.h"

#include <stdio.h>
#include <string.h>

/* ==== 1. state =========================================================== */

typedef enum tstate {
  T_START,     /* before the first value: BOM/whitespace, then '{' or '[' */
  T_OBJ_KEY,   /* object form: expect a key or '}' */
  T_OBJ_COLON, /* after a key */
  T_OBJ_VALUE, /* dispatch the value of the current key */
  T_OBJ_SKIP,  /* the resumable skipper runs over a big value */
  T_OBJ_NEXT,  /* expect ',' or '}' */
  T_LIST,      /* inside the event list (or the top-level samples list) */
  T_FRAMES,    /* inside the top-level stackFrames object */
  T_DONE,      /* the top-level value ended; only whitespace may follow */
  T_FAILED
} tstate;

typedef enum topkey {
  K_OTHER,
  K_TRACE_EVENTS,
  K_SYSTEM_TRACE_EVENTS,
  K_STACK_FRAMES,
  K_SAMPLES
} topkey;

struct st_chrome_importer {
  st_alloc alloc;
  st_stats *stats;

  /* window: buf[0, len) holds decoded bytes from absolute offset base */
  char *buf;
  size_t len, cap, pos;
  uint64_t base;
  uint64_t need_abs; /* do not re-parse before the input reaches this offset */

  /* line/column: lines counted up to lc_pos (absolute) */
  uint64_t lc_pos, lc_line_start;
  uint32_t lc_line;

  tstate state;
  int form; /* 0 unknown, 1 array, 2 object */
  int saw_event_list, expect_value, after_comma, final;
  int list_samples; /* the list being read is the top-level samples, not traceEvents */
  topkey key;
  int capture;     /* the skipped value is copied into meta */
  int value_noted; /* the top-level value's warning is given (it may wait for more bytes) */
  int trailing_warned;
  uint64_t settle_end, settle_pending; /* st_chrome_settle's last run: input end, bytes left */
  st_json_skipper sk;

  /* metadata text */
  char *meta;
  size_t meta_len, meta_cap, meta_value_start, meta_key_start;
  int meta_overflow;

  st_chrome_sem sem; /* what the events do to the builder */

  uint64_t cur_src;
  uint64_t events_end; /* end of the last element read from traceEvents (st_chrome_events_end) */
  int nomem;
  st_code code;
  st_error error;
};

/* ==== 2. helpers ========================================================= */

static void count_lines(st_chrome_importer *im, uint64_t upto) {
  if (upto <= im->lc_pos) return;
  const char *p = im->buf + (im->lc_pos - im->base), *e = im->buf + (upto - im->base);
  const char *last = st_scan_last_byte(p, e, '\n');
  if (last) {
    im->lc_line += (uint32_t)st_scan_count(p, last + 1, '\n');
    im->lc_line_start = im->base + (uint64_t)(last - im->buf) + 1;
  }
  im->lc_pos = upto;
}

static st_code set_error(st_chrome_importer *im, st_code code, uint64_t at, const char *fmt,
                         const char *arg) {
  if (im->code != ST_OK) return im->code;
  char msg[160];
  snprintf(msg, sizeof msg, fmt, arg ? arg : "");
  st_error_set(&im->error, code, at, "%s", msg);
  if (at >= im->lc_pos && at <= im->base + im->len && im->lc_pos >= im->base) {
    count_lines(im, at);
    im->error.line = im->lc_line + 1;
    uint64_t col = at - im->lc_line_start + 1;
    im->error.column = col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
  } else if (at == 0) { /* the input's start, whatever was dropped since */
    im->error.line = 1;
    im->error.column = 1;
  }
  im->code = code;
  im->state = T_FAILED;
  return code;
}

static uint64_t abs_of(const st_chrome_importer *im, const char *p) {
  return im->base + (uint64_t)(p - im->buf);
}

static void warn(st_chrome_importer *im, const char *kind) {
  st_stats_warn(im->stats, kind, im->cur_src);
}

/* ==== 3. the container state machine ===================================== */

static int meta_append(st_chrome_importer *im, const char *p, size_t n) {
  size_t need;
  if (!st_add_size(im->meta_len, n, &need) || !st_add_size(need, 1, &need)) return 0;
  void *m = im->meta;
  if (!st_grow_from(&im->alloc, &m, &im->meta_cap, need, 1, 256)) return 0;
  im->meta = m;
  memcpy(im->meta + im->meta_len, p, n);
  im->meta_len += n;
  im->meta[im->meta_len] = 0;
  return 1;
}

/* Copies skipped value bytes into the metadata text, within the cap. */
static void capture(st_chrome_importer *im, const char *p, size_t n) {
  if (!im->capture || im->meta_overflow) return;
  if (im->meta_len - im->meta_value_start + n > ST_CHROME_META_VALUE_MAX) {
    static const char msg[] = "\"(not kept: larger than 65536 bytes)\"";
    im->meta_len = im->meta_value_start;
    im->meta_overflow = 1;
    if (!meta_append(im, msg, sizeof msg - 1)) im->nomem = 1;
    return;
  }
  if (!meta_append(im, p, n)) im->nomem = 1;
}

static topkey classify_key(st_json_str k) {
  if (st_chrome_str_eq(k, "traceEvents")) return K_TRACE_EVENTS;
  if (st_chrome_str_eq(k, "systemTraceEvents")) return K_SYSTEM_TRACE_EVENTS;
  if (st_chrome_str_eq(k, "stackFrames")) return K_STACK_FRAMES;
  if (st_chrome_str_eq(k, "samples")) return K_SAMPLES;
  return K_OTHER;
}

/* Waits for the window to grow well past the token that did not fit. */
static void wait_for(st_chrome_importer *im, const char *tok) {
  uint64_t start = abs_of(im, tok), pending = im->base + im->len - start;
  uint64_t grow_to = pending * 2 > pending + 4096 ? pending * 2 : pending + 4096;
  im->need_abs = start + grow_to;
  im->pos = (size_t)(tok - im->buf);
}

/* The event list (or, samples != 0, the top-level samples list): parse
 * every complete element in the window. */
static inline int run_list_of(st_chrome_importer *im, const char **pp, const char *end,
                              int samples) {
  const char *p = *pp;
  for (;;) {
    p = st_json_ws(p, end);
    if (p >= end) {
      *pp = p;
      return 0;
    }
    char c = *p;
    if (c == '{') {
      /* said once the element is read (or bad), not again for each time a
       * cut element is retried with more bytes */
      int missing_comma = !im->expect_value;
      st_chrome_ev e;
      const char *q, *bad = p, *why = "";
      st_json_status s = st_chrome_parse_event(p, end, &e, &q, &bad, &why);
      if (s != ST_JSON_INCOMPLETE && missing_comma) warn(im, "missing_comma");
      if (s == ST_JSON_INCOMPLETE) {
        if ((size_t)(end - p) > ST_CHROME_EVENT_MAX) {
          set_error(im, ST_ERR_LIMIT, abs_of(im, p), "an event is larger than %s bytes",
                    "536870912");
          return -1;
        }
        *pp = p;
        return 1;
      }
      if (s == ST_JSON_BAD) {
        set_error(im, ST_ERR_JSON, abs_of(im, bad), "JSON syntax error: %s", why);
        return -1;
      }
      im->cur_src = abs_of(im, p);
      if (!(samples ? st_chrome_sem_sample(&im->sem, &e, im->cur_src)
                    : st_chrome_sem_event(&im->sem, &e, im->cur_src))) {
        set_error(im, ST_ERR_NOMEM, im->cur_src, "out of memory%s", "");
        return -1;
      }
      if (!samples) im->events_end = abs_of(im, q);
      im->expect_value = 0;
      im->after_comma = 0;
      p = q;
    } else if (c == ',') {
      if (im->expect_value) {
        set_error(im, ST_ERR_JSON, abs_of(im, p), "JSON syntax error: unexpected ','%s", "");
        return -1;
      }
      im->expect_value = 1;
      im->after_comma = 1;
      p++;
    } else if (c == ']') {
      if (im->after_comma) warn(im, "trailing_comma");
      p++;
      *pp = p;
      im->state = im->form == 1 ? T_DONE : T_OBJ_NEXT;
      im->list_samples = 0;
      return 2;
    } else {
      const char *q;
      st_json_status s = st_json_skip_value(p, end, &q);
      if (s == ST_JSON_INCOMPLETE) {
        *pp = p;
        return 1;
      }
      if (s == ST_JSON_BAD) {
        set_error(im, ST_ERR_JSON, abs_of(im, q),
                  "JSON syntax error: unexpected character in the event list%s", "");
        return -1;
      }
      im->cur_src = abs_of(im, p);
      warn(im, "non_object_event");
      im->expect_value = 0;
      im->after_comma = 0;
      p = q;
    }
  }
}

/* Two copies of the loop, so the event list's has no samples branch. */
static int run_list(st_chrome_importer *im, const char **pp, const char *end) {
  return im->list_samples ? run_list_of(im, pp, end, 1) : run_list_of(im, pp, end, 0);
}

/* The stackFrames object: hand every complete member in the window to the
 * samples semantics. Returns like run_list (2: the object ended). */
static int run_frames(st_chrome_importer *im, const char **pp, const char *end) {
  const char *p = *pp;
  for (;;) {
    p = st_json_ws(p, end);
    *pp = p;
    if (p >= end) return 0;
    if (*p == '}' && !(im->expect_value && im->after_comma)) {
      *pp = p + 1;
      im->state = T_OBJ_NEXT;
      return 2;
    }
    if (*p == ',' && !im->expect_value) {
      im->expect_value = 1;
      im->after_comma = 1;
      p++;
      continue;
    }
    if (*p != '"' || !im->expect_value) {
      set_error(im, ST_ERR_JSON, abs_of(im, p), "JSON syntax error: %s in stackFrames",
                im->expect_value ? "expected a key" : "expected ',' or '}'");
      return -1;
    }
    const char *q, *v, *ve;
    int esc;
    if (st_json_string(p + 1, end, &q, &esc) != ST_JSON_OK) return 1;
    st_json_str key = {p + 1, (size_t)(q - p - 1), esc};
    v = st_json_ws(q + 1, end);
    if (v >= end) return 1;
    if (*v != ':') {
      set_error(im, ST_ERR_JSON, abs_of(im, v), "JSON syntax error: expected ':' in stackFrames%s",
                "");
      return -1;
    }
    v = st_json_ws(v + 1, end);
    if (v >= end) return 1;
    st_json_status s = st_json_skip_value(v, end, &ve);
    if (s == ST_JSON_INCOMPLETE) {
      if ((size_t)(end - p) > ST_CHROME_EVENT_MAX) {
        set_error(im, ST_ERR_LIMIT, abs_of(im, p), "a stack frame is larger than %s bytes",
                  "536870912");
        return -1;
      }
      return 1;
    }
    if (s == ST_JSON_BAD) {
      set_error(im, ST_ERR_JSON, abs_of(im, ve),
                "JSON syntax error: invalid value in stackFrames%s", "");
      return -1;
    }
    im->cur_src = abs_of(im, p);
    if (!st_chrome_sem_stack_frame(&im->sem, key, v, ve, im->cur_src)) {
      set_error(im, ST_ERR_NOMEM, im->cur_src, "out of memory%s", "");
      return -1;
    }
    im->expect_value = 0;
    im->after_comma = 0;
    p = ve;
  }
}

/* Runs the state machine over the window. Returns ST_OK (maybe waiting for
 * more input) or the error. */
static st_code run(st_chrome_importer *im) {
  const char *p = im->buf + im->pos, *end = im->buf + im->len;
  for (;;) {
    if (im->state == T_FAILED) return im->code;
    if (im->state != T_OBJ_SKIP) p = st_json_ws(p, end);
    if (p >= end && im->state != T_OBJ_SKIP) break;
    switch (im->state) {
    case T_START:
      if (im->base == 0 && p == im->buf && end - p >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) {
        p += 3; /* UTF-8 byte order mark; whitespace may follow */
        break;
      }
      if (*p == '\xEF' && im->base == 0 && p == im->buf && end - p < 3 && !im->final) {
        im->pos = (size_t)(p - im->buf);
        return ST_OK; /* maybe a BOM: wait */
      }
      if (*p == '[') {
        im->form = 1;
        im->saw_event_list = 1;
        im->state = T_LIST;
        im->expect_value = 1;
      } else if (*p == '{') {
        im->form = 2;
        im->state = T_OBJ_KEY;
      } else {
        char found[48];
        snprintf(found, sizeof found, "0x%02X", (unsigned char)*p);
        return set_error(im, ST_ERR_FORMAT, abs_of(im, p),
                         "not a trace: expected '{' or '[' (found %s)", found);
      }
      p++;
      break;
    case T_OBJ_KEY: {
      if (*p == '}') {
        im->state = T_DONE;
        p++;
        break;
      }
      if (*p != '"')
        return set_error(im, ST_ERR_JSON, abs_of(im, p),
                         "JSON syntax error: expected a key in the top-level object%s", "");
      const char *q;
      int esc;
      if (st_json_string(p + 1, end, &q, &esc) != ST_JSON_OK) {
        wait_for(im, p);
        return ST_OK;
      }
      st_json_str k = {p + 1, (size_t)(q - p - 1), esc};
      im->key = classify_key(k);
      im->capture = 0;
      if (im->key == K_OTHER && !im->nomem) {
        im->meta_overflow = 0;
        im->meta_key_start = im->meta_len;
        if (!meta_append(im, im->meta_len > 1 ? "," : "", im->meta_len > 1 ? 1 : 0) ||
            !meta_append(im, p, (size_t)(q + 1 - p)) || !meta_append(im, ":", 1)) {
          return set_error(im, ST_ERR_NOMEM, abs_of(im, p), "out of memory%s", "");
        }
        im->meta_value_start = im->meta_len;
        im->capture = 1;
      }
      im->state = T_OBJ_COLON;
      p = q + 1;
      break;
    }
    case T_OBJ_COLON:
      if (*p != ':')
        return set_error(im, ST_ERR_JSON, abs_of(im, p),
                         "JSON syntax error: expected ':' in the top-level object%s", "");
      p++;
      im->value_noted = 0;
      im->state = T_OBJ_VALUE;
      break;
    case T_OBJ_VALUE: {
      im->cur_src = abs_of(im, p);
      if (im->key == K_TRACE_EVENTS && *p == '[') {
        im->saw_event_list = 1;
        im->expect_value = 1;
        im->after_comma = 0;
        im->state = T_LIST;
        p++;
        break;
      }
      if (im->key == K_SAMPLES && *p == '[') { /* read like the event list */
        im->list_samples = 1;
        im->expect_value = 1;
        im->after_comma = 0;
        im->state = T_LIST;
        p++;
        break;
      }
      if (im->key == K_STACK_FRAMES && *p == '{') {
        im->expect_value = 1;
        im->after_comma = 0;
        im->state = T_FRAMES;
        p++;
        break;
      }
      if (!im->value_noted) { /* once: a value cut by a chunk comes back here with more bytes */
        im->value_noted = 1;
        if (im->key == K_TRACE_EVENTS)
          warn(im, "trace_events_not_a_list");
        else if (im->key == K_SYSTEM_TRACE_EVENTS)
          warn(im, "system_trace_events_ignored");
        else if (im->key == K_STACK_FRAMES)
          warn(im, "stack_frames_not_an_object");
        else if (im->key == K_SAMPLES)
          warn(im, "samples_not_a_list");
      }
      if (*p == '"' || *p == '[' || *p == '{') {
        im->sk = (st_json_skipper){0};
        im->state = T_OBJ_SKIP;
        break;
      }
      const char *q;
      st_json_status s = st_json_skip_value(p, end, &q);
      if (s == ST_JSON_INCOMPLETE && !im->final) {
        wait_for(im, p);
        return ST_OK;
      }
      if (s == ST_JSON_INCOMPLETE) q = st_json_number_end(p, end); /* a number at the very end */
      if (s == ST_JSON_BAD || q == p)
        return set_error(im, ST_ERR_JSON, abs_of(im, s == ST_JSON_BAD ? q : p),
                         "JSON syntax error: invalid value in the top-level object%s", "");
      capture(im, p, (size_t)(q - p));
      p = q;
      im->state = T_OBJ_NEXT;
      break;
    }
    case T_OBJ_SKIP: {
      const char *q;
      st_json_status s = st_json_skipper_run(&im->sk, p, end, &q);
      if (s == ST_JSON_BAD)
        return set_error(im, ST_ERR_JSON, abs_of(im, q),
                         "JSON syntax error: unbalanced brackets in the top-level object%s", "");
      capture(im, p, (size_t)(q - p));
      p = q;
      if (s == ST_JSON_INCOMPLETE) {
        im->pos = (size_t)(p - im->buf);
        im->need_abs = 0;
        if (im->nomem) return set_error(im, ST_ERR_NOMEM, abs_of(im, p), "out of memory%s", "");
        return ST_OK;
      }
      im->state = T_OBJ_NEXT;
      break;
    }
    case T_OBJ_NEXT:
      if (im->nomem) return set_error(im, ST_ERR_NOMEM, abs_of(im, p), "out of memory%s", "");
      if (*p == ',')
        im->state = T_OBJ_KEY;
      else if (*p == '}')
        im->state = T_DONE;
      else
        return set_error(im, ST_ERR_JSON, abs_of(im, p),
                         "JSON syntax error: expected ',' or '}' in the top-level object%s", "");
      p++;
      break;
    case T_LIST: {
      int r = run_list(im, &p, end);
      if (r < 0) return im->code;
      if (r == 1) {
        if (!im->final)
          wait_for(im, p);
        else
          im->pos = (size_t)(p - im->buf);
        return ST_OK;
      }
      break;
    }
    case T_FRAMES: {
      int r = run_frames(im, &p, end);
      if (r < 0) return im->code;
      if (r == 1) {
        if (!im->final)
          wait_for(im, p);
        else
          im->pos = (size_t)(p - im->buf);
        return ST_OK;
      }
      if (r == 0) {
        im->pos = (size_t)(p - im->buf);
        im->need_abs = 0;
        return ST_OK;
      }
      break;
    }
    case T_DONE:
      if (!im->trailing_warned) { /* once per input, however it arrives */
        im->cur_src = abs_of(im, p);
        warn(im, "trailing_data");
        im->trailing_warned = 1;
      }
      p = end; /* ignore the rest */
      break;
    case T_FAILED: return im->code;
    }
  }
  im->pos = (size_t)(p - im->buf);
  im->need_abs = 0;
  return ST_OK;
}

/* ==== 4. public API ====================================================== */

st_chrome_importer *st_chrome_create(const st_alloc *a, st_builder *b, st_stats *stats) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (!b || !stats) return NULL;
  st_chrome_importer *im = st_calloc(&al, 1, sizeof *im);
  if (!im) return NULL;
  im->alloc = al;
  im->stats = stats;
  st_chrome_sem_init(&im->sem, &al, b, stats);
  if (!meta_append(im, "{", 1)) {
    st_chrome_destroy(im);
    return NULL;
  }
  return im;
}

void st_chrome_destroy(st_chrome_importer *im) {
  if (!im) return;
  st_chrome_sem_free(&im->sem);
  st_free(&im->alloc, im->meta);
  st_free(&im->alloc, im->buf);
  st_alloc a = im->alloc;
  st_free(&a, im);
}

st_code st_chrome_push(st_chrome_importer *im, const uint8_t *data, size_t len, st_error *err) {
  if (!im) return ST_ERR_ARG;
  if (im->code != ST_OK) {
    if (err) *err = im->error;
    return im->code;
  }
  if (len == 0) return ST_OK;
  if (im->state == T_DONE) { /* only whitespace may follow: do not keep it */
    size_t i = 0;
    while (i < len && st_json_is_ws(data[i])) i++;
    if (i < len && !im->trailing_warned) {
      im->cur_src = im->base + im->len + i;
      warn(im, "trailing_data");
      im->trailing_warned = 1;
    }
    im->base += len;
    return ST_OK;
  }
  if (im->state == T_OBJ_SKIP && im->pos == im->len) {
    /* the skipper keeps no bytes: run it straight over the chunk */
    count_lines(im, im->base + im->len);
    im->base += im->len;
    im->len = im->pos = 0;
  }
  if (len > im->cap - im->len) {
    /* make room: drop consumed bytes, then grow */
    count_lines(im, im->base + im->pos);
    if (im->pos) memmove(im->buf, im->buf + im->pos, im->len - im->pos);
    im->len -= im->pos;
    im->base += im->pos;
    im->pos = 0;
    if (len > im->cap - im->len) {
      size_t need;
      if (!st_add_size(im->len, len, &need)) {
        set_error(im, ST_ERR_NOMEM, im->base, "input chunk too large%s", "");
        if (err) *err = im->error;
        return im->code;
      }
      void *v = im->buf;
      int ok = st_grow_from(&im->alloc, &v, &im->cap, need, 1, 64u * 1024u);
      im->buf = v;
      if (!ok) {
        set_error(im, ST_ERR_NOMEM, im->base, "out of memory (window of %s bytes)", "many");
        if (err) *err = im->error;
        return im->code;
      }
    }
  }
  memcpy(im->buf + im->len, data, len);
  im->len += len;
  if (im->base + im->len < im->need_abs) return ST_OK;
  st_code c = run(im);
  if (c != ST_OK && err) *err = im->error;
  return c;
}

st_code st_chrome_finish(st_chrome_importer *im, st_error *err) {
  if (!im) return ST_ERR_ARG;
  if (!im->buf) { /* no bytes at all: give the window a body so offsets are defined */
    im->buf = st_malloc(&im->alloc, 16);
    im->cap = im->buf ? 16 : 0;
    if (!im->buf) set_error(im, ST_ERR_NOMEM, 0, "out of memory%s", "");
  }
  if (im->code == ST_OK) {
    im->final = 1;
    im->need_abs = 0;
    run(im);
  }
  if (im->code == ST_OK) {
    const char *p = st_json_ws(im->buf + im->pos, im->buf + im->len);
    uint64_t at = abs_of(im, p);
    switch (im->state) {
    case T_START:
      set_error(im, im->base + im->len == 0 ? ST_ERR_EMPTY : ST_ERR_FORMAT, at,
                im->base + im->len == 0 ? "empty input%s" : "not a trace: no JSON value%s", "");
      break;
    case T_LIST:
      im->cur_src = at;
      warn(im, "truncated");
      if (im->form == 2)
        set_error(im, ST_ERR_TRUNCATED, at,
                  im->list_samples ? "truncated: input ended inside the samples list%s"
                                   : "truncated: input ended inside the traceEvents list%s",
                  p < im->buf + im->len ? " (in the middle of an event)" : "");
      break;
    case T_DONE: break;
    default:
      if (im->capture) im->meta_len = im->meta_key_start; /* drop the cut value */
      im->cur_src = at;
      warn(im, "truncated");
      set_error(im, ST_ERR_TRUNCATED, at, "truncated: input ended inside the top-level object%s",
                "");
      break;
    }
  }
  if (im->code == ST_OK && im->form == 2 && !im->saw_event_list)
    set_error(im, ST_ERR_FORMAT, 0, "not a trace: the JSON object has no traceEvents list%s", "");
  /* what runs out of memory from here on does so at the end of the input */
  int closed = st_chrome_sem_close(&im->sem);
  if ((im->nomem || !closed) && im->code == ST_OK)
    set_error(im, ST_ERR_NOMEM, im->base + im->len, "out of memory%s", " at the end of the input");
  if (!meta_append(im, "}", 1) && im->code == ST_OK)
    set_error(im, ST_ERR_NOMEM, im->base + im->len, "out of memory%s", " at the end of the input");
  if (err) *err = im->error;
  return im->code;
}

uint64_t st_chrome_events_end(const st_chrome_importer *im) { return im ? im->events_end : 0; }

int st_chrome_has_trace(const st_chrome_importer *im) {
  if (!im || !im->saw_event_list) return 0;
  if (im->code == ST_ERR_NOMEM || im->code == ST_ERR_FORMAT || im->code == ST_ERR_EMPTY) return 0;
  if (im->code != ST_OK && im->stats->events == 0) return 0;
  return 1;
}

void st_chrome_release(st_chrome_importer *im) {
  if (!im) return;
  st_chrome_sem_free(&im->sem);
  memset(&im->sem, 0, sizeof im->sem);
  st_free(&im->alloc, im->buf);
  im->buf = NULL;
  im->len = im->pos = im->cap = 0;
}

const char *st_chrome_metadata_json(const st_chrome_importer *im) {
  if (!im || !im->meta || im->meta_len == 0 || im->meta[im->meta_len - 1] != '}') return "{}";
  return im->meta;
}

/* ==== 5. replaying a task of a split import (chrome_range.h) ============== */

st_code st_chrome_settle(st_chrome_importer *im, int force, st_error *err) {
  if (!im) return ST_ERR_ARG;
  /* The wait (need_abs) keeps a huge cut element from being parsed again
   * for every few bytes that arrive. Settling may cut it short, but not so
   * as to undo that: a short pending tail is parsed now; a long one only
   * once the window grew by half of it since the last settle (geometric, so
   * the re-parsing stays linear however small the pushes between). force:
   * everything pending now (once, e.g. before an error of the source). */
  uint64_t end = im->base + im->len, pending = im->len - im->pos;
  if (im->code == ST_OK && im->state != T_FAILED && im->need_abs > end &&
      (force || pending <= 256 || end >= im->settle_end + im->settle_pending / 2)) {
    im->need_abs = 0;
    run(im);
    im->settle_end = end;
    im->settle_pending = im->len - im->pos;
  }
  if (im->code != ST_OK && err) *err = im->error;
  return im->code;
}

int st_chrome_replay_point(const st_chrome_importer *im, uint64_t *at) {
  if (!im || im->code != ST_OK || im->final || im->state != T_LIST || im->list_samples ||
      !im->expect_value || !im->after_comma || im->pos != im->len)
    return 0;
  if (at) *at = im->base + im->len;
  return 1;
}

st_code st_chrome_replay_from(st_chrome_importer *im, const uint8_t *result, size_t len,
                              uint64_t from, const uint8_t *bytes, size_t blen, uint64_t base,
                              st_error *err) {
  st_range_info ri;
  uint64_t at = 0;
  if (!im) return ST_ERR_ARG;
  int ok = st_range_info_read(result, len, &ri) && ri.status != ST_RANGE_NO_START &&
           st_chrome_replay_point(im, &at) && at == from && from >= ri.start && from <= ri.stop;
  /* a part: its lines are counted in the task's bytes */
  if (ok && from != ri.start) ok = bytes && from >= base && ri.stop - base <= blen;
  if (!ok) {
    if (err) st_error_set(err, ST_ERR_ARG, at, "a task result that does not start here");
    return ST_ERR_ARG;
  }
  count_lines(im, at); /* the window is consumed: lines up to here are counted */
  uint64_t newlines = ri.newlines, last_nl = ri.last_nl;
  if (from != ri.start) {
    const char *p = (const char *)bytes + (from - base),
               *e = (const char *)bytes + (ri.stop - base);
    newlines = st_scan_count(p, e, '\n');
    const char *lnl = newlines ? st_scan_last_byte(p, e, '\n') : NULL;
    last_nl = lnl ? base + (uint64_t)(lnl - (const char *)bytes) : UINT64_MAX;
  }
  st_chrome_reader rd = {
      st_range_body(result), st_range_body(result) + ri.body_bytes, result, 0, 0, 0};
  st_chrome_sem_memo(&im->sem, 1);
  st_chrome_rec r;
  int k;
  uint64_t last_src = UINT64_MAX;
  while ((k = st_chrome_rec_next(&rd, &r)) > 0) {
    if (r.src < from) continue; /* before the part (a warning about its first element, too) */
    if (r.kind == CREC_WARN) {
      if (r.which == CREC_W_NON_OBJECT) im->cur_src = last_src = r.src;
      st_stats_warn(im->stats, r.which == CREC_W_NON_OBJECT ? "non_object_event" : "missing_comma",
                    r.src);
      continue;
    }
    const st_chrome_ev *e = r.kind == CREC_X ? &r.xev : &r.ev;
    st_chrome_ev raw;
    if (r.kind == CREC_RAW) {
      const char *q, *bad, *why;
      if (st_chrome_parse_event(r.raw, r.raw_end, &raw, &q, &bad, &why) != ST_JSON_OK ||
          q != r.raw_end) {
        k = -1;
        break;
      }
      e = &raw;
    }
    im->cur_src = last_src = r.src;
    if (!st_chrome_sem_event(&im->sem, e, r.src)) {
      st_chrome_sem_memo(&im->sem, 0);
      set_error(im, ST_ERR_NOMEM, r.src, "out of memory%s", "");
      if (err) *err = im->error;
      return im->code;
    }
  }
  st_chrome_sem_memo(&im->sem, 0);
  if (k < 0) {
    set_error(im, ST_ERR_ARG, im->cur_src, "a worker's task result is malformed%s", "");
    if (err) *err = im->error;
    return im->code;
  }
  im->base = ri.stop;
  im->len = im->pos = 0;
  im->need_abs = 0;
  im->lc_line += (uint32_t)newlines;
  if (last_nl != UINT64_MAX) im->lc_line_start = last_nl + 1;
  im->lc_pos = ri.stop;
  im->expect_value = (int)ri.expect_value;
  im->after_comma = (int)ri.after_comma;
  if (last_src != UINT64_MAX) im->cur_src = last_src;
  return ST_OK;
}
