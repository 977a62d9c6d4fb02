/* cli.h: commands of the `strata` CLI that live in their own file
 * (tools/cli_<command>.c); tools/cli/strata_cli.c's main() dispatches to them.
 * Each takes the arguments after the command name's position as main() got
 * them (argv[0] = "strata", argv[1] = the command) and returns the exit code. */
#ifndef STRATA_CLI_H
#define STRATA_CLI_H

#include "argsrc.h"
#include "cli_feed.h"
#include "json_out.h"
#include "load.h"
#include "traceset.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* strata bench FILE [--json] [--passes N] [--frames]: see tools/cli/cli_bench.c */
int strata_cmd_bench(int argc, char **argv);

/* strata export TRACE -o OUT.html [--dist DIR] [--name NAME] [--note T0[:T1]=TEXT]...,
 * strata export --viewer-only
 * -o OUT.html [--dist DIR]: see tools/cli/cli_export.c */
int strata_cmd_export(int argc, char **argv);
/* strata args FILE [--at SRC]... [--name TEXT] [--limit N]: see tools/cli/cli_args.c */
int strata_cmd_args(int argc, char **argv);
/* One event's args (end_src: its end event's, UINT64_MAX if none), the
 * decoded bytes the query asks for read by read(ud, offset, length, &got)
 * (NULL: they cannot be read): the query, its result ready when *c is
 * ST_OK (st_args_query_result; st_args_query_end it in any case). */
st_args_query *cli_args_read(const st_argsrc *as, uint64_t src, uint64_t end_src,
                             const uint8_t *(*read)(void *ud, uint64_t off, uint64_t len,
                                                    size_t *got),
                             void *ud, st_code *c, st_error *err);
/* strata flame FILE... [--from US] [--to US] [--tid N [--pid N] [--file K]] [--slices]
 * [--min-share F] [--json]: see tools/cli/cli_flame.c */
int strata_cmd_flame(int argc, char **argv);
/* strata search FILE TEXT [--args] [--json] [--limit N]: see tools/cli/cli_search.c */
int strata_cmd_search(int argc, char **argv);
/* strata diff A B [--by name|cat] [--json] [--range-a T0,T1] [--range-b T0,T1] [--step N]
 * [--sort COL] [--asc] [--limit N]: see tools/cli/cli_diff.c */
int strata_cmd_diff(int argc, char **argv);
/* strata view FILE... [--screenshot OUT.png] [--size WxH] [--frame-json OUT.json]
 * [--note T0[:T1]=TEXT]...: the
 * viewer in a native window, see tools/cli/cli_view.c and native/native.h */
int strata_cmd_view(int argc, char **argv);
/* strata analyze FILE... [--json] [--step-name NAME] [--ops N] [--gaps N] [--from US --to US |
 * --step N] [--hist NAME]: see tools/cli/cli_analyze.c */
int strata_cmd_analyze(int argc, char **argv);
/* strata manifest DIR [-o profile.json] [--json]: a profile's files in one
 * JSON manifest the page opens, see tools/cli/cli_manifest.c */
int strata_cmd_manifest(int argc, char **argv);
int strata_cmd_mcp(int argc, char **argv);
/* strata stats's options (tools/cli/strata_cli.c) */
typedef struct cli_stats_opts {
  int json, digest, load_info; /* --json, --digest, --load-info given */
  cli_feed_opts feed;          /* --threads, --task-bytes */
} cli_stats_opts;
/* strata stats A B ... [--json] [--digest] [--load-info]: see
 * tools/cli/cli_stats_many.c (files = argv entries that are not options) */
int strata_cmd_stats_many(const char *const *files, int n, const cli_stats_opts *o);

/* ---- --note T0[:T1]=TEXT (tools/cli/cli_note.c) ------------------------------- */

#define CLI_NOTES_MAX 64      /* as core/app/app.h ST_APP_MAX_NOTES */
#define CLI_NOTE_TEXT_MAX 200 /* as ST_APP_NOTE_TEXT */
typedef struct cli_note {
  double t0_us, t1_us; /* t0 <= t1; equal: a time */
  const char *text;    /* points into the argument */
} cli_note;
/* 0 and *out filled, or -1 after one line "strata: CMD: --note ...: why". */
int cli_note_parse(const char *arg, cli_note *out, const char *cmd);

/* ---- loading a trace file (tools/cli/cli_load.c) ----------------------------- */

/* A heap counter for cli_counting_alloc (an st_alloc function; ud = the
 * cli_heap): current and peak bytes in use. Atomic: the threads of a split
 * import (cli_feed.h) count into it at once. */
typedef struct cli_heap {
  _Atomic size_t current, peak;
  struct cli_heap *parent; /* NULL, or a heap counting several loads together */
} cli_heap;
void *cli_counting_alloc(void *ud, void *ptr, size_t size);

