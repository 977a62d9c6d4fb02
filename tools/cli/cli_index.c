/* cli_index.c: `strata index FILE [-o OUT.stx] [--json]`
 *
 * Streaming mode's pass over FILE (core/import/stream/stream.h: a bounded
 * summary, the block index, exact events, gzip restart points for a
 * compressed file) written as an index file (stream_stx.h; default
 * FILE.stx), so `strata window FILE --index FILE.stx` and the page skip
 * the pass. Prints one line, or with --json one object: {"file", "index",
 * "format", "compressed", "events", "blocks", "exact", "buckets",
 * "bucket_ns", "summary_events", "restart_points", "index_bytes",
 * "pass_ms", "heap_bytes"} (heap_bytes: the pass's peak heap, counted as
 * `strata stats` counts). For tests: --block-bytes N (at least 4096) the
 * block index's granularity (default 4 MiB of decoded bytes), --gz-span N
 * the decoded bytes between gzip restart points (default 4 MiB). Exit 1 with one line if FILE
 * cannot be read or the index not written, 2 on usage errors.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void) {
  fprintf(stderr,
          "usage: strata index FILE [-o OUT.stx] [--json] [--block-bytes N] [--gz-span N]\n");
  return 2;
}

int strata_cmd_index(int argc, char **argv) {
  const char *file = NULL, *out = NULL;
  int json = 0;
  uint64_t block = 0, span = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--block-bytes") && i + 1 < argc)
      block = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--gz-span") && i + 1 < argc)
      span = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!file && argv[i][0] != '-')
      file = argv[i];
    else
      return usage();
  }
  if (!file) return usage();
  char def[4096];
  if (!out) {
    snprintf(def, sizeof def, "%s.stx", file);
    out = def;
  }
  cli_heap heap = {0, 0, NULL};
  st_trace *summary = NULL;
  double ms = 0;
  st_stream *s = cli_stream_pass(file, block, span, &heap, &summary, &ms);
  if (!s) return 1;
  uint64_t bytes = 0;
  int rc = cli_stream_save(file, out, s, summary, &bytes);
  if (!rc) {
    st_stream_info in;
    st_stream_info_get(s, &in);
    const st_stats *st = st_stream_stats(s);
    if (json) {
      printf("{\"file\":");
      cli_print_json_str(file, strlen(file));
      printf(",\"index\":");
      cli_print_json_str(out, strlen(out));
      printf(",\"format\":\"%s\",\"compressed\":%s,\"events\":%llu,\"blocks\":%u,\"exact\":%llu,"
             "\"buckets\":%llu,\"bucket_ns\":%lld,\"summary_events\":%llu,\"restart_points\":%u,"
             "\"index_bytes\":%llu,\"pass_ms\":%.3f,\"heap_bytes\":%llu}\n",
             st->format, in.compressed ? "true" : "false", (unsigned long long)st->events,
             in.blocks, (unsigned long long)in.exact, (unsigned long long)in.buckets,
             (long long)in.bucket_ns, (unsigned long long)in.summary_events, in.restart_points,
             (unsigned long long)bytes, ms, (unsigned long long)heap.peak);
    } else {
      printf("%s: %llu events, %u blocks, %llu exact, %llu buckets of %lld ns, %llu summary "
             "events, %u restart points; %llu bytes; pass %.1f ms, peak heap %llu bytes\n",
             out, (unsigned long long)st->events, in.blocks, (unsigned long long)in.exact,
             (unsigned long long)in.buckets, (long long)in.bucket_ns,
             (unsigned long long)in.summary_events, in.restart_points, (unsigned long long)bytes,
             ms, (unsigned long long)heap.peak);
    }
  }
  st_trace_destroy(summary);
  st_stream_destroy(s);
  return rc;
}
