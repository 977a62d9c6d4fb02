/* cli_export.c: `strata export TRACE -o OUT.html [--dist DIR] [--name NAME]`
 *
 * Writes one self-contained HTML file: the page (dist/index.html's body,
 * style.css, app.js with the modules it imports inlined), strata.js,
 * strata.wasm (base64) and the trace (base64; gzip-compressed first unless
 * it is gzip/zlib already). It opens from file:// with no server and makes
 * no network request: its Content-Security-Policy allows only the sha256
 * hashes of its two inline scripts and its style, plus 'wasm-unsafe-eval'.
 * The layout is the one web/embed.js reads and writes (its "Save HTML"
 * button builds the same file in the browser; tools/python/strata_notebook.py
 * builds the trace-less viewer): keep the three in step.
 *
 * dist/ is found from --dist DIR, else $STRATA_DIST, else next to the
 * executable (build/native/strata -> ../../dist, or ../dist, or ./dist).
 * TRACE is loaded through the core first: a file strata cannot read gives
 * the same one-line diagnosis as `strata stats` and no output file.
 * On success prints one line: the output path, its size and the parts.
 */
#define _XOPEN_SOURCE 700 /* realpath, readlink */

#include "cli.h"
#include "load.h"
#include "stats.h"
#include "trace.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

/* ---- a growable byte string ------------------------------------------------ */
typedef struct sbuf {
  char *p;
  size_t n, cap;
  int oom;
} sbuf;

static void sb_add(sbuf *b, const void *d, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, d, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void sb_str(sbuf *b, const char *s) { sb_add(b, s, strlen(s)); }

static int read_file(const char *path, sbuf *out) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char tmp[1 << 16];
  size_t n;
  while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) sb_add(out, tmp, n);
  int bad = ferror(f) || out->oom;
  fclose(f);
  if (!out->p) sb_add(out, "", 0);
  return bad ? -1 : 0;
}

/* ---- SHA-256 (FIPS 180-4), for the CSP hashes -------------------------------- */
static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROTR(x, r) (((x) >> (r)) | ((x) << (32 - (r))))

static void sha256_block(uint32_t h[8], const unsigned char *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
           p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ROTR(w[i - 15], 7) ^ ROTR(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ROTR(w[i - 2], 17) ^ ROTR(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 =
        k + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
    uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

static void sha256(const void *data, size_t n, unsigned char out[32]) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const unsigned char *p = data;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) sha256_block(h, p + i);
  unsigned char last[128] = {0};
  size_t rest = n - i, len = rest + 9 <= 64 ? 64 : 128;
  memcpy(last, p + i, rest);
  last[rest] = 0x80;
  uint64_t bits = (uint64_t)n * 8;
  for (int k = 0; k < 8; k++) last[len - 1 - k] = (unsigned char)(bits >> (8 * k));
  sha256_block(h, last);
  if (len == 128) sha256_block(h, last + 64);
  for (int k = 0; k < 8; k++)
    for (int j = 0; j < 4; j++) out[4 * k + j] = (unsigned char)(h[k] >> (24 - 8 * j));
}

/* ---- base64 ------------------------------------------------------------------ */
static void sb_base64(sbuf *b, const unsigned char *d, size_t n) {
  static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char out[4096];
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) |
                 (i + 2 < n ? d[i + 2] : 0);
    out[o++] = A[v >> 18];
    out[o++] = A[(v >> 12) & 63];
    out[o++] = i + 1 < n ? A[(v >> 6) & 63] : '=';
    out[o++] = i + 2 < n ? A[v & 63] : '=';
    if (o + 4 > sizeof out) sb_add(b, out, o), o = 0;
  }
  sb_add(b, out, o);
}

static void csp_hash(sbuf *b, const char *text, size_t n) {
  unsigned char h[32];
  sha256(text, n, h);
  sb_str(b, "'sha256-");
  sb_base64(b, h, 32);
  sb_str(b, "'");
}

