/* cli_export.c: `strata export TRACE -o OUT.html [--dist DIR] [--name NAME]
 *                               [--note T0[:T1]=TEXT]...`
 *               `strata export --viewer-only -o OUT.html [--dist DIR]`
 *
 * Writes one self-contained HTML file: the page (dist/index.html's body,
 * style.css, app.js with the modules it imports inlined), strata.js,
 * strata.wasm (base64) and the trace (base64; gzip-compressed first unless
 * it is gzip/zlib already). It opens from file:// with no server and makes
 * no network request. The file is made by core/report/report.h's builder,
 * the same one the page's "Save HTML" button runs (compiled into
 * strata.wasm); this command only reads dist/ and the trace and writes the
 * result. --viewer-only writes the viewer with no trace inside (tools/build
 * makes dist/strata-viewer.html so, for tools/python/strata/notebook.py).
 *
 * dist/ is found from --dist DIR, else $STRATA_DIST, else next to the
 * executable (build/native/strata -> ../../dist, or ../dist, or ./dist).
 * TRACE is loaded through the core first: a file strata cannot read gives
 * the same one-line diagnosis as `strata stats` and no output file.
 * On success prints one line: the output path, its size and the parts.
 *
 * --note T0[:T1]=TEXT (repeatable, at most 64; TEXT at most 200 bytes: cli_note.c) puts
 * a note at T0 (or over T0..T1), in microseconds as the link's t=, into the
 * file's view state: the link hash "#notes=..." (web/embed.js's format:
 * notes separated by ';', each "T0[,T1]:" and its text percent-encoded as
 * encodeURIComponent does), which the page applies when the file opens.
 */
#define _XOPEN_SOURCE 700 /* realpath, readlink */

#include "cli.h"
#include "load.h"
#include "report.h"
#include "stats.h"
#include "trace.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  void *p = b->p;
  if (!st_grow_from(&(st_alloc){0}, &p, &b->cap, b->n + n + 1, 1, 4096)) {
    b->oom = 1;
    return;
  }
  b->p = p;
  memcpy(b->p + b->n, d, n);
  b->n += n;
  b->p[b->n] = 0;
}

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

/* Reads dist/NAME into b; 0, or -1 after a message. */
static int read_part(const char *dist, const char *name, sbuf *b) {
  char p[PATH_MAX + 160];
  snprintf(p, sizeof p, "%s/%s", dist, name);
  if (read_file(p, b) == 0) return 0;
  fprintf(stderr, "strata: export: cannot read %s\n", p);
  return -1;
}

/* The modules app.js needs, read from dist/ as the builder asks for them. */
typedef struct module_set {
  st_report_module *m;
  sbuf *text;
  char (*name)[ST_REPORT_NAME_MAX];
  size_t n;
} module_set;

static void modules_free(module_set *s) {
  for (size_t i = 0; i < s->n; i++) free(s->text[i].p);
  free(s->m), free(s->text), free(s->name);
}

static int modules_read(const char *dist, st_report_desc *d, module_set *s) {
  char name[ST_REPORT_NAME_MAX] = "app.js";
  do {
    size_t k = s->n;
    st_report_module *m = realloc(s->m, (k + 1) * sizeof *m);
    if (m) s->m = m;
    sbuf *t = realloc(s->text, (k + 1) * sizeof *t);
    if (t) s->text = t;
    char(*nm)[ST_REPORT_NAME_MAX] = realloc(s->name, (k + 1) * sizeof *nm);
    if (nm) s->name = nm;
    if (!m || !t || !nm) {
      fprintf(stderr, "strata: export: out of memory\n");
      return -1;
    }
    memset(&s->text[k], 0, sizeof s->text[k]);
    s->n = k + 1;
    snprintf(s->name[k], sizeof s->name[k], "%s", name);
    if (read_part(dist, name, &s->text[k]) != 0) return -1;
    for (size_t i = 0; i <= k; i++) /* the arrays may have moved */
      s->m[i] = (st_report_module){s->name[i], s->text[i].p, s->text[i].n};
    d->modules = s->m;
    d->module_count = s->n;
  } while (st_report_missing_module(d, name, sizeof name));
  return 0;
}

