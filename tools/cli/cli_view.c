/* cli_view.c: `strata view FILE... [--screenshot OUT.png] [--size WxH]
 *              [--frame-json OUT.json] [--note T0[:T1]=TEXT]... [--hash HASH]
 *              [--threads N]`
 *
 * The viewer in a native window (native/native.h): the page's app
 * (core/app/app.h) loads the files as one batch (several: placed and
 * merged on one timeline as the page and `strata stats A B` place them)
 * and shows them until the window is closed. --screenshot draws the first complete
 * frame offscreen into a PNG and exits (tests, CI: under Xvfb, or with no
 * display at all through SDL's offscreen EGL driver); --frame-json also
 * writes that frame's draw list. --size is the window in points (CSS px),
 * default 1280x800. --note (cli_note.c) puts a note on the timeline, as
 * the page's n key or a link's notes= does. --hash takes a page link's view
 * state (`#t=START_US,END_US&sel=ROW:INDEX&cmp=side`, as web/embed.js
 * writes it; other keys are ignored): the window opens at that view with
 * that event selected (what `strata mcp`'s links hand out).
 * Exit 0; 1 after one line on stderr (a file cannot be loaded, no display,
 * no GL ES 3); 2 on usage errors, or when this strata was built without a
 * window (no SDL2 / GLESv2 / stb_truetype at build time).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef STRATA_HAVE_WINDOW
#include <errno.h>

#include "native.h"
#endif

#define MAX_FILES 256 /* as the app's workspace (core/app/app.h ST_APP_MAX_TRACES) */

static int usage(void) {
  fprintf(stderr, "usage: strata view FILE... [--screenshot OUT.png] [--size WxH] "
                  "[--frame-json OUT.json] [--note T0[:T1]=TEXT]... [--hash '#t=T0,T1&sel=R:I'] "
                  "" CLI_FEED_USAGE "\n");
  return 2;
}

/* A link's hash: t=<t0>,<t1> (t1 > t0), sel=<row>:<index>, cmp=side; 0 if
 * a key it knows is malformed. */
static int parse_hash(const char *h, int *side, int *has_view, double *t0, double *t1, int *has_sel,
                      double *row, double *index) {
  if (*h == '#') h++;
  while (*h) {
    size_t n = strcspn(h, "&");
    char part[256];
    if (n < sizeof part) {
      memcpy(part, h, n);
      part[n] = 0;
      char *end;
      if (!strncmp(part, "t=", 2)) {
        *t0 = strtod(part + 2, &end);
        if (*end != ',') return 0;
        *t1 = strtod(end + 1, &end);
        if (*end || !(*t1 > *t0)) return 0;
        *has_view = 1;
      } else if (!strncmp(part, "sel=", 4)) {
        unsigned long r = strtoul(part + 4, &end, 10), i;
        if (*end != ':' || end == part + 4) return 0;
        i = strtoul(end + 1, &end, 10);
        if (*end) return 0;
        *row = (double)r, *index = (double)i, *has_sel = 1;
      } else if (!strcmp(part, "cmp=side")) {
        *side = 1;
      }
    }
    h += n;
    if (*h == '&') h++;
  }
  return 1;
}

#ifdef STRATA_HAVE_WINDOW
/* ---- the files read into the window's app (core/app/app.h) as the CLI reads
 * them (cli_feed.h: on threads, or streamed in 1 MiB reads) ---------------------- */

static st_code app_push(void *ud, const void *data, size_t len) {
  return st_app_load_push(ud, data, len);
}

static st_code app_apply(void *ud, const void *result, size_t rlen, const void *bytes,
                         size_t blen) {
  return st_app_load_apply(ud, result, rlen, bytes, blen);
}

static int app_needs_bytes(void *ud, const void *result, size_t rlen) {
  return st_app_load_apply_needs_bytes(ud, result, rlen);
}

static void app_inflated(void *ud, const st_source_info *info, st_code code, const st_error *err) {
  st_app_load_set_inflated(ud, info, code, err);
}

/* One file into the batch in progress: 1 loaded (maybe partly), 0 after
 * its line on stderr. */