/* CLOCK_MONOTONIC in milliseconds. */
double cli_now_ms(void);
/* Clock id in milliseconds (CLOCK_PROCESS_CPUTIME_ID: the CPU time of all
 * threads; CLOCK_THREAD_CPUTIME_ID: this thread's). */
double cli_clock_ms(clockid_t id);

/* Opens FILE and reads it (cli_feed: on o->threads threads, or streamed in
 * 1 MiB reads) into a loader allocating through cli_counting_alloc(heap),
 * as do the threads for their tasks' bytes and results; *used (may be
 * NULL) says how it was read, *load_ms is the wall time from creating the
 * loader to st_loader_finish. Returns the finished loader (its stats stay
 * valid until the caller destroys it) with *out the trace and *err the
 * finish status (not ST_OK for a trace damaged part-way: what was read is
 * kept); or NULL after one `strata: FILE: ...` line on stderr (cannot open,
 * out of memory, read error, no trace). */
st_loader *cli_load_timed(const char *file, const cli_feed_opts *o, cli_feed_used *used,
                          cli_heap *heap, st_trace **out, st_error *err, double *load_ms);
/* Reads the open file f (named `file`) into a default loader as
 * cli_load_timed does; f stays open (rewind it to read it again). Returns
 * the finished loader with *out the trace, or NULL after one `strata: ...`
 * line on stderr. */
st_loader *cli_load_stream(FILE *f, const char *file, const cli_feed_opts *o, st_trace **out,
                           st_error *err);

/* ---- streaming mode (tools/cli/cli_stream.c) --------------------------------- */

typedef struct st_stream st_stream;
/* strata index FILE [-o OUT.stx] [--json]: see tools/cli/cli_index.c */
int strata_cmd_index(int argc, char **argv);
/* strata window FILE [--index FILE.stx] --from US --to US [--json] [--events]:
 * see tools/cli/cli_window.c */
int strata_cmd_window(int argc, char **argv);
/* The pass over file (stream.h; block_bytes, gz_span 0: the defaults), allocating through heap;
 * *summary its summary, *ms its wall time. NULL after one `strata: FILE: ...` line. */
st_stream *cli_stream_pass(const char *file, uint64_t block_bytes, uint64_t gz_span, cli_heap *heap,
                           st_trace **summary, double *ms);
/* The index of finished stream s (a pass over file) written to out (through
 * out.tmp, renamed); *bytes its size. 0, or 1 after one line. */
int cli_stream_save(const char *file, const char *out, const st_stream *s, const st_trace *summary,
                    uint64_t *bytes);
/* file's stream from its index stx, checked against file (stream_stx.h).
 * NULL after one `strata: STX: ...` line (not an index, damaged, or "index
 * does not match FILE: ...": the caller runs the pass instead). */
st_stream *cli_stream_open(const char *file, const char *stx, cli_heap *heap, st_trace **summary,
                           double *ms);
/* Reads len bytes at off of fd (pread until done); the bytes read. */
size_t cli_pread_all(int fd, uint8_t *p, size_t len, uint64_t off);
/* Decoded bytes [off, off + len) of s's file (open as fd): pread, or
 * through the gzip restart points. malloc'd, or NULL after one line. */
uint8_t *cli_stream_read(int fd, const char *file, const st_stream *s, uint64_t off, uint64_t len);
/* The re-ordered copy of s's file (stream.h st_stream_spill: windows of an
 * unsorted or protobuf trace) in an anonymous temporary file (tmpfile:
 * gone when closed), *bytes its size, *ms the second pass's wall time.
 * NULL after one `strata: FILE: ...` line. */
FILE *cli_stream_copy(const char *file, st_stream *s, uint64_t *bytes, double *ms);

/* ---- several files as one set (core/set/traceset.h) ------------------------- */

/* The files of a multi-file command in a trace set, loaded one after
 * another (each read as cli_load_timed reads it). Merged (flame): one
 * string table and the set's view built; unmerged (stats, diff): each
 * file as if loaded alone. Each file's load_ms is its wall time and heap_bytes the peak heap its
 * load added (the loaders and models, counted through `window`; `total` holds the joint peak of all
 * the loads: each model stays while the next file loads). A cli_set must not move once loaded (the
 * set counts into it). */
typedef struct cli_set {
  st_traceset *set;
  cli_heap window, total;
  st_trace_handle *handles; /* per file, in the order given (= the view's parts) */
  st_error *errs;           /* per file: its finish status (not ST_OK: damaged part-way) */
  cli_feed_used *used;      /* per file: how it was read */
  const char *const *files;
  uint32_t n;
  cli_feed_opts opts;
} cli_set;

