/* cli_search.c: `strata search FILE TEXT [--args] [--json] [--limit N] [--threads N]`
 *
 * The viewer's search, from the command line: the trace is loaded, TEXT is
 * searched case-insensitively in every event name (core/index/query.h) and, with
 * --args, in every event's args by a second streaming pass over the file
 * (core/import/args/args_search.h; JSON, XSpace and Perfetto, gzip'd or not; events
 * whose args cannot be decoded are skipped and counted). Prints the match
 * count, the times taken and the first N matches in time order (default
 * 10; 0 = all): `<src>\t<start ns>\t<name>`. --json prints one object:
 *   {"text","args","matches","names_ms","args_ms","decoded_bytes","skipped",
 *    "first":[{"src","row","index","start_ns","dur_ns","name"}...]}
 * Exit 1 if the file cannot be loaded or the args pass fails, 2 on usage
 * errors.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include "args_search.h"
#include "argsrc.h"
#include "load.h"
#include "query.h"
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES (1u << 20)

static int usage(void) {
  fprintf(stderr,
          "usage: strata search FILE TEXT [--args] [--json] [--limit N] " CLI_FEED_USAGE "\n");
  return 2;
}

int strata_cmd_search(int argc, char **argv) {
  const char *file = NULL, *text = NULL;
  int args = 0, json = 0;
  long limit = 10;
  cli_feed_opts fo = {0};
  for (int i = 2; i < argc; i++) {
    int r = cli_feed_opt(argc, argv, &i, &fo, "search");
    if (r < 0) return 2;
    if (r) continue;
    if (strcmp(argv[i], "--args") == 0) {
      args = 1;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
      limit = strtol(argv[++i], NULL, 10);
    } else if (!file && argv[i][0] != '-') {
      file = argv[i];
    } else if (!text) {
      text = argv[i];
    } else {
      return usage();
    }
  }
  if (!file || !text || !*text) return usage();
  FILE *f = fopen(file, "rb");
  if (!f) {
    fprintf(stderr, "strata: %s: cannot open: %s\n", file, strerror(errno));
    return 1;
  }
  static uint8_t chunk[CHUNK_BYTES];
  size_t n;
  st_error err;
  st_trace *t = NULL;
  st_loader *l = cli_load_stream(f, file, &fo, &t, &err);
  if (!l) {
    fclose(f);
    return 1;
  }
  st_argsrc *as = st_loader_take_args_source(l);
  st_loader_destroy(l);

  int rc = 0;
  st_find *fd = st_find_create(NULL, t);
  double t0 = cli_now_ms();
  st_code c = fd ? st_find_set(fd, text, strlen(text)) : ST_ERR_NOMEM;
  double names_ms = cli_now_ms() - t0, args_ms = 0;
  uint64_t decoded = 0, skipped = 0;
  if (c != ST_OK) {
    fprintf(stderr, "strata: %s: out of memory\n", file);
    rc = 1;
  } else if (args) {
    t0 = cli_now_ms();
    st_args_search *s = st_args_search_create_for(NULL, as, t, text, strlen(text), &err);
    if (s) {
      rewind(f);
      while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (st_args_search_push(s, chunk, n, &err) != ST_OK) break;
      if (!ferror(f) && err.code == ST_OK) st_args_search_finish(s, &err);
    }
    if (s && err.code == ST_OK) {
      size_t nh;
      const uint64_t *hits = st_args_search_hits(s, &nh);
      c = st_find_add_srcs(fd, hits, nh);
      if (c != ST_OK) st_error_set(&err, c, 0, "out of memory mapping the args hits to events");
      decoded = st_args_search_decoded(s);
      skipped = st_args_search_skipped(s);
    }
    args_ms = cli_now_ms() - t0;
    if (!s || err.code != ST_OK || c != ST_OK) {
      fprintf(stderr, "strata: %s: %s\n", file, err.msg[0] ? err.msg : st_code_name(err.code));
      rc = 1;
    }
    st_args_search_destroy(s);
  }
  if (rc == 0) {
    const st_strtab *strs = st_trace_strings(t);
    uint64_t count = st_find_count(fd);
    if (json) {
      printf("{\"schema\":\"strata.search/1\",\"text\":");
      cli_print_json_str(text, strlen(text));
      printf(",\"args\":%s,\"matches\":%llu,\"names_ms\":%.3f,\"args_ms\":%.3f,"
             "\"decoded_bytes\":%llu,\"skipped\":%llu,\"first\":[",
             args ? "true" : "false", (unsigned long long)count, names_ms, args_ms,
             (unsigned long long)decoded, (unsigned long long)skipped);
    } else {
      printf("%llu match%s for \"%s\"%s (names %.1f ms", (unsigned long long)count,
             count == 1 ? "" : "es", text, args ? " in names and args" : " in names", names_ms);
      if (args) printf(", args pass %.1f ms over %llu bytes", args_ms, (unsigned long long)decoded);
      if (skipped)
        printf(", %llu event%s' args not searchable", (unsigned long long)skipped,
               skipped == 1 ? "" : "s");
      printf(")\n");
    }
    st_event_ref r = ST_REF_NONE, next;
    long shown = 0;
    while ((limit <= 0 || shown < limit) && st_find_step(fd, r, +1, 0, &next)) {
      r = next;
      st_event_info info;
      st_event_get(t, r, &info);
      size_t nl;
      const char *nm = st_strtab_get(strs, info.name, &nl);
      if (json) {
        printf(
            "%s{\"src\":%llu,\"row\":%u,\"index\":%u,\"start_ns\":%lld,\"dur_ns\":%lld,\"name\":",
            shown ? "," : "", (unsigned long long)info.src, r.row, r.index,
            (long long)info.start_ns, (long long)info.dur_ns);
        cli_print_json_str(nm, nl);
        printf("}");
      } else {
        printf("%llu\t%lld\t%.*s\n", (unsigned long long)info.src, (long long)info.start_ns,
               (int)nl, nm);
      }
      shown++;
    }
    if (json) printf("]}\n");
  }
  st_find_destroy(fd);
  st_argsrc_destroy(as);
  st_trace_destroy(t);
  fclose(f);
  return rc;
}
