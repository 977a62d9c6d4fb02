/* cli_window.c: `strata window FILE [--index FILE.stx] --from US --to US
 * [--json] [--events] [--no-copy | --resident]`
 *
 * Streaming mode from the command line: FILE's stream comes from its index
 * (checked against FILE: a stale, foreign or damaged index is refused with
 * one line on stderr, "strata: FILE.stx: index does not match FILE: ...",
 * and the pass runs instead) or from a pass; the window [--from, --to]
 * (the file's microseconds, as `strata flame`) is planned, its decoded
 * byte ranges read (pread, or through the gzip restart points of a
 * compressed file) and loaded (core/import/stream/stream.h). Prints
 * `ranges R, bytes read B, events E` (E: events meeting the window, CPU
 * samples aside), and with --events one line per such event, sorted:
 * `pid <TAB> tid/key <TAB> kind <TAB> start_ns (absolute) <TAB> dur_ns
 * <TAB> name <TAB> src`. --json: {"file", "index_used", "from_us", "to_us",
 * "ranges", "bytes_read", "events", "open_ms", "window_ms", "heap_bytes"
 * [, "list": [[pid, key, kind, start_ns, dur_ns, name, src], ...]]}.
 * --block-bytes N: the pass's block size (as `strata index`'s; for tests).
 * An unsorted or protobuf trace (st_stream_info.spill_wanted) gets its
 * re-ordered copy first, in a temporary file, and the window is read from
 * it (JSON adds "copy": true, "copy_ms", "copy_bytes"); --no-copy reads
 * the file's blocks instead (JSON only). --resident loads the whole file
 * as `strata stats` does and lists the same events: the reference the
 * streamed paths must equal (tests/cli/stream_index_tests.sh).
 * Exit 1 with one line (file and byte offset) if FILE cannot be read or
 * the window not loaded, 2 on usage errors. Every --json object starts with
 * "schema": "strata.window/1" (tools/python/strata/schemas/).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "stream.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(void) {
  fprintf(stderr,
          "usage: strata window FILE [--index FILE.stx] --from US --to US [--json] [--events]\n"
          "                     [--block-bytes N] [--no-copy | --resident]\n");
  return 2;
}

typedef struct wline {
  int64_t pid, key, start, dur;
  int kind;
  const char *name;
  size_t nlen;
  uint64_t src;
} wline;

static int cmp_line(const void *a, const void *b) {
  const wline *x = a, *y = b;
#define CMP(f)                                                                                     \
  if (x->f != y->f) return x->f < y->f ? -1 : 1;
  CMP(start)
  CMP(pid)
  CMP(key)
  CMP(kind)
  CMP(dur)
  CMP(src)
#undef CMP
  size_t n = x->nlen < y->nlen ? x->nlen : y->nlen;
  int c = memcmp(x->name, y->name, n);
  return c ? c : (x->nlen > y->nlen) - (x->nlen < y->nlen);
}

static const char *const k_kinds[] = {"slices", "async", "instants", "counter", "samples"};

/* The window model's events meeting [a0, a1] (absolute ns), sorted. */
static wline *lines_of(const st_trace *t, int64_t a0, int64_t a1, size_t *out) {
  uint32_t nr, nt, np;
  const st_row *rows = st_trace_rows(t, &nr);
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_process *procs = st_trace_processes(t, &np);
  const st_strtab *strs = st_trace_strings(t);
  int64_t origin = st_trace_origin_ns(t);
  size_t n = 0, cap = 0;
  wline *v = NULL;
  for (uint32_t r = 0; r < nr; r++) {
    const st_track *tr = &tracks[rows[r].track];
    if (tr->kind == ST_TRACK_SAMPLES) continue;
    for (uint32_t i = 0; i < rows[r].count; i++) {
      int64_t s = st_sat_add(origin, rows[r].start[i]), e = st_sat_add(s, rows[r].dur[i]);
      if (s > a1 || e < a0) continue;
      if (n == cap) {
        void *nv = v;
        if (!st_grow_from(&(st_alloc){0}, &nv, &cap, n + 1, sizeof *v, 1024)) break;
        v = nv;
      }
      wline *w = &v[n++];
      w->pid = procs[tr->process].pid;
      w->key = tr->key;
      w->kind = tr->kind;
      w->start = s;
      w->dur = rows[r].dur[i];
      w->name = st_strtab_get(strs, rows[r].name[i], &w->nlen);
      w->src = rows[r].src[i];
    }
  }
  if (n) qsort(v, n, sizeof *v, cmp_line);
  *out = n;
  return v;
}

