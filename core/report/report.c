/* report.c: the standalone HTML file (report.h has the layout).
 *
 * Every text here is written through one writer that either counts or
 * writes: each part (the body, app.js with its modules inlined, the escaped
 * scripts, the file itself) is made twice, once counting and once into an
 * allocation of exactly that size, so nothing grows by doubling (a file
 * holding a big trace is never copied through growing buffers). The
 * scripts are made before the file because the CSP names their hashes. */
#include "report.h"

#include "json_out.h"
#include "sha256.h"

#include <string.h>

#define MAX_DEPTH 8

/* ---- the writer: counts (p NULL) or writes ------------------------------------ */

typedef struct writer {
  uint8_t *p;
  size_t n;
  int overflow;
} writer;

static void w_count(writer *w, size_t n) {
  if (!st_add_size(w->n, n, &w->n)) w->overflow = 1;
}
static void w_add(writer *w, const void *d, size_t n) {
  if (w->overflow || n == 0) return;
  if (w->p) memcpy(w->p + w->n, d, n);
  w_count(w, n);
}
static void w_str(writer *w, const char *s) { w_add(w, s, strlen(s)); }

/* ---- inlining modules ------------------------------------------------------------- */

typedef struct inliner {
  const st_report_desc *d;
  st_error *err;
  char missing[ST_REPORT_NAME_MAX]; /* set when a module is not in d->modules */
} inliner;

static const st_report_module *find_module(const st_report_desc *d, const char *name) {
  for (size_t i = 0; i < d->module_count; i++)
    if (d->modules[i].name && strcmp(d->modules[i].name, name) == 0) return &d->modules[i];
  return NULL;
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }
static int is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

/* Is [s, s+len) (a line, trailing blanks and \r removed) an import line
 * `import { LIST } from './NAME.js';`? Sets the list [*l0, *l1) and the name. */
static int import_line(const char *s, size_t len, const char **l0, const char **l1,
                       char name[ST_REPORT_NAME_MAX]) {
  static const char head[] = "import {", from[] = "} from './", tail[] = ".js';";
  if (len < sizeof head - 1 + sizeof from - 1 + sizeof tail - 1 + 1) return 0;
  if (memcmp(s, head, sizeof head - 1) != 0) return 0;
  if (memcmp(s + len - (sizeof tail - 1), tail, sizeof tail - 1) != 0) return 0;
  const char *close = memchr(s, '}', len);
  if (!close || (size_t)(s + len - close) < sizeof from - 1 + sizeof tail - 1 + 1) return 0;
  if (memcmp(close, from, sizeof from - 1) != 0) return 0;
  const char *n0 = close + sizeof from - 1, *n1 = s + len - 2; /* NAME.js */
  if ((size_t)(n1 - n0) >= ST_REPORT_NAME_MAX || n1 - n0 <= 3) return 0;
  for (const char *c = n0; c < n1; c++)
    if (!is_name_char(*c)) return 0;
  memcpy(name, n0, (size_t)(n1 - n0));
  name[n1 - n0] = 0;
  *l0 = s + sizeof head - 1;
  *l1 = close;
  return 1;
}

/* The import list "a, b as c" written as the local names ("a, b: c") or as
 * the exported ones ("a, b"). */
static void import_specs(writer *w, const char *p, const char *end, int local) {
  int first = 1;
  while (p < end) {
    const char *q = memchr(p, ',', (size_t)(end - p));
    if (!q) q = end;
    const char *a = p, *e = q;
    while (a < e && is_blank(*a)) a++;
    while (e > a && is_blank(e[-1])) e--;
    if (e > a) {
      const char *as = NULL; /* the last " as " */
      for (const char *t = a; t + 4 <= e; t++)
        if (is_blank(t[0]) && t[1] == 'a' && t[2] == 's' && is_blank(t[3])) as = t;
      const char *a1 = as ? as : e, *b0 = as ? as + 4 : e;
      while (a1 > a && is_blank(a1[-1])) a1--;
      while (b0 < e && is_blank(*b0)) b0++;
      if (!first) w_str(w, ", ");
      first = 0;
      w_add(w, a, (size_t)(a1 - a));
      if (local && as) {
        w_str(w, ": ");
        w_add(w, b0, (size_t)(e - b0));
      }
    }
    p = q + 1;
  }
}

/* Writes module `name` with its imports inlined. A module at depth k (app.js
 * 0) is inlined k levels deep, and each level drops "export " at line starts
 * (the rule's "export " dropped, applied per level): its lines lose up to k
 * such prefixes. The wrapper lines written here never start so. */
