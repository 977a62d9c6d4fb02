/* test_report.c: the standalone HTML builder (core/report/report.h) on
 * small hand-made sites: the whole file of a tiny site byte for byte; the
 * module walk (st_report_missing_module) and the inlining rule (nested
 * imports, `as`, "export " dropped); script escaping; the CSP hashes equal
 * st_sha256 of the texts as written; traces (ids, names escaped, base64);
 * a viewer-only file; the view state (escaped so that no text can end its
 * element, the CSP unchanged); the errors; and the allocation is exact. */
#include "check.h"
#include "report.h"
#include "sha256.h"

#include <stdlib.h>

static st_report_desc site(const st_report_module *mods, size_t n) {
  static const char html[] = "<!doctype html>\n<html><head><title>x</title></head>\n<body>\n"
                             "<p id=\"a\">A</p>\n<script src=\"app.js\" type=\"module\"></script>\n"
                             "<div>B</div>\n</body>\n</html>\n";
  st_report_desc d;
  memset(&d, 0, sizeof d);
  d.index_html = html, d.index_html_len = sizeof html - 1;
  d.css = "p{color:red}", d.css_len = 12;
  d.strata_js = "var M=1;", d.strata_js_len = 8;
  static const uint8_t wasm[] = {0, 'a', 's', 'm'};
  d.wasm = wasm, d.wasm_len = sizeof wasm;
  d.modules = mods, d.module_count = n;
  return d;
}

/* Builds d into a NUL-terminated string (NULL on error, code in *code). */
static char *build(const st_report_desc *d, st_code *code) {
  uint8_t *out = NULL;
  size_t n = 0;
  st_error err;
  st_alloc a = {0};
  *code = st_report_build(d, &a, &out, &n, &err);
  if (*code != ST_OK) {
    CHECK(out == NULL && n == 0);
    return NULL;
  }
  char *s = malloc(n + 1);
  memcpy(s, out, n);
  s[n] = 0;
  CHECK_EQ_INT(strlen(s), n); /* no stray NUL: the count and the writing agree */
  st_free(&a, out);
  return s;
}

static void hash_of(const char *text, size_t n, char out[64]) {
  static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  uint8_t h[ST_SHA256_SIZE];
  st_sha256(text, n, h);
  char *o = out + sprintf(out, "'sha256-");
  for (int i = 0; i < 33; i += 3) {
    uint32_t v = (uint32_t)h[i] << 16 | (i + 1 < 32 ? (uint32_t)h[i + 1] << 8 : 0) |
                 (i + 2 < 32 ? h[i + 2] : 0);
    *o++ = A[v >> 18], *o++ = A[(v >> 12) & 63];
    *o++ = i + 1 < 32 ? A[(v >> 6) & 63] : '=';
    *o++ = i + 2 < 32 ? A[v & 63] : '=';
  }
  strcpy(o, "'");
}

/* The text of the element that starts with `open` (up to its close tag). */
static char *element(const char *html, const char *open, const char *close) {
  const char *s = strstr(html, open);
  if (!s) return NULL;
  s += strlen(open);
  const char *e = strstr(s, close);
  char *t = malloc((size_t)(e - s) + 1);
  memcpy(t, s, (size_t)(e - s));
  t[e - s] = 0;
  return t;
}

