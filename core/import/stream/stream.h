/* stream.h: streaming mode, for a trace bigger than the memory it may use
 * (issue 20): one pass keeps a summary, windows are read again from the
 * file.
 *
 * The pass. The file's bytes go through the usual loader (load.h: any
 * compression, any format) with a sink in front of the model (trace.h
 * st_builder_sink) that stages nothing. Per event it keeps, in memory
 * bounded by max_buckets (not by the file's size):
 *   - the summary: per track, one bucket per `bucket_ns` of time holding
 *     the count of events starting in it, their extent and the longest one
 *     (its name, category, flags and src: selecting a bucket shows that
 *     event's args); counters keep min / max / last per bucket; events at
 *     least `bucket_ns` long are kept exactly. bucket_ns starts at 1 us and
 *     doubles (buckets merge pairwise) whenever the buckets or long events
 *     would pass max_buckets.
 *   - the block index (Chrome JSON): the decoded input cut into blocks of
 *     block_bytes; per block the first and last src of its events and the
 *     time extent of their [start, end]: so the events intersecting any
 *     window lie in the blocks whose extent meets it.
 *   - the exact events: slices whose two halves lie in different blocks
 *     (B/E, async b/e, S/F), slices that never end (B without E, X without
 *     dur) and, once a trace has shown a legacy async step (T, p), its
 *     async slices (a step belongs to a chain begun at its S, maybe blocks
 *     before). A window read would see part of them, so the index holds
 *     them and a window load adds them itself and ignores those halves.
 * At the end the summary goes into the same builder (the file's processes,
 * tracks, names and sort orders are the importer's own), which lays it out
 * as an ordinary model: the summary trace the views draw zoomed out.
 *
 * A window. st_stream_window_plan names the decoded byte ranges to read
 * for [t0, t1) (adjacent blocks joined); a window load is fed exactly
 * those bytes and builds a model of the events in them plus the exact
 * events meeting the window, on the summary's tracks (every track exists,
 * empty or not), in the summary's time (same origin and end) and string
 * table, with each event's src the file's own offset (args read as from a
 * full load). Its events meeting [t0, t1) are those of a full load (the
 * test: tests/unit/test_stream.c), and so are its counter samples, with
 * each series' last sample before the window added (the pass keeps every
 * series' last sample per block). Flows and CPU samples come from the
 * blocks read only; window loads from the file are Chrome JSON only
 * (st_stream_info.windows == 0 for other formats until a re-ordered copy
 * exists, below).
 *
 *   st_stream *s = st_stream_create(&(st_stream_desc){.file_name = name});
 *   while (more) st_stream_push(s, buf, n);
 *   st_trace *summary = st_stream_finish(s, &err);      // owned by the caller
 *   st_stream_range r[64];
 *   uint32_t n = st_stream_window_plan(s, t0, t1, r, 64, &bytes);
 *   st_stream_window *w = st_stream_window_begin(s, summary, r, n, &err);
 *   for (k = 0; k < n; k++) st_stream_window_push(w, k, file + r[k].offset, r[k].length);
 *   st_trace *win = st_stream_window_finish(w, &err);  // owned by the caller
 *   st_stream_window_destroy(w);
 *   ... st_trace_destroy(win); st_trace_destroy(summary); st_stream_destroy(s);
 * The string table both models use is desc.strings (a trace set's, so the
 * summary merges with other files) or the stream's own: it must outlive
 * them, as the stream must outlive its windows.
 */
#ifndef STRATA_STREAM_H
#define STRATA_STREAM_H

#include "argsrc.h"
#include "base.h"
#include "load.h"
#include "stats.h"
#include "trace.h"

#define ST_STREAM_BLOCK ((uint64_t)4u << 20)
#define ST_STREAM_BUCKETS (1u << 17)
/* Perfetto ftrace records a pass stages before replaying what it can
 * (load.h st_load_desc.staging_limit), per summary bucket of the budget:
 * 2 x 40 B, so 2^18 records (~10 MiB) with the default buckets, while the
 * CPUs keep pace with each other */
#define ST_STREAM_STAGING_PER_BUCKET 2u

typedef struct st_stream_desc {
  st_alloc alloc;
  const char *file_name; /* a hint, as load.h's */
  st_strtab *strings;    /* NULL: the stream's own */
  uint64_t block_bytes;  /* 0: ST_STREAM_BLOCK; at least 4096 */
  uint32_t max_buckets;  /* 0: ST_STREAM_BUCKETS; at least 64 */
  uint64_t gz_span;      /* compressed input: decoded bytes between restart points
                            (0: ST_GZINDEX_SPAN, 4 MiB; smaller for tests) */
  uint64_t staging;      /* Perfetto ftrace records staged at most (0: max_buckets x
                            ST_STREAM_STAGING_PER_BUCKET; smaller for tests) */
} st_stream_desc;