/* ---- --note: the view state's notes= ------------------------------------------ */

/* A time in the fewest digits (15, else 17) that strtod reads back exactly. */
static void add_time(sbuf *b, double t) {
  char num[64];
  snprintf(num, sizeof num, "%.15g", t);
  if (strtod(num, NULL) != t) snprintf(num, sizeof num, "%.17g", t);
  sb_add(b, num, strlen(num));
}

/* Appends note n as "T0[,T1]:TEXT" (TEXT as encodeURIComponent writes it)
 * to the hash "#notes=...". */
static void add_note(sbuf *hash, const cli_note *n, int first) {
  sb_add(hash, first ? "#notes=" : ";", first ? 7 : 1);
  add_time(hash, n->t0_us);
  if (n->t1_us > n->t0_us) sb_add(hash, ",", 1), add_time(hash, n->t1_us);
  sb_add(hash, ":", 1);
  static const char hex[] = "0123456789ABCDEF";
  for (const unsigned char *p = (const unsigned char *)n->text; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        strchr("-_.!~*'()", *p)) {
      sb_add(hash, p, 1);
    } else {
      char e[3] = {'%', hex[*p >> 4], hex[*p & 15]};
      sb_add(hash, e, 3);
    }
  }
}

static int export_usage(void) {
  fprintf(stderr, "usage: strata export TRACE -o OUT.html [--dist DIR] [--name NAME] "
                  "[--note T0[:T1]=TEXT]...\n"
                  "                     " CLI_FEED_USAGE "\n"
                  "       strata export --viewer-only -o OUT.html [--dist DIR]\n");
  return 2;
}

/* TRACE checked by loading it as `strata stats` would (with o's threads),
 * then read: *raw holds its bytes, *events its count. 0, or 1 after one
 * line on stderr. */
static int read_trace(const char *trace, const cli_feed_opts *o, sbuf *raw,
                      unsigned long long *events) {
  FILE *f = fopen(trace, "rb");
  if (!f) {
    fprintf(stderr, "strata: %s: cannot read: %s\n", trace, strerror(errno));
    return 1;
  }
  st_error err;
  st_trace *t = NULL;
  st_loader *l = cli_load_stream(f, trace, o, &t, &err);
  fclose(f);
  if (!l) return 1;
  *events = st_loader_stats(l)->events;
  st_trace_destroy(t);
  st_loader_destroy(l);
  if (read_file(trace, raw) != 0) {
    fprintf(stderr, "strata: %s: cannot read: %s\n", trace,
            raw->oom ? "out of memory" : strerror(errno));
    return 1;
  }
  return 0;
}