/* ---- text transforms ------------------------------------------------------------ */

/* Inline script text may not end its element early: "</script" -> "<\/script",
 * "<!--" -> "<\!--" (both mean the same inside JS strings, regexes, comments). */
static void sb_script_text(sbuf *b, const char *s, size_t n) {
  size_t start = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '<') continue;
    if (i + 8 <= n && s[i + 1] == '/' && strncasecmp(s + i + 2, "script", 6) == 0) {
      sb_add(b, s + start, i + 1 - start);
      sb_str(b, "\\");
      start = i + 1;
    } else if (i + 4 <= n && memcmp(s + i, "<!--", 4) == 0) {
      sb_add(b, s + start, i + 1 - start);
      sb_str(b, "\\");
      start = i + 1;
    }
  }
  sb_add(b, s + start, n - start);
}

static void sb_html_escaped(sbuf *b, const char *s) {
  for (; *s; s++) {
    char e[8];
    if (*s == '&' || *s == '<' || *s == '>' || *s == '"' || *s == '\'') {
      snprintf(e, sizeof e, "&#%d;", *s);
      sb_str(b, e);
    } else {
      sb_add(b, s, 1);
    }
  }
}

/* One module text from `file` and the modules it imports, by the rule of
 * web/embed.js's inlineModules(): each line `import { a, b as c } from './x.js';`
 * becomes `const { a, b: c } = (() => {\n<x.js, "export " dropped at line
 * starts>\nreturn { a, b };\n})();`. Returns 0, or -1 (message printed). */
static int inline_modules(const char *dist, const char *file, sbuf *out, int depth) {
  char path[PATH_MAX];
  sbuf src = {0};
  snprintf(path, sizeof path, "%s/%s", dist, file);
  if (depth > 8 || read_file(path, &src) != 0) {
    fprintf(stderr, "strata: export: cannot read %s%s\n", path,
            depth > 8 ? " (imports nest too deeply)" : "");
    free(src.p);
    return -1;
  }
  const char *s = src.p, *end = src.p + src.n;
  int at_line_start = 1;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *le = nl ? nl : end; /* line is [s, le) */
    const char *open = s, *close, *from;
    char name[256];
    size_t len = (size_t)(le - s);
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r')) len--;
    if (at_line_start && len > 16 && strncmp(s, "import {", 8) == 0 &&
        (close = memchr(open, '}', len)) && (size_t)(close - s) + 10 < len &&
        strncmp(close, "} from './", 10) == 0 && strncmp(s + len - 5, ".js';", 5) == 0 &&
        (from = close + 10) < s + len - 2 && (size_t)(s + len - 2 - from) < sizeof name) {
      memcpy(name, from, (size_t)(s + len - 2 - from));
      name[s + len - 2 - from] = 0;
      if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
          strlen(name))
        goto plain;
      /* the import list: "a, b as c" -> local "a, b: c", exported "a, b" */
      sbuf local = {0}, exported = {0}, body = {0};
      const char *p = s + 8;
      while (p < close) {
        while (p < close && (*p == ' ' || *p == ',')) p++;
        const char *q = p;
        while (q < close && *q != ',') q++;
        const char *e = q;
        while (e > p && e[-1] == ' ') e--;
        if (e > p) {
          const char *as = NULL;
          for (const char *t = p; t + 4 <= e; t++)
            if (memcmp(t, " as ", 4) == 0) as = t;
          if (local.n) sb_str(&local, ", "), sb_str(&exported, ", ");
          if (as) {
            const char *b2 = as + 4;
            while (b2 < e && *b2 == ' ') b2++;
            sb_add(&local, p, (size_t)(as - p));
            sb_str(&local, ": ");
            sb_add(&local, b2, (size_t)(e - b2));
            sb_add(&exported, p, (size_t)(as - p));
          } else {
            sb_add(&local, p, (size_t)(e - p));
            sb_add(&exported, p, (size_t)(e - p));
          }
        }
        p = q;
      }
      if (inline_modules(dist, name, &body, depth + 1) != 0) {
        free(local.p), free(exported.p), free(body.p), free(src.p);
        return -1;
      }
      sb_str(out, "const { ");
      sb_str(out, local.p ? local.p : "");
      sb_str(out, " } = (() => {\n");
      /* the module, "export " dropped at line starts */
      const char *bp = body.p ? body.p : "", *bend = bp + body.n;
      int ls = 1;
      for (const char *c = bp; c < bend; c++) {
        if (ls && bend - c >= 7 && memcmp(c, "export ", 7) == 0) c += 7;
        if (c >= bend) break;
        sb_add(out, c, 1);
        ls = *c == '\n';
      }
      sb_str(out, "\nreturn { ");
      sb_str(out, exported.p ? exported.p : "");
      sb_str(out, " };\n})();");
      free(local.p), free(exported.p), free(body.p);
      sb_add(out, s + len,
             (size_t)(le - (s + len))); /* trailing blanks, as the JS regex leaves none */
      s = le;
      at_line_start = 0;
      continue;
    }
  plain:
    sb_add(out, s, (size_t)(le - s));
    s = le;
    if (s < end) { /* the newline */
      sb_add(out, s, 1);
      s++;
    }
    at_line_start = 1;
  }
  int oom = out->oom;
  free(src.p);
  return oom ? -1 : 0;
}