static st_code inline_module(inliner *in, const char *name, int depth, writer *w) {
  if (depth > MAX_DEPTH)
    return st_error_set(in->err, ST_ERR_LIMIT, 0, "modules import each other too deeply (%s)",
                        name);
  const st_report_module *m = find_module(in->d, name);
  if (!m) {
    size_t n = strlen(name);
    memcpy(in->missing, name, n + 1); /* names come from import_line: < ST_REPORT_NAME_MAX */
    return st_error_set(in->err, ST_ERR_ARG, 0, "the module %s is not given", name);
  }
  const char *s = m->text ? m->text : "", *end = s + (m->text ? m->len : 0);
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *le = nl ? nl : end; /* the line is [s, le) */
    size_t len = (size_t)(le - s);
    while (len > 0 && (is_blank(s[len - 1]) || s[len - 1] == '\r')) len--;
    const char *l0, *l1;
    char sub[ST_REPORT_NAME_MAX];
    if (!import_line(s, len, &l0, &l1, sub)) {
      for (int k = 0; k < depth && le - s >= 7 && memcmp(s, "export ", 7) == 0; k++) s += 7;
      w_add(w, s, nl ? (size_t)(nl + 1 - s) : (size_t)(le - s));
      s = nl ? nl + 1 : end;
      continue;
    }
    w_str(w, "const { ");
    import_specs(w, l0, l1, 1);
    w_str(w, " } = (() => {\n");
    st_code c = inline_module(in, sub, depth + 1, w);
    if (c != ST_OK) return c;
    w_str(w, "\nreturn { ");
    import_specs(w, l0, l1, 0);
    w_str(w, " };\n})();");
    s = le; /* the newline (if any) is the next line's: kept */
  }
  return ST_OK;
}

int st_report_missing_module(const st_report_desc *d, char *name, size_t cap) {
  if (!d) return 0;
  inliner in = {d, NULL, {0}};
  writer count = {NULL, 0, 0};
  if (inline_module(&in, "app.js", 0, &count) == ST_OK || !in.missing[0]) return 0;
  if (name && cap) {
    size_t n = strlen(in.missing);
    if (n >= cap) n = cap - 1;
    memcpy(name, in.missing, n);
    name[n] = 0;
  }
  return 1;
}

/* ---- text transforms ------------------------------------------------------------- */

static int lower_eq(const char *s, const char *lit, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != lit[i]) return 0;
  }
  return 1;
}

/* Script text that cannot end its element early: "</script" -> "<\/script",
 * "<!--" -> "<\!--". */
static void script_text(writer *w, const char *s, size_t n) {
  if (!s) return;
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '<') continue;
    if ((n - i >= 8 && s[i + 1] == '/' && lower_eq(s + i + 2, "script", 6)) ||
        (n - i >= 4 && memcmp(s + i, "<!--", 4) == 0)) {
      w_add(w, s + start, i + 1 - start);
      w_str(w, "\\");
      start = i + 1;
    }
  }
  w_add(w, s + start, n - start);
}

static const char *find(const char *s, const char *end, const char *lit) {
  size_t n = strlen(lit);
  for (; (size_t)(end - s) >= n; s++)
    if (memcmp(s, lit, n) == 0) return s;
  return NULL;
}
static const char *find_ci(const char *s, const char *end, const char *lit) {
  size_t n = strlen(lit);
  for (; (size_t)(end - s) >= n; s++)
    if (lower_eq(s, lit, n)) return s;
  return NULL;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

/* index.html's <body> content without its <script> elements (and the line
 * breaks after them), trimmed. Two passes over the pieces between scripts:
 * where the last non-space character is, then the writing. */
static st_code body_of(const char *html, size_t n, writer *w, st_error *err) {
  const char *end = html + n;
  const char *b = find(html, end, "<body");
  const char *e = b ? find(b, end, "</body>") : NULL;
  if (b) b = memchr(b, '>', (size_t)(end - b));
  if (!b || !e || b > e) return st_error_set(err, ST_ERR_FORMAT, 0, "index.html has no <body>");
  b++;
  const char *last = b; /* just after the last non-space character outside scripts */
  for (int pass = 0; pass < 2; pass++) {
    int at_start = 1;
    for (const char *p = b; p < e;) {
      const char *sc = find(p, e, "<script");
      const char *stop = sc ? sc : e;
      if (pass == 0) {
        for (const char *q = stop; q > p; q--)
          if (!is_space(q[-1])) {
            last = q;
            break;
          }
      } else {
        if (at_start)
          while (p < stop && is_space(*p)) p++;
        const char *to = stop < last ? stop : last;
        if (to > p) w_add(w, p, (size_t)(to - p)), at_start = 0;
      }
      if (!sc) break;
      const char *se = find(sc, e, "</script>");
      if (!se) return st_error_set(err, ST_ERR_FORMAT, 0, "index.html: a <script> is not closed");
      p = se + 9;
      while (p < e && (*p == '\n' || *p == '\r')) p++;
    }
  }
  return ST_OK;
}

static void w_base64(writer *w, const uint8_t *d, size_t n) {
  static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (!w->p) { /* counting: 4 characters per 3 bytes or part of them */
    size_t groups = n / 3 + (n % 3 != 0), len;
    if (!st_mul_size(groups, 4, &len))
      w->overflow = 1;
    else
      w_count(w, len);
    return;
  }
  char out[4096];
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)d[i] << 16 | (n - i > 1 ? (uint32_t)d[i + 1] << 8 : 0) |
                 (n - i > 2 ? d[i + 2] : 0);
    out[o++] = A[v >> 18];
    out[o++] = A[(v >> 12) & 63];
    out[o++] = n - i > 1 ? A[(v >> 6) & 63] : '=';
    out[o++] = n - i > 2 ? A[v & 63] : '=';
    if (o + 4 > sizeof out) w_add(w, out, o), o = 0;
  }
  w_add(w, out, o);
}