static int load_one(st_app *app, const char *file, const cli_feed_opts *o) {
  FILE *f = fopen(file, "rb");
  if (!f) {
    fprintf(stderr, "strata: %s: cannot open: %s\n", file, strerror(errno));
    return 0;
  }
  if (!st_app_load_begin(app, file)) {
    fprintf(stderr, "strata: %s\n", st_app_error(app));
    fclose(f);
    return 0;
  }
  cli_sink sink = {app_push, app_apply, app_needs_bytes, app, {0}, app_inflated};
  int rc = cli_feed(f, &sink, o, NULL); /* a push that fails: the finish says why */
  fclose(f);
  if (rc) {
    st_app_load_abort(app);
    fprintf(stderr, "strata: %s: %s\n", file,
            rc == CLI_FEED_READ_ERROR ? "read error" : "out of memory");
    return 0;
  }
  int status = st_app_load_finish(app);
  if (status != ST_APP_LOAD_OK) fprintf(stderr, "strata: %s\n", st_app_error(app));
  return status != ST_APP_LOAD_FAILED;
}

/* st_native_load_fn: files[0, n) into the window's app as one batch, as the
 * page's file reader feeds it. 1 when they are shown; 0 after one
 * `strata: FILE: ...` line on stderr for the first file that could not be
 * loaded (nothing is shown then). A file damaged part-way is shown as far
 * as it was read, after the warning line `strata stats` prints. */
static int load_files(void *ud, st_app *app, const char *const *files, int n) {
  const cli_feed_opts *o = ud;
  int ok = 1;
  st_app_batch_begin(app);
  for (int k = 0; k < n && ok; k++) ok = load_one(app, files[k], o);
  /* closed either way; after a failed file the caller gives up */
  uint32_t shown = st_app_batch_end(app);
  if (ok && !shown) {
    fprintf(stderr, "strata: %s\n", st_app_error(app));
    return 0;
  }
  const char *dropped = st_app_dropped(app); /* view too big for memory: files left out */
  for (const char *p = dropped; ok && *p;) {
    size_t len = strcspn(p, "\n");
    fprintf(stderr, "strata: %.*s\n", (int)len, p);
    p += len + (p[len] == '\n');
  }
  return ok;
}
#endif

int strata_cmd_view(int argc, char **argv) {
  const char *files[MAX_FILES];
  int nfiles = 0, w = 1280, h = 800;
  const char *png = NULL, *frame_json = NULL;
  double t0[CLI_NOTES_MAX], t1[CLI_NOTES_MAX];
  const char *text[CLI_NOTES_MAX];
  int notes = 0;
  cli_feed_opts fo = {0};
  int side = 0, has_view = 0, has_sel = 0;
  double v0 = 0, v1 = 0, row = 0, index = 0;
  for (int i = 2; i < argc; i++) {
    int r = cli_feed_opt(argc, argv, &i, &fo, "view");
    if (r < 0) return 2;
    if (r) continue;
    if (!strcmp(argv[i], "--note") && i + 1 < argc) {
      cli_note n;
      if (notes == CLI_NOTES_MAX)
        fprintf(stderr, "strata: view: at most %d notes\n", CLI_NOTES_MAX);
      if (notes == CLI_NOTES_MAX || cli_note_parse(argv[++i], &n, "view") != 0) return 2;
      t0[notes] = n.t0_us, t1[notes] = n.t1_us, text[notes++] = n.text;
    } else if (!strcmp(argv[i], "--hash") && i + 1 < argc) {
      if (!parse_hash(argv[++i], &side, &has_view, &v0, &v1, &has_sel, &row, &index)) {
        fprintf(stderr,
                "strata: view: --hash %s: not a link's view state (#t=T0,T1&sel=ROW:INDEX)\n",
                argv[i]);
        return 2;
      }
    } else if (!strcmp(argv[i], "--screenshot") && i + 1 < argc) {
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
  (void)w, (void)h, (void)files, (void)t0, (void)t1, (void)text, (void)fo, (void)side,
      (void)has_view, (void)has_sel, (void)v0, (void)v1, (void)row, (void)index;
#ifdef STRATA_PORTABLE /* the Python package's CLI (CMakeLists.txt strata-portable) */
  fprintf(stderr, "strata: view: the strata of the Python package has no native window; "
                  "`python -m strata view FILE...` opens the files in the browser\n");
#else
  fprintf(stderr, "strata: view: this strata was built without a window (SDL2, GLESv2 and "
                  "stb_truetype were not found at build time)\n");
#endif
  return 2;
#else
  char name[300];
  if (nfiles == 1) {
    const char *slash = strrchr(files[0], '/');
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : files[0]);
  } else {
    snprintf(name, sizeof name, "%d traces", nfiles);
  }
  st_native_opts o = {w,          h,   name, png,      frame_json, t0, t1, text, notes,
                      load_files, &fo, side, has_view, has_sel,    v0, v1, row,  index};
  return st_native_view(files, nfiles, &o);
#endif
}
