/* cli_args.c: `strata args FILE [--at SRC]... [--name TEXT] [--limit N] [--threads N]`
 *
 * Shows events' args as the viewer's details pane gets them: the trace is
 * loaded, its args source kept (core/import/args/argsrc.h), and each event's args are
 * decoded by re-reading the file at the ranges the core asks for (through
 * a gzip index, core/import/args/gzindex.h, when the file is compressed).
 *
 *   --at SRC    the event at decoded offset SRC (repeatable)
 *   --name TEXT events whose name contains TEXT (in display order)
 *   --limit N   at most N events (default 10; 0 = no limit)
 *   --threads N the load's threads (cli_feed.h; default the cores)
 *
 * Without --at, events are listed in display order (processes, tracks,
 * rows). One line per event: `<src>\t<name>\t<args JSON>`; an event whose
 * args cannot be read gets `<src>\t<name>\terror: <message>` and the exit
 * code is 1. Exit 2 on usage errors, 1 if the file cannot be loaded.
 * A slice made of two events (a Chrome B/E pair: trace.h st_trace_end_src)
 * shows the args of both merged, the E's winning on a duplicate key, as
 * the details pane does (core/import/args/argsrc.h st_args_query_begin_end).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include "argsrc.h"
#include "gzindex.h"
#include "load.h"
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES (1u << 20)
#define MAX_AT 64

typedef struct dfile { /* the decoded input, read at any offset */
  FILE *f;
  st_gzindex *ix; /* compressed files */
  uint8_t *buf;
  size_t cap;
} dfile;

/* Reads decoded [off, off + len) into d->buf; *got < len at the end. */
static int dread(dfile *d, uint64_t off, uint64_t len, size_t *got) {
  if (len > SIZE_MAX / 2) return 0;
  if (len > d->cap) {
    uint8_t *p = realloc(d->buf, (size_t)len);
    if (!p) return 0;
    d->buf = p;
    d->cap = (size_t)len;
  }
  *got = 0;
  if (!d->ix) {
    if (fseeko(d->f, (off_t)off, SEEK_SET) != 0) return 1; /* past the end: nothing */
    *got = fread(d->buf, 1, (size_t)len, d->f);
    return !ferror(d->f);
  }
  uint64_t from = 0;
  st_gzread *r = st_gzread_begin(d->ix, off, (size_t)len, &from);
  if (!r) return 0;
  static uint8_t chunk[CHUNK_BYTES];
  int done = 0, ok = fseeko(d->f, (off_t)from, SEEK_SET) == 0;
  while (ok && !done) {
    size_t n = fread(chunk, 1, sizeof chunk, d->f);
    if (n == 0) break;
    ok = st_gzread_push(r, chunk, n, &done) == ST_OK;
  }
  size_t n = 0;
  const uint8_t *data = st_gzread_data(r, &n);
  if (ok && n) memcpy(d->buf, data, n);
  *got = ok ? n : 0;
  st_gzread_end(r);
  return ok;
}

st_args_query *cli_args_read(const st_argsrc *as, uint64_t src, uint64_t end_src,
                             const uint8_t *(*read)(void *ud, uint64_t off, uint64_t len,
                                                    size_t *got),
                             void *ud, st_code *c, st_error *err) {
  memset(err, 0, sizeof *err);
  st_args_span rd;
  st_args_query *q = st_args_query_begin_end(as, src, end_src, &rd, err);
  int more = q != NULL;
  *c = q ? ST_OK : err->code;
  while (more && *c == ST_OK) {
    size_t got = 0;
    const uint8_t *p = read(ud, rd.offset, rd.length, &got);
    if (!p) {
      *c = st_error_set(err, ST_ERR_ARG, rd.offset, "cannot read the file there");
      break;
    }
    *c = st_args_query_push(q, p, got, &more, &rd, err);
  }
  return q;
}

static const uint8_t *dread_buf(void *ud, uint64_t off, uint64_t len, size_t *got) {
  dfile *d = ud;
  return dread(d, off, len, got) ? (d->buf ? d->buf : (const uint8_t *)"") : NULL;
}

/* Prints one event's line (end_src: its end event's, UINT64_MAX if none);
 * returns 0 if its args could not be read. */