static void w_html_escaped(writer *w, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': w_str(w, "&#38;"); break;
    case '<': w_str(w, "&#60;"); break;
    case '>': w_str(w, "&#62;"); break;
    case '"': w_str(w, "&#34;"); break;
    case '\'': w_str(w, "&#39;"); break;
    default: w_add(w, s, 1);
    }
  }
}

/* The view state as a JSON string's inside (report.h: nothing in it can end
 * the element). */
static void w_state(writer *w, const char *s, size_t n) {
  if (w->overflow) return;
  /* counted (p NULL: st_jout only measures), then written into the room
   * the count made */
  st_jout o = {.buf = w->p ? (char *)w->p + w->n : NULL, .cap = w->p ? SIZE_MAX - w->n : 0};
  st_jout_esc(&o, s, n, ST_JESC_UTF8 | ST_JESC_DEL | ST_JESC_HTML);
  w_count(w, o.len);
}

/* 'sha256-<base64>' of text (52 characters and a NUL). */
static void csp_hash(const char *text, size_t n, char out[56]) {
  uint8_t h[ST_SHA256_SIZE];
  st_sha256(text, n, h);
  writer w = {(uint8_t *)out, 0, 0};
  w_str(&w, "'sha256-");
  w_base64(&w, h, sizeof h);
  w_str(&w, "'");
  out[w.n] = 0;
}

typedef struct text {
  char *p;
  size_t n;
} text;

typedef struct parts {
  text body, js1, js2;
  char h_js1[56], h_js2[56], h_css[56];
} parts;

static void compose(writer *w, const st_report_desc *d, const parts *p) {
  if (d->trace_count) {
    w_str(w, "<!doctype html>\n<!-- strata standalone file: the viewer, its wasm and the trace in "
             "one file. It opens from\n     disk with no server and makes no network request "
             "(see the Content-Security-Policy). -->\n");
  } else {
    w_str(w, "<!doctype html>\n<!-- strata viewer in one file, no trace inside (with ?embed=1 it "
             "waits for one by postMessage). It opens\n     from disk with no server and makes "
             "no network request (see the Content-Security-Policy). -->\n");
  }
  w_str(w, "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
           "script-src ");
  w_str(w, p->h_js1);
  w_str(w, " ");
  w_str(w, p->h_js2);
  w_str(w, " 'wasm-unsafe-eval'; style-src ");
  w_str(w, p->h_css);
  w_str(w, "; img-src data:; base-uri 'none'; form-action 'none'\">\n"
           "<meta name=\"referrer\" content=\"no-referrer\">\n<title>");
  if (d->title) {
    w_html_escaped(w, d->title);
    w_str(w, " \xE2\x80\x93 strata"); /* U+2013 EN DASH */
  } else {
    w_str(w, "strata");
  }
  w_str(w, "</title>\n<link rel=\"icon\" href=\"data:,\">\n<style id=\"strata-css\">");
  w_add(w, d->css, d->css_len);
  w_str(w, "</style>\n</head>\n<body>\n");
  w_add(w, p->body.p, p->body.n);
  w_str(w, "\n<script type=\"application/octet-stream\" id=\"strata-wasm\">");
  w_base64(w, d->wasm, d->wasm_len);
  w_str(w, "</script>\n");
  for (size_t i = 0; i < d->trace_count; i++) {
    const st_report_trace *t = &d->traces[i];
    char id[48] = "strata-trace";
    if (i) { /* "-<i>" */
      id[12] = '-';
      id[13 + st_jout_digits(id + 13, i)] = 0;
    }
    w_str(w, "<script type=\"application/octet-stream\" id=\"");
    w_str(w, id);
    w_str(w, "\" class=\"strata-trace\" data-name=\"");
    w_html_escaped(w, t->name && t->name[0] ? t->name : "trace");
    w_str(w, "\">");
    w_base64(w, t->data, t->len);
    w_str(w, "</script>\n");
  }
  if (d->state) {
    w_str(w, "<script type=\"application/json\" id=\"strata-state\">{\"hash\":\"");
    w_state(w, d->state, d->state_len);
    w_str(w, "\"}</script>\n");
  }
  w_str(w, "<script id=\"strata-js\">");
  w_add(w, p->js1.p, p->js1.n);
  w_str(w, "</script>\n<script type=\"module\" id=\"strata-app\">");
  w_add(w, p->js2.p, p->js2.n);
  w_str(w, "</script>\n</body>\n</html>\n");
}

