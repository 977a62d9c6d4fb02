/* files.c: trace files read into the app (see files.h). */
#include "files.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

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

int nv_load_files(st_app *app, const char *const *files, int n, const cli_feed_opts *o) {
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
