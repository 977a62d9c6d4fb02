/* cli_view.c: `strata view FILE... [--screenshot OUT.png] [--size WxH]
 *              [--frame-json OUT.json] [--note T0[:T1]=TEXT]... [--threads N]`
 *
 * The viewer in a native window (native/native.h): the page's app
 * (core/app/app.h) loads the files as one batch (several: placed and
 * merged on one timeline as the page and `strata stats A B` place them)
 * and shows them until the window is closed. --screenshot draws the first complete
 * frame offscreen into a PNG and exits (tests, CI: under Xvfb, or with no
 * display at all through SDL's offscreen EGL driver); --frame-json also
 * writes that frame's draw list. --size is the window in points (CSS px),
 * default 1280x800. --note (cli_note.c) puts a note on the timeline, as
 * the page's n key or a link's notes= does.
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
#include "native.h"
#endif

#define MAX_FILES 256 /* as the app's workspace (core/app/app.h ST_APP_MAX_TRACES) */

static int usage(void) {
  fprintf(stderr, "usage: strata view FILE... [--screenshot OUT.png] [--size WxH] "
                  "[--frame-json OUT.json] [--note T0[:T1]=TEXT]... " CLI_FEED_USAGE "\n");
  return 2;
}

int strata_cmd_view(int argc, char **argv) {
  const char *files[MAX_FILES];
  int nfiles = 0, w = 1280, h = 800;
  const char *png = NULL, *frame_json = NULL;
  double t0[CLI_NOTES_MAX], t1[CLI_NOTES_MAX];
  const char *text[CLI_NOTES_MAX];
  int notes = 0;
  cli_feed_opts fo = {0};
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
  (void)w, (void)h, (void)files, (void)t0, (void)t1, (void)text, (void)fo;
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
  st_native_opts o = {w, h, name, png, frame_json, t0, t1, text, notes, fo};
  return st_native_view(files, nfiles, &o);
#endif
}