static void test_whole_file(void) {
  st_report_module m = {"app.js", "go();\n", 6};
  st_report_desc d = site(&m, 1);
  const uint8_t bytes[] = {'h', 'i', '!', '?'};
  st_report_trace t = {"a<b>.json", bytes, sizeof bytes};
  d.traces = &t, d.trace_count = 1, d.title = "a<b>.json";
  st_code c;
  char *html = build(&d, &c);
  CHECK_EQ_INT(c, ST_OK);
  char h1[64], h2[64], h3[64], want[4096];
  hash_of("var M=1;", 8, h1);
  hash_of("go();\n", 6, h2);
  hash_of("p{color:red}", 12, h3);
  snprintf(want, sizeof want,
           "<!doctype html>\n<!-- strata standalone file: the viewer, its wasm and the trace in "
           "one file. It opens from\n     disk with no server and makes no network request (see "
           "the Content-Security-Policy). -->\n"
           "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src "
           "%s %s 'wasm-unsafe-eval'; style-src %s; img-src data:; base-uri 'none'; form-action "
           "'none'\">\n"
           "<meta name=\"referrer\" content=\"no-referrer\">\n"
           "<title>a&#60;b&#62;.json \xE2\x80\x93 strata</title>\n<link rel=\"icon\" "
           "href=\"data:,\">\n"
           "<style id=\"strata-css\">p{color:red}</style>\n</head>\n<body>\n"
           "<p id=\"a\">A</p>\n<div>B</div>\n"
           "<script type=\"application/octet-stream\" id=\"strata-wasm\">AGFzbQ==</script>\n"
           "<script type=\"application/octet-stream\" id=\"strata-trace\" class=\"strata-trace\" "
           "data-name=\"a&#60;b&#62;.json\">aGkhPw==</script>\n"
           "<script id=\"strata-js\">var M=1;</script>\n"
           "<script type=\"module\" id=\"strata-app\">go();\n</script>\n</body>\n</html>\n",
           h1, h2, h3);
  CHECK_EQ_STR(html, want);
  free(html);
}

static void test_modules(void) {
  /* app.js imports a.js (which imports b.js) and b.js: b is inlined twice */
  static const char app[] = "// app\nimport { fa, x as y } from './a.js';  \n"
                            "import {fb} from './b.js';\nfa(y, fb);\n"
                            "  import { z } from './b.js';\n"; /* indented: not an import line */
  static const char a[] = "import { fb } from './b.js';\nexport function fa() { return fb(); }\n"
                          "export const x = 1;\n";
  static const char b[] = "export function fb() { return '</script><!--'; }";
  st_report_module mods[3] = {{"app.js", app, sizeof app - 1}};
  st_report_desc d = site(mods, 1);
  char name[ST_REPORT_NAME_MAX];
  CHECK_EQ_INT(st_report_missing_module(&d, name, sizeof name), 1);
  CHECK_EQ_STR(name, "a.js");
  st_code c;
  CHECK(build(&d, &c) == NULL);
  CHECK_EQ_INT(c, ST_ERR_ARG);
  mods[1] = (st_report_module){"a.js", a, sizeof a - 1};
  d.module_count = 2;
  CHECK_EQ_INT(st_report_missing_module(&d, name, sizeof name), 1);
  CHECK_EQ_STR(name, "b.js");
  mods[2] = (st_report_module){"b.js", b, sizeof b - 1};
  d.module_count = 3;
  CHECK_EQ_INT(st_report_missing_module(&d, name, sizeof name), 0);
  char *html = build(&d, &c);
  CHECK_EQ_INT(c, ST_OK);
  char *js = element(html ? html : "", "<script type=\"module\" id=\"strata-app\">", "</script>\n");
  const char *fb = "function fb() { return '<\\/script><\\!--'; }";
  char want[2048];
  snprintf(want, sizeof want,
           "// app\nconst { fa, x: y } = (() => {\n"
           "const { fb } = (() => {\n%s\nreturn { fb };\n})();\n"
           "function fa() { return fb(); }\nconst x = 1;\n\nreturn { fa, x };\n})();\n"
           "const { fb } = (() => {\n%s\nreturn { fb };\n})();\nfa(y, fb);\n"
           "  import { z } from './b.js';\n",
           fb, fb);
  CHECK_EQ_STR(js, want);
  /* the CSP names the texts as written (escaped) */
  char h[64];
  if (js) hash_of(js, strlen(js), h);
  CHECK(js && strstr(html, h) != NULL);
  /* already inlined text (a standalone file saving itself) passes unchanged */
  if (js) {
    st_report_module again = {"app.js", js, strlen(js)};
    st_report_desc d2 = site(&again, 1);
    char *html2 = build(&d2, &c);
    CHECK_EQ_INT(c, ST_OK);
    char *js2 = element(html2 ? html2 : "", "id=\"strata-app\">", "</script>\n");
    CHECK_EQ_STR(js2, js);
    free(js2), free(html2);
  }
  free(js), free(html);
}