/* [off, off + len) of the copy (open as fd). malloc'd, or NULL after one line. */
static uint8_t *read_copy(int fd, const char *file, uint64_t off, uint64_t len) {
  uint8_t *p = len < SIZE_MAX ? malloc(len ? (size_t)len : 1) : NULL;
  if (p && cli_pread_all(fd, p, (size_t)len, off) == len) return p;
  free(p);
  fprintf(stderr, "strata: %s: cannot read its re-ordered copy (at byte %llu)\n", file,
          (unsigned long long)off);
  return NULL;
}

static void print_lines(const wline *v, size_t n, int json) {
  for (size_t i = 0; i < n; i++) {
    const wline *w = &v[i];
    if (json) {
      printf("%s[%lld,%lld,\"%s\",%lld,%lld,", i ? "," : "", (long long)w->pid, (long long)w->key,
             k_kinds[w->kind], (long long)w->start, (long long)w->dur);
      cli_print_json_str(w->name, w->nlen);
      printf(",%llu]", (unsigned long long)w->src);
    } else {
      char name[1024];
      cli_clean(w->name, w->nlen, name, sizeof name);
      printf("%lld\t%lld\t%s\t%lld\t%lld\t%s\t%llu\n", (long long)w->pid, (long long)w->key,
             k_kinds[w->kind], (long long)w->start, (long long)w->dur, name,
             (unsigned long long)w->src);
    }
  }
}

/* The end of --json's object: with --events the list of lines. */
static void end_json(const wline *v, size_t n, int events) {
  if (events) {
    printf(",\"list\":[");
    print_lines(v, n, 1);
    printf("]");
  }
  printf("}\n");
}

/* The window's model: plan, read (from the file, or from its copy when
 * one exists), load. NULL after one line. */
static st_trace *load_window(const char *file, FILE *copy, st_stream *s, const st_trace *summary,
                             int64_t t0, int64_t t1, uint32_t *nranges, uint64_t *bytes) {
  uint32_t cap = 64, n;
  st_stream_range *rg = NULL;
  for (;;) {
    st_stream_range *p = realloc(rg, cap * sizeof *rg);
    if (!p) break;
    rg = p;
    n = st_stream_window_plan(s, t0, t1, rg, cap, bytes);
    if (n <= cap) break;
    cap = n;
  }
  if (!rg) {
    fprintf(stderr, "strata: %s: out of memory\n", file);
    return NULL;
  }
  *nranges = n;
  st_error err;
  st_trace *win = NULL;
  st_stream_window *w = st_stream_window_begin(s, summary, rg, n, &err);
  int fd = !w ? -1 : copy ? dup(fileno(copy)) : open(file, O_RDONLY);
  if (!w)
    fprintf(stderr, "strata: %s: %s (at byte %llu)\n", file, err.msg,
            (unsigned long long)err.offset);
  else if (fd < 0)
    fprintf(stderr, "strata: %s: cannot open\n", file);
  int ok = w && fd >= 0;
  if (ok) st_stream_window_set_span(w, t0, t1);
  for (uint32_t k = 0; ok && k < n; k++) {
    uint8_t *b = copy ? read_copy(fd, file, rg[k].offset, rg[k].length)
                      : cli_stream_read(fd, file, s, rg[k].offset, rg[k].length);
    ok = b && st_stream_window_push(w, k, b, rg[k].length) == ST_OK;
    free(b);
  }
  if (ok) {
    win = st_stream_window_finish(w, &err);
    if (!win || err.code != ST_OK) {
      char line[512];
      st_load_error_line(&err, file, line, sizeof line);
      fprintf(stderr, "strata: %s%s\n", line, win ? " (window kept what was read)" : "");
    }
  }
  if (fd >= 0) close(fd);
  st_stream_window_destroy(w);
  free(rg);
  return win;
}

/* --resident: the whole file loaded, the events meeting [a0, a1] listed as
 * a window's are. */
static int resident_window(const char *file, int64_t a0, int64_t a1, int json, int events) {
  cli_heap heap = {0, 0, NULL};
  st_trace *t = NULL;
  st_error err;
  double ms = 0;
  st_loader *l = cli_load_timed(file, &(cli_feed_opts){0}, NULL, &heap, &t, &err, &ms);
  if (!l) return 1;
  int rc = 1;
  if (t) {
    size_t n = 0;
    wline *v = lines_of(t, a0, a1, &n);
    if (json) {
      printf("{\"schema\":\"strata.window/1\",\"file\":");
      cli_print_json_str(file, strlen(file));
      printf(",\"resident\":true,\"from_us\":");
      cli_print_us(a0);
      printf(",\"to_us\":");
      cli_print_us(a1);
      printf(",\"events\":%zu,\"load_ms\":%.3f,\"heap_bytes\":%llu", n, ms,
             (unsigned long long)heap.peak);
      end_json(v, n, events);
    } else {
      printf("window %s: resident, events %zu (load %.1f ms)\n", file, n, ms);
      if (events) print_lines(v, n, 0);
    }
    free(v);
    st_trace_destroy(t);
    rc = 0;
  }
  st_loader_destroy(l);
  return rc;
}