typedef struct st_stream st_stream;

st_stream *st_stream_create(const st_stream_desc *desc);
void st_stream_destroy(st_stream *s);
/* As st_loader_push. */
st_code st_stream_push(st_stream *s, const void *data, size_t len);
/* Ends the pass: the summary trace (NULL and err as st_loader_finish; a
 * damaged input gives what was read before the damage, err says where). */
st_trace *st_stream_finish(st_stream *s, st_error *err);
/* While the pass runs: a model of the summary so far (the tracks seen,
 * their buckets; CPU samples left out), so a front end can draw something
 * before the pass ends. O(summary). The caller owns it; it uses the
 * stream's string table. NULL + err: out of memory, or no pass running. */
st_trace *st_stream_snapshot(st_stream *s, st_error *err);
/* The pass's statistics (events as read from the file, warnings, ...). */
const st_stats *st_stream_stats(const st_stream *s);
const char *st_stream_metadata_json(const st_stream *s);
st_argsrc *st_stream_take_args_source(st_stream *s);
st_strtab *st_stream_strings(st_stream *s);

typedef struct st_stream_info {
  uint64_t bytes_decoded; /* the decoded input's size */
  uint64_t events_end;    /* just past the event list's last event (JSON) */
  uint64_t block_bytes;
  uint32_t blocks;   /* blocks holding events */
  uint64_t exact;    /* exact events held */
  uint64_t buckets;  /* summary buckets (and long events) at the end */
  int64_t bucket_ns; /* the summary's resolution */
  uint64_t summary_events;
  size_t bytes;            /* resident memory of the index (not the summary trace) */
  int windows;             /* 1: window loads are possible (Chrome JSON) */
  int compressed;          /* 1: gzip / zlib input: ranges are read through st_stream_read */
  uint32_t restart_points; /* its gzip restart points (stream_read.c) */
  int unsorted;            /* 1: its blocks each span much of its time (JSON) */
  int spill_wanted;        /* 1: windows need a re-ordered copy (unsorted, or not JSON) */
  int spilled;             /* 1: windows come from its re-ordered copy */
  uint64_t spill_bytes;    /* that copy's size */
} st_stream_info;
void st_stream_info_get(const st_stream *s, st_stream_info *out);

typedef struct st_stream_range {
  uint64_t offset, length; /* decoded bytes */
} st_stream_range;

/* The ranges to read for the events meeting [t0_ns, t1_ns] (times of the
 * summary trace: ns since its origin), in file order, at most cap of them
 * written; returns how many there are (more than cap: call again with
 * room). *bytes: their total length. 0 when nothing is there (or no
 * window loads: st_stream_info.windows). */
uint32_t st_stream_window_plan(const st_stream *s, int64_t t0_ns, int64_t t1_ns,
                               st_stream_range *out, uint32_t cap, uint64_t *bytes);

/* About how many events meet [t0_ns, t1_ns] (summary time), at least as
 * many as do: from the summary's bucket counts (buckets meeting the window
 * count whole), or, for a stream opened from an index file (which keeps no
 * counts), the events of the blocks meeting it. What a window's model
 * would hold. O(buckets + blocks). */
uint64_t st_stream_events_in(const st_stream *s, int64_t t0_ns, int64_t t1_ns);

typedef struct st_stream_window st_stream_window;
/* ranges: as planned (sorted, not overlapping, inside the events). summary:
 * st_stream_finish's trace (its tracks are the window's). NULL + err on
 * bad arguments or out of memory. */
st_stream_window *st_stream_window_begin(st_stream *s, const st_trace *summary,
                                         const st_stream_range *ranges, uint32_t n, st_error *err);
/* The next bytes of range k: the ranges' bytes in order, in chunks of any
 * size (range k + 1 starts once range k is whole). ST_ERR_ARG when out of
 * order or past the range. */
st_code st_stream_window_push(st_stream_window *w, uint32_t k, const void *data, size_t len);
/* The window's model (NULL + err if nothing could be built). The exact
 * events meeting [t0, t1] of the plan are added for the window given to
 * st_stream_window_set_span (default: the ranges' blocks' extent). */
st_trace *st_stream_window_finish(st_stream_window *w, st_error *err);
/* The window (summary time) whose exact events the load adds. */
void st_stream_window_set_span(st_stream_window *w, int64_t t0_ns, int64_t t1_ns);
/* Keep only the events meeting the span (and counter samples in it): for
 * a trace whose blocks each span much of its time (an unsorted trace), the
 * ranges of a window are much of the file, but its model stays the size
 * of the window's events. Off by default (all events of the ranges). */
void st_stream_window_set_filter(st_stream_window *w, int on);
/* The window load's statistics (its own import of the ranges). */
const st_stats *st_stream_window_stats(const st_stream_window *w);
void st_stream_window_destroy(st_stream_window *w);

