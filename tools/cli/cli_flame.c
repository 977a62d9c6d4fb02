/* cli_flame.c: `strata flame FILE... [--from US] [--to US] [--tid N [--pid N] [--file K]]
 *               [--slices] [--min-share F] [--json] [--threads N]`
 *
 * The viewer's flame graph from the command line (core/analysis/flame.h): the CPU
 * samples (default) or the nested slices (--slices) of a time range
 * [--from, --to) given in the file's microseconds (default: the whole
 * trace), on one thread (--tid, and --pid if tids repeat across processes)
 * or all. Prints the call tree in preorder, one node per line:
 *   <total> <self> <total time> <self time> <indent by depth><name>
 * (samples: totals count samples, times are samples x the thread's
 * sampling interval; slices: totals are ns). --json prints
 * core/ui/panel.h's st_panel_flame_json object. --min-share leaves out
 * nodes below that share of the root (default 0: every node).
 *
 * Several files (a profile: one per host or rank) are loaded one after
 * another into a trace set (core/set/traceset.h: one shared string table),
 * placed as the page places them (files with absolute time line up on it)
 * and merged on one timeline: the tree is that of every
 * file's samples (or slices), stacks merged by function name, as the
 * page's flame graph with those files open. --from / --to are then in the
 * first file's microseconds (the merged view's clock, as in the page);
 * --tid takes the first file that has the thread, or file K (1-based)
 * with --file K.
 * Exit 1 if a file cannot be loaded, 2 on usage errors (or an unknown
 * thread).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include "flame.h"
#include "panel.h"
#include "trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES ST_TRACESET_MAX /* as the page's workspace */

static int usage(void) {
  fprintf(stderr,
          "usage: strata flame FILE... [--from US] [--to US] [--tid N [--pid N] [--file K]] "
          "[--slices] [--min-share F] [--json] " CLI_FEED_USAGE "\n");
  return 2;
}

/* A thread track with this tid (and pid) among tracks [lo, hi), UINT32_MAX
 * if none. */
static uint32_t find_thread(const st_trace *t, uint32_t lo, uint32_t hi, long long tid, int has_pid,
                            long long pid) {
  uint32_t nt, np;
  const st_track *tr = st_trace_tracks(t, &nt);
  const st_process *pr = st_trace_processes(t, &np);
  for (uint32_t i = lo; i < hi && i < nt; i++) {
    if (tr[i].kind != ST_TRACK_SLICES && tr[i].kind != ST_TRACK_SAMPLES) continue;
    if (tr[i].key != tid) continue;
    if (has_pid && (tr[i].process >= np || pr[tr[i].process].pid != pid)) continue;
    return i;
  }
  return UINT32_MAX;
}