int strata_cmd_window(int argc, char **argv) {
  const char *file = NULL, *stx = NULL;
  double from_us = 0, to_us = 0;
  int json = 0, events = 0, has_from = 0, has_to = 0, no_copy = 0, resident = 0;
  uint64_t block = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--index") && i + 1 < argc)
      stx = argv[++i];
    else if (!strcmp(a, "--from") && i + 1 < argc)
      from_us = strtod(argv[++i], NULL), has_from = 1;
    else if (!strcmp(a, "--to") && i + 1 < argc)
      to_us = strtod(argv[++i], NULL), has_to = 1;
    else if (!strcmp(a, "--block-bytes") && i + 1 < argc)
      block = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(a, "--json"))
      json = 1;
    else if (!strcmp(a, "--events"))
      events = 1;
    else if (!strcmp(a, "--no-copy"))
      no_copy = 1;
    else if (!strcmp(a, "--resident"))
      resident = 1;
    else if (!file && a[0] != '-')
      file = a;
    else
      return usage();
  }
  if (!file || !has_from || !has_to || !(to_us >= from_us) || (no_copy && resident)) return usage();
  int64_t a0 = (int64_t)llround(from_us * 1000.0), a1 = (int64_t)llround(to_us * 1000.0);
  if (resident) return resident_window(file, a0, a1, json, events);
  cli_heap heap = {0, 0, NULL};
  st_trace *summary = NULL;
  double open_ms = 0;
  st_stream *s = stx ? cli_stream_open(file, stx, &heap, &summary, &open_ms) : NULL;
  int used = s != NULL;
  if (stx && !s) fprintf(stderr, "strata: %s: running the pass instead\n", file);
  if (!s) s = cli_stream_pass(file, block, 0, &heap, &summary, &open_ms);
  if (!s) return 1;
  st_stream_info info;
  st_stream_info_get(s, &info);
  int rc = 1;
  FILE *copy = NULL;
  uint64_t copy_bytes = 0;
  double copy_ms = 0;
  if (info.spill_wanted && !(no_copy && info.windows)) {
    copy = cli_stream_copy(file, s, &copy_bytes, &copy_ms);
    st_stream_info_get(s, &info);
  }
  if (!info.windows) {
    if (!info.spill_wanted)
      fprintf(stderr, "strata: %s: no window loads for this format (%s): its summary is all\n",
              file, st_stream_stats(s)->format);
  } else {
    int64_t origin = st_trace_origin_ns(summary);
    int64_t t0 = st_sat_sub(a0, origin), t1 = st_sat_sub(a1, origin);
    uint32_t nranges = 0;
    uint64_t bytes = 0;
    double w0 = cli_now_ms();
    st_trace *win = load_window(file, copy, s, summary, t0, t1, &nranges, &bytes);
    double wms = cli_now_ms() - w0;
    if (win) {
      size_t n = 0;
      wline *v = lines_of(win, a0, a1, &n);
      if (json) {
        printf("{\"schema\":\"strata.window/1\",\"file\":");
        cli_print_json_str(file, strlen(file));
        printf(",\"index_used\":%s,\"from_us\":", used ? "true" : "false");
        cli_print_us(a0);
        printf(",\"to_us\":");
        cli_print_us(a1);
        printf(",\"ranges\":%u,\"bytes_read\":%llu,\"events\":%zu,\"open_ms\":%.3f,"
               "\"window_ms\":%.3f,\"heap_bytes\":%llu",
               nranges, (unsigned long long)bytes, n, open_ms, wms, (unsigned long long)heap.peak);
        if (copy)
          printf(",\"copy\":true,\"copy_ms\":%.3f,\"copy_bytes\":%llu", copy_ms,
                 (unsigned long long)copy_bytes);
        else
          printf(",\"copy\":false");
        end_json(v, n, events);
      } else {
        printf("window %s: ranges %u, bytes read %llu%s, events %zu (%s %.1f ms, ", file, nranges,
               (unsigned long long)bytes, copy ? " of its re-ordered copy" : "", n,
               used ? "index" : "pass", open_ms);
        if (copy) printf("copy %.1f ms, ", copy_ms);
        printf("window %.1f ms)\n", wms);
        if (events) print_lines(v, n, 0);
      }
      free(v);
      st_trace_destroy(win);
      rc = 0;
    }
  }
  if (copy) fclose(copy);
  st_trace_destroy(summary);
  st_stream_destroy(s);
  return rc;
}