static void test_viewer_only_and_traces(void) {
  st_report_module m = {"app.js", "", 0};
  st_report_desc d = site(&m, 1);
  st_code c;
  char *html = build(&d, &c);
  CHECK_EQ_INT(c, ST_OK);
  CHECK(html && strstr(html, "<title>strata</title>") && !strstr(html, "strata-trace") &&
        strstr(html, "no trace inside"));
  free(html);
  const uint8_t one[] = {0xff}, many[] = {1, 2, 3, 4, 5, 6};
  st_report_trace t[12];
  for (int i = 0; i < 12; i++) t[i] = (st_report_trace){i == 1 ? NULL : "x\"'&.gz", one, 1};
  t[11] = (st_report_trace){"last", many, sizeof many};
  d.traces = t, d.trace_count = 12, d.title = "12 traces";
  html = build(&d, &c);
  CHECK_EQ_INT(c, ST_OK);
  CHECK(html && strstr(html, "id=\"strata-trace\" class=\"strata-trace\" "
                             "data-name=\"x&#34;&#39;&#38;.gz\">/w==</script>"));
  CHECK(html && strstr(html, "id=\"strata-trace-1\" class=\"strata-trace\" data-name=\"trace\">"));
  CHECK(html && strstr(html, "id=\"strata-trace-11\" class=\"strata-trace\" "
                             "data-name=\"last\">AQIDBAUG</script>"));
  CHECK(html && strstr(html, "<title>12 traces \xE2\x80\x93 strata</title>"));
  free(html);
}

static void test_body(void) {
  /* scripts first and last, space-only pieces between them: all trimmed */
  static const char html[] = "<html><body class=\"x\">\n  <script>a</script>\n\n <b>1</b>\n"
                             "<i>2</i> <script src=\"b\"></script>\n  \n<script>c</script>\n"
                             "</body></html>";
  st_report_module m = {"app.js", "", 0};
  st_report_desc d = site(&m, 1);
  d.index_html = html, d.index_html_len = sizeof html - 1;
  st_code c;
  char *out = build(&d, &c);
  CHECK_EQ_INT(c, ST_OK);
  CHECK(out &&
        strstr(out, "<body>\n<b>1</b>\n<i>2</i>\n<script type=\"application/octet-stream\""));
  free(out);
}

static void test_errors(void) {
  st_report_module m = {"app.js", "x", 1};
  st_report_desc d = site(&m, 1);
  st_code c;
  d.css = "a{}</STYLE>", d.css_len = 11;
  CHECK(build(&d, &c) == NULL);
  CHECK_EQ_INT(c, ST_ERR_FORMAT);
  d = site(&m, 1);
  d.index_html = "<html>no body</html>", d.index_html_len = 20;
  CHECK(build(&d, &c) == NULL);
  CHECK_EQ_INT(c, ST_ERR_FORMAT);
  d = site(&m, 0);
  CHECK(build(&d, &c) == NULL);
  CHECK_EQ_INT(c, ST_ERR_ARG);
  char name[ST_REPORT_NAME_MAX];
  CHECK_EQ_INT(st_report_missing_module(&d, name, sizeof name), 1);
  CHECK_EQ_STR(name, "app.js");
  /* a module importing itself: too deep, and nothing is missing */
  st_report_module loop[2] = {{"app.js", "import { a } from './l.js';\n", 28},
                              {"l.js", "import { a } from './l.js';\n", 28}};
  d = site(loop, 2);
  CHECK_EQ_INT(st_report_missing_module(&d, name, sizeof name), 0);
  CHECK(build(&d, &c) == NULL);
  CHECK_EQ_INT(c, ST_ERR_LIMIT);
  d = site(&m, 1);
  d.index_html = NULL;
  CHECK(build(&d, &c) == NULL);
  CHECK_EQ_INT(c, ST_ERR_ARG);
}