/* index.html's <body> content without its <script> elements. */
static int body_of(const char *html, sbuf *out) {
  const char *b = strstr(html, "<body");
  const char *e = b ? strstr(b, "</body>") : NULL;
  if (!b || !e || !(b = strchr(b, '>')) || b > e) return -1;
  b++;
  while (b < e) {
    const char *sc = strstr(b, "<script");
    if (!sc || sc >= e) {
      sb_add(out, b, (size_t)(e - b));
      break;
    }
    sb_add(out, b, (size_t)(sc - b));
    const char *se = strstr(sc, "</script>");
    if (!se || se > e) return -1;
    b = se + 9;
    while (b < e && (*b == '\n' || *b == '\r')) b++;
  }
  /* trim */
  while (out->n && (out->p[out->n - 1] == '\n' || out->p[out->n - 1] == ' ')) out->p[--out->n] = 0;
  size_t lead = 0;
  while (lead < out->n && (out->p[lead] == '\n' || out->p[lead] == ' ')) lead++;
  memmove(out->p, out->p + lead, out->n - lead + 1);
  out->n -= lead;
  return 0;
}

/* gzip (level 6) of d[0..n) into out. */
static int gzip_bytes(const unsigned char *d, size_t n, sbuf *out) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
  unsigned char tmp[1 << 16];
  size_t off = 0;
  int flush, r;
  do {
    size_t chunk = n - off > (1u << 30) ? (1u << 30) : n - off;
    z.next_in = (unsigned char *)d + off;
    z.avail_in = (uInt)chunk;
    off += chunk;
    flush = off == n ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = tmp;
      z.avail_out = sizeof tmp;
      r = deflate(&z, flush);
      sb_add(out, tmp, sizeof tmp - z.avail_out);
    } while (z.avail_out == 0);
  } while (flush != Z_FINISH);
  deflateEnd(&z);
  return r == Z_STREAM_END && !out->oom ? 0 : -1;
}

static int dist_ok(const char *dir) {
  char p[PATH_MAX + 16];
  snprintf(p, sizeof p, "%s/index.html", dir);
  return access(p, R_OK) == 0;
}

/* --dist, $STRATA_DIST, or next to the executable. */
static int find_dist(const char *opt, const char *argv0, char *out, size_t cap) {
  const char *env = getenv("STRATA_DIST");
  if (opt || (env && *env)) {
    snprintf(out, cap, "%s", opt ? opt : env);
    return dist_ok(out) ? 0 : -1;
  }
  char exe[PATH_MAX - 16];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
  } else if (!realpath(argv0, exe)) {
    snprintf(out, cap, "(next to %s)", argv0);
    return -1;
  }
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  static const char *const rel[] = {"/../../dist", "/../dist", "/dist"};
  for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
    snprintf(out, cap, "%s%s", exe, rel[i]);
    if (dist_ok(out)) {
      char real[PATH_MAX];
      if (realpath(out, real)) snprintf(out, cap, "%s", real);
      return 0;
    }
  }
  snprintf(out, cap, "%s/../../dist", exe);
  return -1;
}

