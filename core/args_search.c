/* args_search.c: streaming search in events' args (see args_search.h).
 *
 * One byte-level state machine over the decoded JSON: strings (with an
 * escape decoder used only inside "args"), container depth with one
 * array/object bit per level, the open event candidate, its top-level keys
 * (to find "args") and the extent of its args value. Needle matching is
 * Knuth-Morris-Pratt over ASCII-folded bytes, so a needle may span any
 * chunk boundary; the automaton restarts at each token. Bytes of strings
 * that are not fed to the matcher are skipped by a tight loop that stops
 * only at '"' and '\\'.
 */
#include "args_search.h"

#include "source.h"

#include <string.h>

enum { ARGS_NONE = 0, ARGS_PENDING, ARGS_CONTAINER, ARGS_STRING, ARGS_LITERAL };

struct st_args_search {
  st_alloc alloc;
  st_source *source;
  st_code status;
  st_error err;
  uint64_t pos; /* decoded offset of the next byte */
  /* needle */
  unsigned char *nd; /* lower-cased */
  uint32_t *fail;
  size_t m, k;
  /* structure */
  uint32_t depth;
  uint8_t is_arr[ST_ARGS_SEARCH_MAX_DEPTH + 1];
  int in_str, esc; /* esc: 0 none, 1 after '\', 2..5 reading \u hex digits */
  uint32_t hexv, hi_sur;
  /* the open event candidate */
  uint32_t ev_depth; /* 0: none */
  uint64_t ev_src;
  int ev_hit;
  int expect_key, in_key;
  unsigned char key[5];
  uint32_t keylen; /* 5: not "args" */
  int last_key_args;
  int args; /* ARGS_* */
  uint32_t args_depth;
  /* results */
  uint64_t *hits;
  size_t nhits, caphits;
};