/* Every allocation failing in turn: an error, never a crash or a leak. */
typedef struct fail_alloc {
  int left, live;
} fail_alloc;
static void *failing(void *ud, void *p, size_t n) {
  fail_alloc *f = ud;
  if (n == 0) {
    if (p) f->live--;
    free(p);
    return NULL;
  }
  if (f->left-- <= 0) return NULL;
  if (!p) f->live++;
  return realloc(p, n);
}

static void test_out_of_memory(void) {
  static const char app[] = "import { f } from './a.js';\nf();\n";
  st_report_module mods[2] = {{"app.js", app, sizeof app - 1}, {"a.js", "export const f=1;", 17}};
  st_report_desc d = site(mods, 2);
  int ok_at = -1;
  for (int k = 0; k < 64 && ok_at < 0; k++) {
    fail_alloc f = {k, 0};
    st_alloc a = {failing, &f};
    uint8_t *out;
    size_t n;
    st_code c = st_report_build(&d, &a, &out, &n, NULL);
    if (c == ST_OK) {
      ok_at = k;
      st_free(&a, out);
    } else {
      CHECK_EQ_INT(c, ST_ERR_NOMEM);
    }
    CHECK_EQ_INT(f.live, 0);
  }
  CHECK(ok_at > 0);
}

/* The view state: a JSON block before strata.js whose text holds no "<",
 * ">" or "&" at all (so neither "</script" nor "<!--" can occur), which a
 * JSON reader turns back into the hash byte for byte; the CSP hashes the
 * same scripts as without it. */
static void test_state(void) {
  st_report_module m = {"app.js", "go();\n", 6};
  st_report_desc d = site(&m, 1);
  const uint8_t bytes[] = {'h', 'i'};
  st_report_trace t = {"t.json", bytes, sizeof bytes};
  d.traces = &t, d.trace_count = 1;
  st_code c;
  char *plain = build(&d, &c);
  static const char hash[] = "#t=1,2&notes=5:a\"b'</script><!--&x\\y\n\x01\xff\xC3\xA9";
  d.state = hash, d.state_len = sizeof hash - 1;
  char *html = build(&d, &c);
  CHECK_EQ_INT(c, ST_OK);
  const char *open = "<script type=\"application/json\" id=\"strata-state\">";
  char *state = element(html, open, "</script>");
  CHECK_EQ_STR(state, "{\"hash\":\"#t=1,2\\u0026notes=5:a\\\"b'\\u003c/script\\u003e\\u003c!--"
                      "\\u0026x\\\\y\\u000a\\u0001\xEF\xBF\xBD\xC3\xA9\"}");
  CHECK(strpbrk(state, "<>&") == NULL);
  /* right before strata.js; everything else as without a state */
  const char *at = strstr(html, open);
  CHECK(at && strstr(at, "</script>\n<script id=\"strata-js\">") == strstr(at, "</script>"));
  size_t cut = (size_t)(at - html), len = strlen(open) + strlen(state) + strlen("</script>\n");
  CHECK(strncmp(html, plain, cut) == 0 && strcmp(html + cut + len, plain + cut) == 0);
  free(state);
  free(html);
  /* too long, or a length without text */
  char *big = malloc(ST_REPORT_STATE_MAX + 1);
  memset(big, 'a', ST_REPORT_STATE_MAX + 1);
  d.state = big, d.state_len = ST_REPORT_STATE_MAX + 1;
  CHECK(build(&d, &c) == NULL && c == ST_ERR_LIMIT);
  d.state_len = ST_REPORT_STATE_MAX;
  html = build(&d, &c);
  CHECK(html != NULL);
  free(html);
  free(big);
  d.state = NULL, d.state_len = 3;
  CHECK(build(&d, &c) == NULL && c == ST_ERR_ARG);
  free(plain);
}

int main(void) {
  RUN(test_whole_file);
  RUN(test_state);
  RUN(test_modules);
  RUN(test_viewer_only_and_traces);
  RUN(test_body);
  RUN(test_errors);
  RUN(test_out_of_memory);
  return check_report();
}
