/* cli_note.c: the `--note T0[:T1]=TEXT` argument of `strata export` and
 * `strata view` (cli.h cli_note_parse): a note at T0, or over T0..T1 (in
 * either order), in microseconds as the page's link (t=), with a text of at
 * most CLI_NOTE_TEXT_MAX bytes (core/app/app.h ST_APP_NOTE_TEXT).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cli_note_parse(const char *arg, cli_note *out, const char *cmd) {
  const char *eq = strchr(arg, '=');
  char times[128];
  if (!eq || (size_t)(eq - arg) >= sizeof times) {
    fprintf(stderr, "strata: %s: --note %s: expected T0[:T1]=TEXT (times in us)\n", cmd, arg);
    return -1;
  }
  memcpy(times, arg, (size_t)(eq - arg));
  times[eq - arg] = 0;
  char *end;
  double t0 = strtod(times, &end), t1 = t0;
  int range = *end == ':';
  if (range) t1 = strtod(end + 1, &end);
  if (end == times || *end || !isfinite(t0) || !isfinite(t1) || fabs(t0) >= 1e15 ||
      fabs(t1) >= 1e15) {
    fprintf(stderr, "strata: %s: --note %s: T0[:T1] must be numbers (us)\n", cmd, arg);
    return -1;
  }
  if (strlen(eq + 1) > CLI_NOTE_TEXT_MAX) {
    fprintf(stderr, "strata: %s: --note %s: the text is longer than %d bytes\n", cmd, arg,
            CLI_NOTE_TEXT_MAX);
    return -1;
  }
  out->t0_us = t1 < t0 ? t1 : t0;
  out->t1_us = t1 < t0 ? t0 : t1;
  out->text = eq + 1;
  return 0;
}