static unsigned char lower_ascii(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static void feed(st_args_search *s, unsigned char c) {
  if (s->ev_hit) return;
  c = lower_ascii(c);
  size_t k = s->k;
  while (k && s->nd[k] != c) k = s->fail[k - 1];
  if (s->nd[k] == c) k++;
  if (k == s->m) {
    s->ev_hit = 1;
    k = 0;
  }
  s->k = k;
}

static void feed_cp(st_args_search *s, uint32_t cp) {
  if (cp < 0x80) {
    feed(s, (unsigned char)cp);
  } else if (cp < 0x800) {
    feed(s, (unsigned char)(0xC0 | cp >> 6));
    feed(s, (unsigned char)(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    feed(s, (unsigned char)(0xE0 | cp >> 12));
    feed(s, (unsigned char)(0x80 | (cp >> 6 & 0x3F)));
    feed(s, (unsigned char)(0x80 | (cp & 0x3F)));
  } else {
    feed(s, (unsigned char)(0xF0 | cp >> 18));
    feed(s, (unsigned char)(0x80 | (cp >> 12 & 0x3F)));
    feed(s, (unsigned char)(0x80 | (cp >> 6 & 0x3F)));
    feed(s, (unsigned char)(0x80 | (cp & 0x3F)));
  }
}

/* A pending high surrogate not followed by a low one. */
static void flush_hi(st_args_search *s) {
  if (s->hi_sur) {
    s->hi_sur = 0;
    feed_cp(s, 0xFFFD);
  }
}

static void add_hit(st_args_search *s) {
  if (s->nhits == s->caphits) {
    size_t c = s->caphits ? s->caphits * 2 : 64;
    uint64_t *p = st_realloc_array(&s->alloc, s->hits, c, sizeof *p);
    if (!p) {
      s->status = st_error_set(&s->err, ST_ERR_NOMEM, s->ev_src, "out of memory");
      return;
    }
    s->hits = p;
    s->caphits = c;
  }
  s->hits[s->nhits++] = s->ev_src;
}

static int in_args(const st_args_search *s) {
  return s->args >= ARGS_CONTAINER;
}

/* A string content byte (decoded). */
static void str_byte(st_args_search *s, unsigned char c) {
  if (s->in_key) {
    if (s->keylen < 4 && "args"[s->keylen] == c)
      s->keylen++;
    else
      s->keylen = 5;
  }
  if (in_args(s)) feed(s, c);
}

static void end_string(st_args_search *s) {
  s->in_str = 0;
  if (in_args(s)) {
    flush_hi(s);
    s->k = 0;
    if (s->args == ARGS_STRING) s->args = ARGS_NONE;
  }
  if (s->in_key) {
    s->in_key = 0;
    s->last_key_args = s->keylen == 4;
  }
}

static int hexval(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = lower_ascii(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* One byte inside a string after a backslash. Returns 1 if c was consumed. */
static int escape_byte(st_args_search *s, unsigned char c) {
  if (!in_args(s) && !s->in_key) { /* only skip: \uXXXX holds no '"' or '\' */
    s->esc = 0;
    return 1;
  }
  if (s->esc == 1) {
    s->esc = 0;
    unsigned char d;
    switch (c) {
    case 'b': d = '\b'; break;
    case 'f': d = '\f'; break;
    case 'n': d = '\n'; break;
    case 'r': d = '\r'; break;
    case 't': d = '\t'; break;
    case 'u': s->esc = 2; s->hexv = 0; return 1;
    default: d = c; break; /* \" \\ \/ (and anything else as written) */
    }
    if (s->in_key) s->keylen = 5; /* an escaped key is never taken for "args" */
    if (in_args(s)) flush_hi(s);
    str_byte(s, d);
    return 1;
  }
  int h = hexval(c);
  if (h < 0) { /* malformed \u: U+FFFD, then c as a plain byte */
    s->esc = 0;
    if (in_args(s)) {
      flush_hi(s);
      feed_cp(s, 0xFFFD);
    }
    return 0;
  }
  s->hexv = s->hexv << 4 | (uint32_t)h;
  if (++s->esc < 6) return 1;
  s->esc = 0;
  if (s->in_key) s->keylen = 5;
  if (!in_args(s)) return 1;
  uint32_t cp = s->hexv;
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    flush_hi(s);
    s->hi_sur = cp;
    return 1;
  }
  if (cp >= 0xDC00 && cp <= 0xDFFF) {
    if (s->hi_sur) {
      cp = 0x10000 + ((s->hi_sur - 0xD800) << 10) + (cp - 0xDC00);
      s->hi_sur = 0;
    } else {
      cp = 0xFFFD;
    }
  } else {
    flush_hi(s);
  }
  feed_cp(s, cp);
  return 1;
}

/* A structural byte, or a literal's, outside strings. */
static void outside_byte(st_args_search *s, unsigned char c, uint64_t pos) {
  switch (c) {
  case '"':
    s->in_str = 1;
    s->esc = 0;
    s->hi_sur = 0;
    if (s->ev_depth && s->depth == s->ev_depth) {
      if (s->args == ARGS_PENDING) {
        s->args = ARGS_STRING;
      } else if (s->expect_key) {
        s->in_key = 1;
        s->keylen = 0;
      }
    }
    if (in_args(s)) s->k = 0;
    return;
  case '{':
  case '[':
    if (s->args == ARGS_PENDING && s->depth == s->ev_depth) {
      s->args = ARGS_CONTAINER;
      s->args_depth = s->depth + 1;
    }
    if (in_args(s)) s->k = 0;
    if (s->depth == UINT32_MAX) return;
    s->depth++;
    if (s->depth <= ST_ARGS_SEARCH_MAX_DEPTH) s->is_arr[s->depth] = c == '[';
    if (c == '{' && !s->ev_depth && s->depth >= 2 && s->depth - 1 <= ST_ARGS_SEARCH_MAX_DEPTH &&
        s->is_arr[s->depth - 1]) {
      s->ev_depth = s->depth;
      s->ev_src = pos;
      s->ev_hit = 0;
      s->expect_key = 1;
      s->in_key = 0;
      s->last_key_args = 0;
      s->args = ARGS_NONE;
      s->k = 0;
    }
    return;
  case '}':
  case ']':
    if (s->ev_depth && s->depth == s->ev_depth) { /* the event closes */
      if (s->ev_hit) add_hit(s);
      s->ev_depth = 0;
      s->args = ARGS_NONE;
    } else if (s->args == ARGS_CONTAINER && s->depth == s->args_depth) {
      s->args = ARGS_NONE;
    }
    s->k = 0;
    if (s->depth) s->depth--;
    return;
  case ',':
    if (s->ev_depth && s->depth == s->ev_depth) {
      s->expect_key = 1;
      s->last_key_args = 0;
      if (s->args != ARGS_CONTAINER) s->args = ARGS_NONE;
    }
    s->k = 0;
    return;
  case ':':
    if (s->ev_depth && s->depth == s->ev_depth) {
      s->expect_key = 0;
      if (s->last_key_args) s->args = ARGS_PENDING;
      s->last_key_args = 0;
    }
    s->k = 0;
    return;
  case ' ':
  case '\t':
  case '\n':
  case '\r':
    s->k = 0;
    return;
  default:
    if (s->args == ARGS_PENDING && s->depth == s->ev_depth) {
      s->args = ARGS_LITERAL;
      s->k = 0;
    }
    if (in_args(s)) feed(s, c);
    return;
  }
}

static st_code sink(void *ud, const uint8_t *data, size_t len) {
  st_args_search *s = ud;
  const uint8_t *p = data, *end = data + len;
  const unsigned char c0 = s->nd[0];
  const unsigned char c1 = c0 >= 'a' && c0 <= 'z' ? (unsigned char)(c0 - 32) : c0;
  while (p < end) {
    if (s->in_str && !s->esc) {
      if (!s->in_key && (!in_args(s) || s->ev_hit)) { /* skip the string */
        while (p < end && *p != '"' && *p != '\\') p++;
        if (p == end) break;
      } else if (!s->in_key && s->k == 0 && !s->hi_sur) { /* skip to the needle's first byte */
        while (p < end && *p != '"' && *p != '\\' && *p != c0 && *p != c1) p++;
        if (p == end) break;
      }
      unsigned char c = *p;
      if (c == '"') {
        end_string(s);
      } else if (c == '\\') {
        s->esc = 1;
      } else {
        if (s->hi_sur) flush_hi(s);
        str_byte(s, c);
      }
      p++;
    } else if (s->in_str) {
      if (escape_byte(s, *p)) p++;
    } else {
      outside_byte(s, *p, s->pos + (uint64_t)(p - data));
      p++;
    }
    if (s->status != ST_OK) break;
  }
  s->pos += len;
  return s->status;
}

st_args_search *st_args_search_create(const st_alloc *a, st_args_kind kind, const char *needle,
                                      size_t len, st_error *err) {
  if (kind != ST_ARGS_JSON) {
    st_error_set(err, ST_ERR_FORMAT, 0, "args search is not available for %s traces",
                 kind == ST_ARGS_NONE ? "these" : st_argsrc_kind_name(kind));
    return NULL;
  }
  if (!needle || !len || len > ST_ARGS_SEARCH_MAX_NEEDLE) {
    st_error_set(err, ST_ERR_ARG, 0, "the search text must be 1 to %u bytes",
                 ST_ARGS_SEARCH_MAX_NEEDLE);
    return NULL;
  }
  st_alloc al = a ? *a : (st_alloc){0};
  st_args_search *s = st_calloc(&al, 1, sizeof *s);
  if (!s) {
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  s->alloc = al;
  s->nd = st_malloc(&al, len + 1);
  s->fail = st_calloc(&al, len, sizeof *s->fail);
  s->source = st_source_create(&al, sink, s);
  if (!s->nd || !s->fail || !s->source) {
    st_args_search_destroy(s);
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  for (size_t i = 0; i < len; i++) s->nd[i] = lower_ascii((unsigned char)needle[i]);
  s->nd[len] = 0; /* never equal to a fed byte position past m (k < m always) */
  s->m = len;
  /* KMP failure function */
  size_t k = 0;
  for (size_t i = 1; i < len; i++) {
    while (k && s->nd[i] != s->nd[k]) k = s->fail[k - 1];
    if (s->nd[i] == s->nd[k]) k++;
    s->fail[i] = (uint32_t)k;
  }
  return s;
}

void st_args_search_destroy(st_args_search *s) {
  if (!s) return;
  st_alloc a = s->alloc;
  st_source_destroy(s->source);
  st_free(&a, s->nd);
  st_free(&a, s->fail);
  st_free(&a, s->hits);
  st_free(&a, s);
}

static st_code report(st_args_search *s, st_code c, st_error *err) {
  if (c != ST_OK && s->status == ST_OK) s->status = c;
  if (s->status != ST_OK && err) {
    if (s->err.code != ST_OK)
      *err = s->err;
    else
      err->code = s->status;
  }
  return s->status;
}

st_code st_args_search_push(st_args_search *s, const void *data, size_t len, st_error *err) {
  if (!s) return st_error_set(err, ST_ERR_ARG, 0, "no search");
  if (s->status != ST_OK) return report(s, ST_OK, err);
  st_error e;
  memset(&e, 0, sizeof e);
  st_code c = st_source_push(s->source, data, len, &e);
  if (c != ST_OK && s->err.code == ST_OK) s->err = e;
  return report(s, c, err);
}

st_code st_args_search_finish(st_args_search *s, st_error *err) {
  if (!s) return st_error_set(err, ST_ERR_ARG, 0, "no search");
  if (s->status != ST_OK) return report(s, ST_OK, err);
  st_error e;
  memset(&e, 0, sizeof e);
  st_code c = st_source_finish(s->source, &e);
  if (c != ST_OK && s->err.code == ST_OK) s->err = e;
  return report(s, c, err);
}

const uint64_t *st_args_search_hits(const st_args_search *s, size_t *count) {
  if (count) *count = s ? s->nhits : 0;
  return s ? s->hits : NULL;
}

uint64_t st_args_search_decoded(const st_args_search *s) { return s ? s->pos : 0; }