/* Loads files[0, n) (n >= 1) into a new set. Returns 0, or 1 after one
 * `strata: ...` line on stderr (cannot open, read error, not a trace, out
 * of memory, the view of them all not built); cli_set_free either way. */
int cli_set_load(cli_set *cs, const char *const *files, uint32_t n, int unmerged,
                 const cli_feed_opts *o);
void cli_set_free(cli_set *cs);
/* File k's entry (traceset.h st_traceset_file). */
st_traceset_file cli_set_file(const cli_set *cs, uint32_t k);
/* The warning lines `strata stats` prints for files damaged part-way or
 * truncated (nothing for the others), in file order. */
void cli_set_warn_damaged(const cli_set *cs);

/* st_trace_digest(t) as 64 lowercase hex digits and a NUL in hex[65]. */
static inline void cli_trace_digest_hex(const st_trace *t, char hex[65]) {
  uint8_t d[32];
  st_trace_digest(t, d);
  st_hex_lower(d, sizeof d, hex);
}

/* ---- JSON strings on stdout ------------------------------------------------- */

/* s[0, n) as text for a table, NUL-terminated in out[cap]: names are
 * untrusted bytes, control characters shown as '?'. */
static inline void cli_clean(const char *s, size_t n, char *out, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < cap; i++) out[k++] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
  out[k] = 0;
}

/* Where name i of names[0, count) first differs from the others (1 + its
 * longest common prefix with any other): the part a short form keeps. */
static inline size_t cli_differs_at(const char *const *names, const size_t *lens, size_t count,
                                    size_t i) {
  size_t best = 0;
  for (size_t j = 0; j < count; j++) {
    if (j == i) continue;
    size_t k = 0, m = lens[i] < lens[j] ? lens[i] : lens[j];
    while (k < m && names[i][k] == names[j][k]) k++;
    if (k > best) best = k;
  }
  return best + 1;
}

/* A name of n bytes cut in the middle to at most width bytes (web/guide/figures.md "names
 * you can tell apart"): its first third, "...", its end; when it differs
 * from the table's other names (at byte d, cli_differs_at) inside the part
 * cut, the part from just before d instead of the end, and "..." after.
 * Cuts fall on UTF-8 character starts; control characters shown as '?'.
 * width 0 or n <= width: whole. out holds width + 1 bytes (n + 1 whole). */
static inline void cli_short(const char *s, size_t n, size_t d, size_t width, char *out,
                             size_t cap) {
  if (!width || n <= width || width < 12) {
    cli_clean(s, n, out, cap);
    return;
  }
#define CLI_CHAR_START(i) ((i) >= n || ((unsigned char)s[(i)] & 0xC0) != 0x80)
  size_t head = width / 3;
  while (head > 0 && !CLI_CHAR_START(head)) head--;
  size_t room = width - head - 3; /* after the first "..." */
  size_t from = n - room, to = n;
  if (d > head && d < from) { /* the difference falls in the cut part */
    room -= 3;                /* a second "..." at the end */
    from = d > 8 ? d - 8 : d;
    if (from < head) from = head;
    to = from + room;
    if (to > n) to = n;
  }
  while (from < n && !CLI_CHAR_START(from)) from++;
  while (to < n && to > from && !CLI_CHAR_START(to)) to--;
#undef CLI_CHAR_START
  char tmp[1024];
  size_t k = 0;
  for (size_t i = 0; i < head && k + 1 < sizeof tmp; i++) tmp[k++] = s[i];
  for (int i = 0; i < 3 && k + 1 < sizeof tmp; i++) tmp[k++] = '.';
  for (size_t i = from; i < to && k + 1 < sizeof tmp; i++) tmp[k++] = s[i];
  for (int i = 0; to < n && i < 3 && k + 1 < sizeof tmp; i++) tmp[k++] = '.';
  cli_clean(tmp, k, out, cap);
}

/* Prints s[0, n) to stdout as a JSON string, written by json_out.h (quotes,
 * backslashes and control characters escaped; other bytes as they are). */
static inline void cli_print_json_str(const char *s, size_t n) {
  st_jout o = {.grow = 1};
  st_jout_str_as(&o, s, n, 0);
  if (o.buf) fwrite(o.buf, 1, o.len, stdout);
  st_free(NULL, o.buf);
}

/* Prints ns as exact decimal microseconds ("1500.25", "-3", "0.001"). */
static inline void cli_print_us(int64_t ns) {
  uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  char f[8];
  snprintf(f, sizeof f, "%03u", (unsigned)(m % 1000));
  size_t fl = 3;
  while (fl > 0 && f[fl - 1] == '0') fl--;
  f[fl] = 0;
  printf("%s%llu%s%s", ns < 0 ? "-" : "", (unsigned long long)(m / 1000), fl ? "." : "", f);
}

#endif