static int export_usage(void) {
  fprintf(stderr, "usage: strata export TRACE -o OUT.html [--dist DIR] [--name NAME]\n");
  return 2;
}

int strata_cmd_export(int argc, char **argv) {
  const char *trace = NULL, *out_path = NULL, *dist_opt = NULL, *name = NULL;
  for (int i = 2; i < argc; i++) {
    if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc)
      out_path = argv[++i];
    else if (strcmp(argv[i], "--dist") == 0 && i + 1 < argc)
      dist_opt = argv[++i];
    else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
      name = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1])
      return export_usage();
    else if (!trace)
      trace = argv[i];
    else
      return export_usage();
  }
  if (!trace || !out_path) return export_usage();
  if (!name) {
    const char *slash = strrchr(trace, '/');
    name = slash ? slash + 1 : trace;
  }

  char dist[PATH_MAX];
  if (find_dist(dist_opt, argv[0], dist, sizeof dist) != 0) {
    fprintf(stderr,
            "strata: export: no viewer at %s (index.html missing): build it (tools/build), or pass "
            "--dist DIR / set STRATA_DIST\n",
            dist);
    return 1;
  }

  /* the trace, checked by loading it as `strata stats` would */
  sbuf raw = {0};
  if (read_file(trace, &raw) != 0) {
    fprintf(stderr, "strata: %s: cannot read: %s\n", trace,
            raw.oom ? "out of memory" : strerror(errno));
    free(raw.p);
    return 1;
  }
  st_load_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.file_name = trace;
  st_loader *l = st_loader_create(&desc);
  if (!l) {
    fprintf(stderr, "strata: %s: out of memory\n", trace);
    free(raw.p);
    return 1;
  }
  for (size_t off = 0; off < raw.n; off += 1u << 20) {
    size_t n = raw.n - off < (1u << 20) ? raw.n - off : (1u << 20);
    if (st_loader_push(l, raw.p + off, n) != ST_OK) break;
  }
  st_error err;
  st_trace *t = st_loader_finish(l, &err);
  unsigned long long events = st_loader_stats(l)->events;
  if (!t) {
    char line[512];
    st_load_error_line(&err, trace, line, sizeof line);
    fprintf(stderr, "strata: %s\n", line);
    st_loader_destroy(l);
    free(raw.p);
    return 1;
  }
  st_trace_destroy(t);
  st_loader_destroy(l);

  const unsigned char *u = (const unsigned char *)raw.p;
  int compressed = raw.n >= 2 && ((u[0] == 0x1f && u[1] == 0x8b) ||
                                  (u[0] == 0x78 && ((u[0] << 8) | u[1]) % 31 == 0));
  sbuf packed = {0};
  if (!compressed && gzip_bytes(u, raw.n, &packed) != 0) {
    fprintf(stderr, "strata: export: could not compress %s\n", trace);
    free(raw.p), free(packed.p);
    return 1;
  }
  const unsigned char *tb = compressed ? u : (const unsigned char *)packed.p;
  size_t tn = compressed ? raw.n : packed.n;

  /* the viewer's parts */
  sbuf html = {0}, css = {0}, sjs = {0}, wasm = {0}, app = {0}, body = {0};
  char p[PATH_MAX + 32];
  int bad = 0;
  const char *what = "";
  snprintf(p, sizeof p, "%s/index.html", dist);
  if (!bad && read_file(p, &html) != 0) bad = 1, what = "index.html";
  snprintf(p, sizeof p, "%s/style.css", dist);
  if (!bad && read_file(p, &css) != 0) bad = 1, what = "style.css";
  snprintf(p, sizeof p, "%s/strata.js", dist);
  if (!bad && read_file(p, &sjs) != 0) bad = 1, what = "strata.js";
  snprintf(p, sizeof p, "%s/strata.wasm", dist);
  if (!bad && read_file(p, &wasm) != 0) bad = 1, what = "strata.wasm";
  if (!bad && body_of(html.p, &body) != 0) bad = 1, what = "index.html (no <body>)";
  if (bad) fprintf(stderr, "strata: export: cannot read %s/%s\n", dist, what);
  if (!bad && inline_modules(dist, "app.js", &app, 0) != 0) bad = 1;
  if (!bad && strstr(css.p, "</style")) {
    fprintf(stderr, "strata: export: %s/style.css contains </style\n", dist);
    bad = 1;
  }

  sbuf js1 = {0}, js2 = {0}, o = {0};
  if (!bad) {
    sb_script_text(&js1, sjs.p, sjs.n);
    sb_script_text(&js2, app.p, app.n);
    char title[1024];
    snprintf(title, sizeof title, "%s – strata", name);
    sb_str(
        &o,
        "<!doctype html>\n<!-- strata standalone file: the viewer, its wasm and the trace in one "
        "file. It opens from\n"
        "     disk with no server and makes no network request (see the Content-Security-Policy). "
        "-->\n"
        "<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src ");
    csp_hash(&o, js1.p ? js1.p : "", js1.n);
    sb_str(&o, " ");
    csp_hash(&o, js2.p ? js2.p : "", js2.n);
    sb_str(&o, " 'wasm-unsafe-eval'; style-src ");
    csp_hash(&o, css.p, css.n);
    sb_str(&o, "; img-src data:; base-uri 'none'; form-action 'none'\">\n<meta name=\"referrer\" "
               "content=\"no-referrer\">\n<title>");
    sb_html_escaped(&o, title);
    sb_str(&o, "</title>\n<link rel=\"icon\" href=\"data:,\">\n<style id=\"strata-css\">");
    sb_add(&o, css.p, css.n);
    sb_str(&o, "</style>\n</head>\n<body>\n");
    sb_add(&o, body.p, body.n);
    sb_str(&o, "\n<script type=\"application/octet-stream\" id=\"strata-wasm\">");
    sb_base64(&o, (const unsigned char *)wasm.p, wasm.n);
    sb_str(&o,
           "</script>\n<script type=\"application/octet-stream\" id=\"strata-trace\" data-name=\"");
    sb_html_escaped(&o, name);
    sb_str(&o, "\">");
    sb_base64(&o, tb, tn);
    sb_str(&o, "</script>\n<script id=\"strata-js\">");
    sb_add(&o, js1.p, js1.n);
    sb_str(&o, "</script>\n<script type=\"module\" id=\"strata-app\">");
    sb_add(&o, js2.p, js2.n);
    sb_str(&o, "</script>\n</body>\n</html>\n");
    if (o.oom) {
      fprintf(stderr, "strata: export: out of memory\n");
      bad = 1;
    }
  }
  if (!bad) {
    FILE *f = fopen(out_path, "wb");
    if (!f || fwrite(o.p, 1, o.n, f) != o.n || fclose(f) != 0) {
      fprintf(stderr, "strata: export: cannot write %s: %s\n", out_path, strerror(errno));
      bad = 1;
    } else {
      printf("wrote %s: %zu bytes (viewer: wasm %zu, js %zu; trace: %llu events, %zu bytes%s)\n",
             out_path, o.n, wasm.n, sjs.n + app.n, events, tn, compressed ? "" : " gzip'd");
    }
  }
  free(raw.p), free(packed.p), free(html.p), free(css.p), free(sjs.p), free(wasm.p), free(app.p),
      free(body.p), free(js1.p), free(js2.p), free(o.p);
  return bad ? 1 : 0;
}
