/* stats.h: what a load read, in the shape of `strata stats --json` and the
 * page's window.strata.stats() (DESIGN.md contract 1). One writer,
 * st_stats_json(), serves both so they print the same numbers.
 *
 * The loader fills everything except load_ms and heap_bytes, which the
 * front end (CLI or page) measures and sets, since the core has no clock.
 */
#ifndef STRATA_STATS_H
#define STRATA_STATS_H

#include "base.h"

#define ST_STATS_MAX_WARNINGS 48

typedef struct st_warning {
  const char *kind; /* static string, e.g. "unmatched_end" */
  uint64_t count;
  uint64_t first_offset; /* byte offset (decoded input) of the first one */
} st_warning;

typedef struct st_stats {
  const char *format;       /* "chrome-json", "perfetto-proto", "xplane", or "unknown" */
  int compressed;           /* input was gzip/zlib */
  uint64_t bytes_in;        /* bytes given to the loader */
  uint64_t bytes_decoded;   /* bytes after decompression */
  uint64_t events;          /* trace events read (every element of the event list) */
  uint64_t phases[129];     /* count per ph letter (ASCII); [128] = missing/empty ph */
  uint64_t phases_other;    /* ph not ASCII, or longer than one char */
  uint64_t slices;          /* X events + matched B/E pairs (+ unclosed B) */
  uint64_t instants;        /* i/I/R markers + async instants (n) */
  uint64_t counter_samples; /* values added to counter series (one per args key) */
  uint64_t async_slices;    /* slices put on async tracks: b/e pairs (+ unclosed b),
                               legacy S/F pairs and their T/p steps (+ unclosed S) */
  uint64_t flows;           /* flow arrows bound in the model (st_trace_flows):
                               chained (v1 s -> t -> f by (cat, name, id); v2
                               flow_out -> flow_in by bind_id; Perfetto flow_ids;
                               xplane `flow`) and both ends bound to events.
                               Ends with no producer warn "unmatched_flow", arrows
                               with an end bound to nothing "flow_unbound". */
  uint64_t samples;         /* CPU samples put on thread sample tracks (P events,
                               ProfileChunk cpuProfile samples, top-level
                               `samples`); see core/import/chrome/chrome_samples.h */
  uint64_t stack_frames;    /* distinct stack frames of those samples (a frame is
                               a function under a parent frame: st_frames) */
  uint64_t processes;       /* distinct pids of events that have a pid (or are
                               placed on a process: pid 0 when absent) */
  uint64_t threads;         /* distinct pid+tid pairs that carry non-M events
                               (a thread-track event without tid uses tid = pid) */
  int has_ts;               /* ts_min/max valid */
  int64_t ts_min_ns;        /* smallest timestamp as in the file, ns */
  int64_t ts_max_ns;        /* largest end (ts + dur) as in the file, ns */
  uint32_t warning_count;
  st_warning warnings[ST_STATS_MAX_WARNINGS];
  double load_ms;      /* set by the front end */
  uint64_t heap_bytes; /* set by the front end */
} st_stats;

/* Record one occurrence of warning `kind` (a static string) at offset. */
void st_stats_warn(st_stats *s, const char *kind, uint64_t offset);
/* The same, n times (n = 0: nothing). */
void st_stats_warn_n(st_stats *s, const char *kind, uint64_t offset, uint64_t n);
/* Observe a timestamp range [start, end] in absolute ns. */
void st_stats_time(st_stats *s, int64_t start_ns, int64_t end_ns);

/* Writes the JSON object (no trailing newline) to buf, NUL-terminated and
 * truncated to cap. Returns the length the full text needs (like snprintf).
 * Keys: format, compressed, bytes_in, bytes_decoded, events, phases, slices,
 * instants, counter_samples, async_slices, flows, samples, stack_frames,
 * processes, threads,
 * ts_min_us, ts_max_us (exact decimal microseconds, null if no timestamps),
 * warnings [{kind, count, first_offset}], load_ms, heap_bytes. */
size_t st_stats_json(const st_stats *s, char *buf, size_t cap);

#endif