int strata_cmd_flame(int argc, char **argv) {
  const char *files[MAX_FILES];
  uint32_t nfiles = 0;
  int json = 0, slices = 0, has_from = 0, has_to = 0, has_tid = 0, has_pid = 0;
  double from_us = 0, to_us = 0, min_share = 0;
  long long tid = 0, pid = 0, file_k = 0;
  cli_feed_opts fo = {0};
  for (int i = 2; i < argc; i++) {
    int r = cli_feed_opt(argc, argv, &i, &fo, "flame");
    if (r < 0) return 2;
    if (r) continue;
    const char *a = argv[i];
    if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--slices")) {
      slices = 1;
    } else if (!strcmp(a, "--from") && i + 1 < argc) {
      from_us = strtod(argv[++i], NULL);
      has_from = 1;
    } else if (!strcmp(a, "--to") && i + 1 < argc) {
      to_us = strtod(argv[++i], NULL);
      has_to = 1;
    } else if (!strcmp(a, "--tid") && i + 1 < argc) {
      tid = strtoll(argv[++i], NULL, 10);
      has_tid = 1;
    } else if (!strcmp(a, "--pid") && i + 1 < argc) {
      pid = strtoll(argv[++i], NULL, 10);
      has_pid = 1;
    } else if (!strcmp(a, "--file") && i + 1 < argc) {
      file_k = strtoll(argv[++i], NULL, 10);
    } else if (!strcmp(a, "--min-share") && i + 1 < argc) {
      min_share = strtod(argv[++i], NULL);
    } else if (a[0] != '-' && nfiles < MAX_FILES) {
      files[nfiles++] = a;
    } else {
      if (a[0] != '-') fprintf(stderr, "strata: flame: at most %d files\n", MAX_FILES);
      return usage();
    }
  }
  if (!nfiles || !(min_share >= 0 && min_share <= 1) || file_k < 0 || (uint64_t)file_k > nfiles ||
      (file_k && !has_tid))
    return usage();
  cli_set cs; /* merged as the page merges them */
  if (cli_set_load(&cs, files, nfiles, 0, &fo)) {
    cli_set_free(&cs);
    return 1;
  }
  st_trace *t = st_traceset_view(cs.set);
  const char *what = nfiles == 1 ? files[0] : "the files";

  int64_t origin = st_trace_origin_ns(t);
  st_flame_query q = {.source = slices ? ST_FLAME_SLICES : ST_FLAME_SAMPLES,
                      .t0 = 0,
                      .t1 = st_trace_duration_ns(t) + 1,
                      .track = UINT32_MAX};
  if (has_from) q.t0 = (int64_t)llround(from_us * 1000.0) - origin;
  if (has_to) q.t1 = (int64_t)llround(to_us * 1000.0) - origin;
  if (has_tid) {
    uint32_t lo = 0, hi = UINT32_MAX;
    if (file_k) { /* that file's tracks only */
      const st_trace_part *parts = st_trace_parts(t, NULL);
      if (parts) {
        lo = parts[file_k - 1].track_base;
        hi = lo + parts[file_k - 1].track_count;
      }
      what = files[file_k - 1];
    }
    q.track = find_thread(t, lo, hi, tid, has_pid, pid);
    if (q.track == UINT32_MAX) {
      fprintf(stderr, "strata: %s: no thread with tid %lld%s\n", what, tid,
              has_pid ? " in that process" : "");
      cli_set_free(&cs);
      return 2;
    }
  }
  st_flame *f = st_flame_create(NULL);
  st_panel_buf b = {0};
  st_alloc a = {0};
  st_code c = f ? st_flame_build(f, t, &q) : ST_ERR_NOMEM;
  if (c == ST_OK && json) c = st_panel_flame_json(&b, t, f, min_share, UINT32_MAX, &a);
  int rc = 0;
  if (c != ST_OK) {
    fprintf(stderr, "strata: %s: %s\n", what, c == ST_ERR_NOMEM ? "out of memory" : "bad range");
    rc = 1;
  } else if (json) {
    printf("%s\n", b.text);
  } else {
    uint32_t n;
    const st_flame_node *nodes = st_flame_nodes(f, &n);
    const st_strtab *s = st_trace_strings(t);
    char of[48] = "";
    if (nfiles > 1) snprintf(of, sizeof of, " of %u files", nfiles);
    printf("%s flame%s: %llu %s, %u nodes\n", slices ? "slice" : "sample", of,
           (unsigned long long)st_flame_events(f), slices ? "slices" : "samples", n);
    double root = n ? (double)nodes[0].total : 0;
    for (uint32_t i = 0; i < n;) {
      const st_flame_node *o = &nodes[i];
      if (i && (double)o->total < min_share * root) {
        i = o->end > i ? o->end : i + 1;
        continue;
      }
      char tt[48], st[48];
      st_format_dur((double)o->total_ns, tt, sizeof tt);
      st_format_dur((double)o->self_ns, st, sizeof st);
      size_t len;
      const char *name = i ? st_strtab_get(s, o->name, &len) : "all";
      if (!i) len = 3;
      printf("%llu\t%llu\t%s\t%s\t%*s%.*s\n", (unsigned long long)o->total,
             (unsigned long long)o->self, tt, st, (int)(2 * (o->depth > 40 ? 40 : o->depth)), "",
             (int)(len > 300 ? 300 : len), name);
      i++;
    }
  }
  st_panel_buf_free(&b, &a);
  st_flame_destroy(f);
  cli_set_free(&cs);
  return rc;
}
