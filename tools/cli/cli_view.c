/* cli_view.c: `strata view FILE... [--screenshot OUT.png] [--size WxH]
 *              [--frame-json OUT.json]`
 *
 * The viewer in a native window (native/native.h): the files are loaded
 * (several: into one string table, placed and merged on one timeline as
 * the page and `strata stats A B` place them, core/index/profile.h) and
 * shown until the window is closed. --screenshot draws the first complete
 * frame offscreen into a PNG and exits (tests, CI: under Xvfb, or with no
 * display at all through SDL's offscreen EGL driver); --frame-json also
 * writes that frame's draw list. --size is the window in points (CSS px),
 * default 1280x800.
 * Exit 0; 1 after one line on stderr (a file cannot be loaded, no display,
 * no GL ES 3); 2 on usage errors, or when this strata was built without a
 * window (no SDL2 / GLESv2 / stb_truetype at build time).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include "profile.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef STRATA_HAVE_WINDOW
#include "native.h"
#endif

#define MAX_FILES 64 /* as the page's workspace */
#define GROUP_CAP 256

static int usage(void) {
  fprintf(stderr, "usage: strata view FILE... [--screenshot OUT.png] [--size WxH] "
                  "[--frame-json OUT.json]\n");
  return 2;
}

#ifdef STRATA_HAVE_WINDOW
/* The files loaded into one string table and merged as the page merges
 * them (one file: itself). */
typedef struct shown {
  cli_heap heap; /* the models allocate through it: it lives as long as they do */
  uint32_t n;
  st_strtab *strings;
  st_trace *part[MAX_FILES];
  st_trace *view, *merged;
} shown;

static void shown_free(shown *p) {
  st_trace_destroy(p->merged);
  for (uint32_t k = 0; k < p->n; k++) st_trace_destroy(p->part[k]);
  st_strtab_destroy(p->strings);
  memset(p, 0, sizeof *p);
}

/* Loads files[0, n); 0, or 1 after a one-line message. A file damaged
 * part-way is shown as far as it was read, with the warning `strata stats`
 * prints. */
static int shown_load(shown *p, const char *const *files, uint32_t n) {
  memset(p, 0, sizeof *p);
  p->strings = n > 1 ? st_strtab_create(NULL) : NULL;
  st_profile_file pf[MAX_FILES];
  st_profile_clock clocks[MAX_FILES];
  int64_t offsets[MAX_FILES];
  uint32_t names[MAX_FILES];
  char *meta[MAX_FILES] = {0};
  char *groups = calloc(n, GROUP_CAP);
  int rc = (n == 1 || p->strings) && groups ? 0 : 1;
  if (rc) fprintf(stderr, "strata: out of memory\n");
  for (uint32_t k = 0; k < n && !rc; k++) {
    cli_loaded ld;
    st_error err;
    double ms;
    st_loader *l = cli_load_timed_in(files[k], &p->heap, p->strings, &p->part[k], &err, &ms);
    if (!l) {
      rc = 1;
      break;
    }
    p->n = k + 1;
    memset(&ld, 0, sizeof ld);
    ld.file = files[k], ld.stats = *st_loader_stats(l), ld.err = err;
    cli_warn_damaged(&ld);
    const char *m = st_loader_metadata_json(l);
    meta[k] = malloc(strlen(m) + 1);
    if (meta[k])
      memcpy(meta[k], m, strlen(m) + 1);
    else
      rc = 1, fprintf(stderr, "strata: out of memory\n");
    pf[k] = (st_profile_file){p->part[k], ld.stats.format, meta[k], files[k]};
    st_profile_clock_get(&pf[k], &clocks[k]); /* before the merge moves its times */
    st_loader_destroy(l);
  }
  p->view = p->part[0];
  if (!rc && n > 1 &&
      (st_profile_group_names(NULL, pf, n, groups, GROUP_CAP) != ST_OK ||
       st_profile_initial_offsets(clocks, n, offsets) != ST_OK)) {
    fprintf(stderr, "strata: out of memory\n");
    rc = 1;
  }
  for (uint32_t k = 0; k < n && n > 1 && !rc; k++) {
    const char *g = groups + (size_t)k * GROUP_CAP;
    names[k] = st_strtab_intern(p->strings, g, strnlen(g, GROUP_CAP));
    if (names[k] == ST_STR_NONE) names[k] = ST_STR_EMPTY;
  }
  st_error err;
  memset(&err, 0, sizeof err);
  if (!rc && n > 1 &&
      !(p->view = p->merged = st_trace_merge(NULL, p->part, names, offsets, n, &err))) {
    fprintf(stderr, "strata: merging the files: %s\n", err.msg[0] ? err.msg : "out of memory");
    rc = 1;
  }
  for (uint32_t k = 0; k < n; k++) free(meta[k]);
  free(groups);
  if (rc) shown_free(p);
  return rc;
}
#endif

int strata_cmd_view(int argc, char **argv) {
  const char *files[MAX_FILES];
  int nfiles = 0, w = 1280, h = 800;
  const char *png = NULL, *frame_json = NULL;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--screenshot") && i + 1 < argc) {
      png = argv[++i];
    } else if (!strcmp(argv[i], "--frame-json") && i + 1 < argc) {
      frame_json = argv[++i];
    } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
      char x;
      if (sscanf(argv[++i], "%d%c%d", &w, &x, &h) != 3 || (x != 'x' && x != 'X') || w < 64 ||
          h < 64 || w > 16384 || h > 16384)
        return usage();
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return usage();
    } else if (nfiles < MAX_FILES) {
      files[nfiles++] = argv[i];
    } else {
      fprintf(stderr, "strata: view: at most %d files\n", MAX_FILES);
      return 2;
    }
  }
  if (!nfiles || (frame_json && !png)) return usage();
#ifndef STRATA_HAVE_WINDOW
  (void)w, (void)h, (void)files;
  fprintf(stderr, "strata: view: this strata was built without a window (SDL2, GLESv2 and "
                  "stb_truetype were not found at build time)\n");
  return 2;
#else
  shown sh;
  if (shown_load(&sh, files, (uint32_t)nfiles)) return 1;
  char name[300];
  if (nfiles == 1) {
    const char *slash = strrchr(files[0], '/');
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : files[0]);
  } else {
    snprintf(name, sizeof name, "%d traces", nfiles);
  }
  st_native_opts o = {w, h, name, png, frame_json};
  int rc = st_native_view(sh.view, &o);
  shown_free(&sh);
  return rc;
#endif
}