int strata_cmd_export(int argc, char **argv) {
  const char *trace = NULL, *out_path = NULL, *dist_opt = NULL, *name = NULL;
  int viewer_only = 0, notes = 0, r;
  sbuf hash = {0}; /* the view state: "#notes=..." */
  cli_feed_opts fo = {0};
  for (int i = 2; i < argc; i++) {
    if ((r = cli_feed_opt(argc, argv, &i, &fo, "export")) != 0) {
      if (r < 0) return free(hash.p), 2;
    } else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc)
      out_path = argv[++i];
    else if (strcmp(argv[i], "--dist") == 0 && i + 1 < argc)
      dist_opt = argv[++i];
    else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
      name = argv[++i];
    else if (strcmp(argv[i], "--viewer-only") == 0)
      viewer_only = 1;
    else if (strcmp(argv[i], "--note") == 0 && i + 1 < argc) {
      cli_note n;
      if (notes == CLI_NOTES_MAX)
        fprintf(stderr, "strata: export: at most %d notes\n", CLI_NOTES_MAX);
      if (notes == CLI_NOTES_MAX || cli_note_parse(argv[++i], &n, "export") != 0) {
        free(hash.p);
        return 2;
      }
      add_note(&hash, &n, notes++ == 0);
    } else if (argv[i][0] == '-' && argv[i][1])
      return export_usage();
    else if (!trace)
      trace = argv[i];
    else
      return export_usage();
  }
  if (!out_path || !trace == !viewer_only || (viewer_only && (name || notes))) {
    free(hash.p);
    return export_usage();
  }
  if (trace && !name) {
    const char *slash = strrchr(trace, '/');
    name = slash ? slash + 1 : trace;
  }

  char dist[PATH_MAX];
  if (find_dist(dist_opt, argv[0], dist, sizeof dist) != 0) {
    fprintf(stderr,
            "strata: export: no viewer at %s (index.html missing): build it (tools/build), or pass "
            "--dist DIR / set STRATA_DIST\n",
            dist);
    free(hash.p);
    return 1;
  }

  sbuf raw = {0}, packed = {0};
  unsigned long long events = 0;
  int compressed = 0;
  if (trace && read_trace(trace, &fo, &raw, &events) != 0) {
    free(raw.p), free(hash.p);
    return 1;
  }
  const unsigned char *u = (const unsigned char *)raw.p;
  compressed = raw.n >= 2 &&
               ((u[0] == 0x1f && u[1] == 0x8b) || (u[0] == 0x78 && ((u[0] << 8) | u[1]) % 31 == 0));
  if (trace && !compressed && gzip_bytes(u, raw.n, &packed) != 0) {
    fprintf(stderr, "strata: export: could not compress %s\n", trace);
    free(raw.p), free(packed.p), free(hash.p);
    return 1;
  }
  st_report_trace tr = {name, compressed ? u : (const unsigned char *)packed.p,
                        compressed ? raw.n : packed.n};

  /* the viewer's parts, and the file */
  sbuf html = {0}, css = {0}, sjs = {0}, wasm = {0};
  module_set mods = {0};
  st_report_desc d;
  memset(&d, 0, sizeof d);
  int bad = read_part(dist, "index.html", &html) || read_part(dist, "style.css", &css) ||
            read_part(dist, "strata.js", &sjs) || read_part(dist, "strata.wasm", &wasm) ||
            modules_read(dist, &d, &mods);
  uint8_t *o = NULL;
  size_t on = 0;
  if (!bad) {
    d.index_html = html.p, d.index_html_len = html.n;
    d.css = css.p, d.css_len = css.n;
    d.strata_js = sjs.p, d.strata_js_len = sjs.n;
    d.wasm = (const uint8_t *)wasm.p, d.wasm_len = wasm.n;
    d.traces = &tr, d.trace_count = trace ? 1 : 0;
    d.title = trace ? name : NULL;
    d.state = hash.p, d.state_len = hash.n;
    st_error err;
    if (st_report_build(&d, NULL, &o, &on, &err) != ST_OK) {
      fprintf(stderr, "strata: export: %s (from %s)\n", err.msg, dist);
      bad = 1;
    }
  }
  if (!bad && hash.oom) {
    fprintf(stderr, "strata: export: out of memory\n");
    bad = 1;
  }
  if (!bad) {
    FILE *f = fopen(out_path, "wb");
    if (!f || fwrite(o, 1, on, f) != on || fclose(f) != 0) {
      fprintf(stderr, "strata: export: cannot write %s: %s\n", out_path, strerror(errno));
      bad = 1;
    } else {
      size_t js = sjs.n;
      for (size_t i = 0; i < mods.n; i++) js += mods.text[i].n;
      if (trace)
        printf("wrote %s: %zu bytes (viewer: wasm %zu, js %zu; trace: %llu events, %zu bytes%s)\n",
               out_path, on, wasm.n, js, events, tr.len, compressed ? "" : " gzip'd");
      else
        printf("wrote %s: %zu bytes (viewer: wasm %zu, js %zu; no trace)\n", out_path, on, wasm.n,
               js);
    }
  }
  free(o);
  modules_free(&mods);
  free(raw.p), free(packed.p), free(html.p), free(css.p), free(sjs.p), free(wasm.p), free(hash.p);
  return bad ? 1 : 0;
}