/* ---- a re-ordered copy: windows of unsorted and protobuf traces -------------
 * A window read from the file's blocks reads most of an unsorted trace
 * (each block spans much of its time), and a protobuf packet needs the
 * sequence state of packets before it. Both get their windows from a
 * second pass instead: the file read again through the loader (any
 * format, any compression), every event as the importer resolved it (its
 * track, times, name, category, flags and srcs) written as a 48-byte record
 * into one of `parts` partitions of the trace's time by its start (events
 * at least a partition long into one more, read by every window), in chunks
 * of buffer_bytes, through `write` at increasing offsets from 0: the
 * platform keeps them (the page: its Origin Private File System; the CLI:
 * a temporary file). Resident: (parts + 1) x buffer_bytes, the chunks'
 * directory (16 B per chunk) and each counter series' last sample per
 * partition. Once finished, st_stream_window_plan names ranges of that copy
 * (st_stream_info.spilled) and a window load is fed them like the file's:
 * its slices and counter samples meeting the span are a full load's (no
 * flows, no CPU samples: the summary's); the records are this process's
 * own, never a file format.
 *
 *   st_stream_spill *p = st_stream_spill_begin(s, &(st_stream_spill_desc){write, ud}, &err);
 *   while (more) st_stream_spill_push(p, raw, n);       // the file again, from its start
 *   st_stream_spill_finish(p, &err);  st_stream_spill_destroy(p);
 */
typedef st_code (*st_stream_spill_write)(void *ud, uint64_t offset, const void *data, size_t len);
typedef struct st_stream_spill_desc {
  st_stream_spill_write write;
  void *ud;
  uint32_t parts;        /* 0: 1024; at least 1 */
  uint32_t buffer_bytes; /* per partition: 0: 32 KiB; at least 768 */
  uint64_t limit_bytes;  /* the copy at most this long (0: no limit) */
} st_stream_spill_desc;
typedef struct st_stream_spill st_stream_spill;
/* NULL + err: the pass has not finished, a copy exists, or out of memory. */
st_stream_spill *st_stream_spill_begin(st_stream *s, const st_stream_spill_desc *desc,
                                       st_error *err);
/* The file's raw bytes, in order from its first (as st_stream_push). */
st_code st_stream_spill_push(st_stream_spill *p, const void *data, size_t len);
/* Writes what is buffered and makes the copy the stream's. ST_OK; else err
 * (a write failed, the limit was passed, or the file no longer parses as
 * the pass read it) and the stream keeps no copy. */
st_code st_stream_spill_finish(st_stream_spill *p, st_error *err);
/* The copy's bytes so far. */
uint64_t st_stream_spill_written(const st_stream_spill *p);
/* Forgets the stream's copy (the platform lost what `write` gave it): its
 * windows are read from the file again, or there are none (protobuf). */
void st_stream_spill_drop(st_stream *s);
void st_stream_spill_destroy(st_stream_spill *p);

/* ---- reading a decoded range, whatever the compression ---------------------
 * Ranges are offsets of the DECODED input. For plain input raw == decoded:
 * a front end may read [offset, offset + length) of the file directly (the
 * dialogue below works too: raw_from == offset, it copies). For gzip / zlib
 * input the pass keeps restart points (core/import/args/gzindex.h, built
 * from the raw bytes given to st_stream_push; kept by the index file too):
 * every 4 MiB of decoded bytes a point holding the 32 KiB of output before
 * it, i.e. about 0.8% of the decoded size resident (8 KiB per MiB; a 20 GB
 * trace: ~160 MB), and a read inflates from the point before `offset`
 * (at most 4 MiB more than asked).
 *
 *   uint64_t from;
 *   st_stream_read *r = st_stream_read_begin(s, off, len, &from);
 *   int done = 0;
 *   while (!done) { n = read raw bytes at `from`; st_stream_read_push(r, buf, n, &done);
 *                   from += n; }  (n == 0 at the file's end: stop)
 *   const uint8_t *bytes = st_stream_read_data(r, &got);  // got == len unless the data ended
 *   st_stream_read_end(r);
 * NULL from begin: len 0 or past SIZE_MAX, no restart points (the pass did
 * not finish indexing a compressed input), or out of memory. */
typedef struct st_stream_read st_stream_read;
st_stream_read *st_stream_read_begin(const st_stream *s, uint64_t offset, uint64_t len,
                                     uint64_t *raw_from);
/* The next raw bytes from *raw_from on. ST_OK, ST_ERR_GZIP (corrupt: the
 * file changed?), ST_ERR_NOMEM. *done: 1 once len bytes are there. */
st_code st_stream_read_push(st_stream_read *r, const void *raw, size_t n, int *done);
const uint8_t *st_stream_read_data(const st_stream_read *r, size_t *len);
void st_stream_read_end(st_stream_read *r);

#endif