static int show(dfile *d, const st_argsrc *as, uint64_t src, uint64_t end_src, const char *name,
                size_t nlen) {
  st_error err;
  st_code c;
  st_args_query *q = cli_args_read(as, src, end_src, dread_buf, d, &c, &err);
  printf("%llu\t%.*s\t", (unsigned long long)src, (int)nlen, name);
  if (c == ST_OK) {
    size_t n = 0;
    int cut = 0;
    const char *text = st_args_query_result(q, &n, &cut);
    printf("%.*s%s\n", (int)n, text, cut ? " (cut short)" : "");
  } else {
    printf("error: %s (at byte %llu)\n", err.msg[0] ? err.msg : st_code_name(c),
           (unsigned long long)err.offset);
  }
  st_args_query_end(q);
  return c == ST_OK;
}

static int usage(void) {
  fprintf(stderr,
          "usage: strata args FILE [--at SRC]... [--name TEXT] [--limit N] " CLI_FEED_USAGE "\n");
  return 2;
}

int strata_cmd_args(int argc, char **argv) {
  const char *file = NULL, *want = NULL;
  uint64_t at[MAX_AT];
  int nat = 0;
  long limit = 10;
  cli_feed_opts fo = {0};
  for (int i = 2; i < argc; i++) {
    int r = cli_feed_opt(argc, argv, &i, &fo, "args");
    if (r < 0) return 2;
    if (r) continue;
    if (strcmp(argv[i], "--at") == 0 && i + 1 < argc && nat < MAX_AT) {
      char *end;
      at[nat++] = strtoull(argv[++i], &end, 10);
      if (*end) return usage();
    } else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
      want = argv[++i];
    } else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
      limit = strtol(argv[++i], NULL, 10);
    } else if (!file && argv[i][0] != '-') {
      file = argv[i];
    } else {
      return usage();
    }
  }
  if (!file) return usage();
  dfile d;
  memset(&d, 0, sizeof d);
  d.f = fopen(file, "rb");
  if (!d.f) {
    fprintf(stderr, "strata: %s: cannot open: %s\n", file, strerror(errno));
    return 1;
  }
  static uint8_t chunk[CHUNK_BYTES];
  size_t n;
  st_error err;
  st_trace *t = NULL;
  st_loader *l = cli_load_stream(d.f, file, &fo, &t, &err);
  if (!l) {
    fclose(d.f);
    return 1;
  }
  int compressed = st_loader_stats(l)->compressed;
  st_argsrc *as = st_loader_take_args_source(l);
  st_loader_destroy(l);
  int ok = 1;
  if (compressed) { /* index the compressed file once */
    d.ix = st_gzindex_create(NULL, 0);
    rewind(d.f);
    st_error e;
    while (d.ix && (n = fread(chunk, 1, sizeof chunk, d.f)) > 0)
      if (st_gzindex_push(d.ix, chunk, n, &e) != ST_OK) break;
    if (d.ix) st_gzindex_finish(d.ix, &e);
  }
  const st_strtab *strs = st_trace_strings(t);
  uint32_t nrows;
  const st_row *rows = st_trace_rows(t, &nrows);
  long shown = 0;
  if (nat) {
    for (int i = 0; i < nat; i++) {
      const char *nm = "";
      size_t nl = 0;
      for (uint32_t r = 0; r < nrows && !nl; r++)
        for (uint32_t e = 0; e < rows[r].count; e++)
          if (rows[r].src[e] == at[i]) {
            nm = st_strtab_get(strs, rows[r].name[e], &nl);
            break;
          }
      ok &= show(&d, as, at[i], st_trace_end_src_of(t, at[i]), nm, nl);
    }
  } else {
    uint32_t ntracks;
    const st_track *tracks = st_trace_tracks(t, &ntracks);
    for (uint32_t ti = 0; ti < ntracks && (limit <= 0 || shown < limit); ti++)
      for (uint32_t r = tracks[ti].first_row;
           r < tracks[ti].first_row + tracks[ti].row_count && (limit <= 0 || shown < limit); r++)
        for (uint32_t e = 0; e < rows[r].count && (limit <= 0 || shown < limit); e++) {
          size_t nl;
          const char *nm = st_strtab_get(strs, rows[r].name[e], &nl);
          if (want) {
            char tmp[1024];
            size_t k = nl < sizeof tmp - 1 ? nl : sizeof tmp - 1;
            memcpy(tmp, nm, k);
            tmp[k] = 0;
            if (!strstr(tmp, want)) continue;
          }
          ok &= show(&d, as, rows[r].src[e], st_trace_end_src(t, r, e), nm, nl);
          shown++;
        }
  }
  st_gzindex_destroy(d.ix);
  free(d.buf);
  fclose(d.f);
  st_argsrc_destroy(as);
  st_trace_destroy(t);
  return ok ? 0 : 1;
}
