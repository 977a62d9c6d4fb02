/* files.h: trace files read into the app (core/app/app.h), as the page's
 * file reader feeds it: one batch, each file read as the CLI reads it
 * (tools/cli/cli_feed.h: on threads, or streamed in 1 MiB reads). */
#ifndef STRATA_NATIVE_FILES_H
#define STRATA_NATIVE_FILES_H

#include "app.h"
#include "cli_feed.h"

/* Loads files[0, n) as one batch (several: merged on one timeline). 1 when
 * they are shown; 0 after one `strata: FILE: ...` line on stderr for the
 * first file that could not be loaded (nothing is shown then). A file
 * damaged part-way is shown as far as it was read, after the warning line
 * `strata stats` prints. */
int nv_load_files(st_app *app, const char *const *files, int n, const cli_feed_opts *o);

#endif
