/* files.c: trace files streamed into the app (see files.h). */
#include "files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES (1u << 20)

/* One file into the batch in progress: 1 loaded (maybe partly), 0 after
 * its line on stderr. */
static int load_one(st_app *app, const char *file, unsigned char *buf) {
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
  size_t n;
  while ((n = fread(buf, 1, CHUNK_BYTES, f)) > 0)
    if (st_app_load_push(app, buf, n) != ST_OK) break; /* the finish says why */
  int read_error = ferror(f);
  fclose(f);
  if (read_error) {
    st_app_load_abort(app);
    fprintf(stderr, "strata: %s: read error\n", file);
    return 0;
  }
  int status = st_app_load_finish(app);
  if (status != ST_APP_LOAD_OK) fprintf(stderr, "strata: %s\n", st_app_error(app));
  return status != ST_APP_LOAD_FAILED;
}

int nv_load_files(st_app *app, const char *const *files, int n) {
  unsigned char *buf = malloc(CHUNK_BYTES);
  if (!buf) {
    fprintf(stderr, "strata: out of memory\n");
    return 0;
  }
  int ok = 1;
  st_app_batch_begin(app);
  for (int k = 0; k < n && ok; k++) ok = load_one(app, files[k], buf);
  /* closed either way; after a failed file the caller gives up */
  free(buf);
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