/* ---- making a text: counted, then written into exactly its size ------------------ */

typedef struct maker {
  const st_report_desc *d;
  st_error *err;
  inliner *in;
  const char *s; /* a script's text */
  size_t n;
  const parts *p;
} maker;

static st_code fill_body(writer *w, const maker *m) {
  return body_of(m->d->index_html, m->d->index_html_len, w, m->err);
}
static st_code fill_app(writer *w, const maker *m) { return inline_module(m->in, "app.js", 0, w); }
static st_code fill_script(writer *w, const maker *m) {
  script_text(w, m->s, m->n);
  return ST_OK;
}
static st_code fill_file(writer *w, const maker *m) {
  compose(w, m->d, m->p);
  return ST_OK;
}

static st_code make(const st_alloc *a, st_code (*fill)(writer *, const maker *), const maker *m,
                    text *out) {
  writer count = {NULL, 0, 0};
  st_code c = fill(&count, m);
  if (c != ST_OK) return c;
  out->p = count.overflow ? NULL : st_malloc(a, count.n ? count.n : 1);
  if (!out->p)
    return st_error_set(m->err, ST_ERR_NOMEM, 0, "out of memory (a text of %zu bytes)", count.n);
  writer w = {(uint8_t *)out->p, 0, 0};
  fill(&w, m);
  out->n = w.n;
  return ST_OK;
}

st_code st_report_build(const st_report_desc *d, const st_alloc *a, uint8_t **out, size_t *out_len,
                        st_error *err) {
  static const st_alloc libc = {0};
  if (!a) a = &libc;
  if (out) *out = NULL;
  if (out_len) *out_len = 0;
  if (!d || !out || !out_len || !d->index_html)
    return st_error_set(err, ST_ERR_ARG, 0, "no index.html or no output");
  for (size_t i = 0; i < d->trace_count; i++)
    if (!d->traces[i].data && d->traces[i].len)
      return st_error_set(err, ST_ERR_ARG, 0, "trace %zu has no bytes", i);
  if ((!d->css && d->css_len) || (!d->strata_js && d->strata_js_len) || (!d->wasm && d->wasm_len))
    return st_error_set(err, ST_ERR_ARG, 0, "a part has a length but no bytes");
  if (!d->state && d->state_len)
    return st_error_set(err, ST_ERR_ARG, 0, "a state length but no text");
  if (d->state_len > ST_REPORT_STATE_MAX)
    return st_error_set(err, ST_ERR_LIMIT, 0, "the view state is longer than %u bytes",
                        (unsigned)ST_REPORT_STATE_MAX);
  if (d->css && find_ci(d->css, d->css + d->css_len, "</style"))
    return st_error_set(err, ST_ERR_FORMAT, 0, "style.css contains </style");

  parts p;
  memset(&p, 0, sizeof p);
  text app = {NULL, 0}, file = {NULL, 0};
  inliner in = {d, err, {0}};
  maker m = {d, err, &in, d->strata_js, d->strata_js_len, &p};
  st_code c = make(a, fill_body, &m, &p.body);
  if (c == ST_OK) c = make(a, fill_app, &m, &app);
  if (c == ST_OK) c = make(a, fill_script, &m, &p.js1);
  m.s = app.p, m.n = app.n;
  if (c == ST_OK) c = make(a, fill_script, &m, &p.js2);
  if (c == ST_OK) {
    csp_hash(p.js1.p, p.js1.n, p.h_js1);
    csp_hash(p.js2.p, p.js2.n, p.h_js2);
    csp_hash(d->css, d->css_len, p.h_css);
    c = make(a, fill_file, &m, &file);
  }
  if (c == ST_OK) *out = (uint8_t *)file.p, *out_len = file.n;
  st_free(a, app.p), st_free(a, p.body.p), st_free(a, p.js1.p), st_free(a, p.js2.p);
  return c;
}
