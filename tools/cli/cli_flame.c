/* cli_flame.c: `strata flame FILE... [--from US] [--to US] [--tid N [--pid N] [--file K]]
 *               [--slices] [--min-share F] [--json]`
 *
 * The viewer's flame graph from the command line (core/index/flame.h): the CPU
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
 * another into one shared string table, placed as the page places them
 * (core/index/profile.h: files with absolute time line up on it) and merged
 * on one timeline (trace.h st_trace_merge): the tree is that of every
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
#include "profile.h"
#include "trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 64 /* as the page's workspace (wasm/app.h ST_APP_MAX_TRACES) */
#define GROUP_CAP 256

static int usage(void) {
  fprintf(stderr,
          "usage: strata flame FILE... [--from US] [--to US] [--tid N [--pid N] [--file K]] "
          "[--slices] [--min-share F] [--json]\n");
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

/* The files loaded into one string table and merged as the page merges
 * them. */
typedef struct profile {
  uint32_t n;
  st_strtab *strings;        /* shared by the files (NULL for one file) */
  st_trace *part[MAX_FILES]; /* each file's own model */
  st_trace *view;            /* the one trace, or the merged one */
  st_trace *merged;          /* owned, NULL for one file */
} profile;

static void profile_free(profile *p) {
  st_trace_destroy(p->merged);
  for (uint32_t k = 0; k < p->n; k++) st_trace_destroy(p->part[k]);
  st_strtab_destroy(p->strings);
  memset(p, 0, sizeof *p);
}

/* Loads files[0, n) (n >= 1); 0, or 1 after a one-line message. */
static int profile_load(profile *p, const char *const *files, uint32_t n, cli_heap *heap) {
  memset(p, 0, sizeof *p);
  st_error err;
  double load_ms;
  if (n == 1) {
    st_loader *l = cli_load_timed(files[0], heap, &p->part[0], &err, &load_ms);
    if (!l) return 1;
    st_loader_destroy(l);
    p->n = 1;
    p->view = p->part[0];
    return 0;
  }
  p->strings = st_strtab_create(NULL);
  st_profile_file pf[MAX_FILES];
  st_profile_clock clocks[MAX_FILES];
  char *meta[MAX_FILES] = {0};
  int64_t offsets[MAX_FILES];
  uint32_t names[MAX_FILES];
  char *groups = calloc(n, GROUP_CAP);
  int rc = p->strings && groups ? 0 : 1;
  if (rc) fprintf(stderr, "strata: out of memory\n");
  for (uint32_t k = 0; k < n && !rc; k++) {
    st_loader *l = cli_load_timed_in(files[k], heap, p->strings, &p->part[k], &err, &load_ms);
    if (!l) {
      rc = 1;
      break;
    }
    p->n = k + 1;
    const char *m = st_loader_metadata_json(l);
    meta[k] = malloc(strlen(m) + 1);
    if (meta[k]) memcpy(meta[k], m, strlen(m) + 1);
    pf[k] = (st_profile_file){p->part[k], st_loader_stats(l)->format, meta[k], files[k]};
    st_profile_clock_get(&pf[k], &clocks[k]); /* before the merge moves its times */
    st_loader_destroy(l);                     /* stats.format is a static name: it stays valid */
    if (!meta[k]) {
      fprintf(stderr, "strata: out of memory\n");
      rc = 1;
    }
  }
  if (!rc && (st_profile_group_names(NULL, pf, n, groups, GROUP_CAP) != ST_OK ||
              st_profile_initial_offsets(clocks, n, offsets) != ST_OK)) {
    fprintf(stderr, "strata: out of memory\n");
    rc = 1;
  }
  for (uint32_t k = 0; k < n && !rc; k++) {
    const char *g = groups + (size_t)k * GROUP_CAP;
    names[k] = st_strtab_intern(p->strings, g, strnlen(g, GROUP_CAP));
    if (names[k] == ST_STR_NONE) names[k] = ST_STR_EMPTY;
  }
  if (!rc) {
    memset(&err, 0, sizeof err);
    p->merged = st_trace_merge(NULL, p->part, names, offsets, n, &err);
    if (!p->merged) {
      fprintf(stderr, "strata: merging the files: %s\n", err.msg[0] ? err.msg : "out of memory");
      rc = 1;
    }
    p->view = p->merged;
  }
  for (uint32_t k = 0; k < n; k++) free(meta[k]);
  free(groups);
  if (rc) profile_free(p);
  return rc;
}

int strata_cmd_flame(int argc, char **argv) {
  const char *files[MAX_FILES];
  uint32_t nfiles = 0;
  int json = 0, slices = 0, has_from = 0, has_to = 0, has_tid = 0, has_pid = 0;
  double from_us = 0, to_us = 0, min_share = 0;
  long long tid = 0, pid = 0, file_k = 0;
  for (int i = 2; i < argc; i++) {
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
  cli_heap heap = {0};
  profile pr;
  if (profile_load(&pr, files, nfiles, &heap)) return 1;
  st_trace *t = pr.view;
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
      profile_free(&pr);
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
  profile_free(&pr);
  return rc;
}
