/* profile.h: many trace files as one profile: what to call each file's
 * group, where each file starts on a shared timeline, and how to line a
 * candidate run B up with a baseline A.
 *
 * Each file is described by what its load left behind (st_profile_file):
 * the trace, the loader's format and top-level metadata JSON
 * (st_loader_metadata_json) and the file's name. Nothing here reads a file.
 *
 * Group name (st_profile_group_name), first that applies:
 *   1. XSpace `hostnames` (field 4; the xplane metadata's "hostnames"):
 *      the hostname, or several joined with ", ";
 *   2. Kineto `distributedInfo.rank` (a top-level key): "rank N";
 *   3. the file name: its last path component without the trace suffixes
 *      .gz .json .trace .pt .pb .xplane .perfetto-trace .pftrace (stripped
 *      from the end while something is left): "rank-3.pt.trace.json.gz"
 *      -> "rank-3".
 * st_profile_group_names names a set of files: a name that repeats gets
 * " (<file name>)" appended, and " #k" (k = 2, 3, ...) if it still repeats.
 *
 * Clock (st_profile_clock): the absolute time of the trace's t = 0.
 *   - XSpace: its timestamps are absolute ns (each line's timestamp_ns):
 *     ST_CLOCK_EPOCH if they look like Unix time, else ST_CLOCK_MACHINE;
 *   - Kineto's `baseTimeNanoseconds` (a top-level key): its ts are relative
 *     to that base, so the start is base + the first timestamp;
 *   - other JSON and Perfetto traces carry absolute time as written (JSON:
 *     microseconds of the writer's clock; Perfetto: boot-time ns), unless
 *     the first timestamp is below 1 s: then the trace was written from
 *     zero and has no absolute time (ST_CLOCK_NONE).
 *   Unix-time ns (ST_CLOCK_EPOCH) are those from 2001-09-09 (1e18 ns) on;
 *   any other absolute start is ST_CLOCK_MACHINE (a monotonic clock).
 *
 * Initial offsets (st_profile_initial_offsets): each file's t = 0 on the
 * shared timeline, in ns. Files whose clocks are of the same kind line up
 * on it: offset = start - the earliest start of that kind, so the earliest
 * of each kind is at 0; files without absolute time start at 0 too.
 * Deterministic: the same clocks give the same offsets, in any order.
 *
 * Compare alignment (st_profile_compare_offset): the offset to add to B's
 * times (ns from B's start) to place them on A's, so that the first step
 * marker both have starts at the same time. Markers, first kind both have:
 *   1. `ProfilerStep#N` slices (Kineto): the smallest N both have, its
 *      earliest occurrence in each; without a common N, each one's first;
 *   2. the events of a track named "Steps" (XProf's Steps line): the
 *      smallest step number both have (st_profile_find_step's rule), else
 *      the first event of each;
 *   3. the first event of a track named "XLA Modules" (the first XLA module);
 *   4. else the trace starts (offset 0).
 * st_profile_align_events gives the offset that puts two chosen events at
 * the same time (the user's "align on this event").
 *
 *   st_profile_file fa = {ta, stats_a->format, meta_a, "rank-0.json"};
 *   char name[256]; st_profile_group_name(&fa, name, sizeof name, NULL);
 *   st_profile_clock c[2]; st_profile_clock_get(&fa, &c[0]); ...
 *   int64_t off[2]; st_profile_initial_offsets(c, 2, off);
 *   st_profile_alignment al; st_profile_compare_offset(&alloc, ta, tb, &al);
 *   // draw B at its own times + al.offset_ns on A's axis
 */
#ifndef STRATA_PROFILE_H
#define STRATA_PROFILE_H

#include "query.h"

typedef struct st_profile_file {
  const st_trace *trace;     /* may be NULL: no clock then */
  const char *format;        /* st_stats.format ("chrome-json", "xplane", ...); may be NULL */
  const char *metadata_json; /* st_loader_metadata_json(); may be NULL */
  const char *file_name;     /* a path or a name; may be NULL */
} st_profile_file;

/* ---- group names --------------------------------------------------------- */
typedef enum st_group_source {
  ST_GROUP_HOSTNAME = 0, /* XSpace hostnames */
  ST_GROUP_RANK = 1,     /* Kineto distributedInfo.rank */
  ST_GROUP_FILE = 2,     /* the file name */
  ST_GROUP_NONE = 3      /* nothing to go by: "trace" */
} st_group_source;

/* "hostname", "rank", "file" or "none" (the JSON's group_source). */
const char *st_group_source_name(st_group_source s);

/* Writes the group name (valid UTF-8, no control characters, at most
 * cap - 1 bytes, NUL-terminated; cap 0: nothing) and returns the length the
 * full name needs; *source (may be NULL) says where it came from. */
size_t st_profile_group_name(const st_profile_file *f, char *buf, size_t cap,
                             st_group_source *source);

/* Names for n files, unique (rule above): names[i] gets cap bytes each
 * (names + i * cap). ST_OK, ST_ERR_ARG (cap < 32), ST_ERR_NOMEM (n bytes
 * of scratch from a). */
st_code st_profile_group_names(const st_alloc *a, const st_profile_file *files, size_t n,
                               char *names, size_t cap);

/* ---- who a file is (a profile manifest's host and rank) ------------------ */
/* Kineto's `distributedInfo.rank` (the group rule's 2.): 1 with *rank, else 0. */
int st_profile_rank(const st_profile_file *f, int64_t *rank);
/* XSpace hostnames joined with ", " (the group rule's 1., same text):
 * written as st_profile_group_name writes; returns the length the full
 * text needs, 0 (and "") when the file names no host. */
size_t st_profile_host(const st_profile_file *f, char *buf, size_t cap);
/* 1 if a file name ends (case ignored) with the suffix of a file strata
 * reads: .json .gz .pb .pftrace .perfetto-trace .trace (what a folder walk
 * such as `strata manifest` picks up; the content still decides). */
int st_profile_trace_name(const char *name);

/* ---- clocks --------------------------------------------------------------- */
typedef enum st_clock_kind {
  ST_CLOCK_NONE = 0,   /* no absolute time: starts with the others */
  ST_CLOCK_EPOCH = 1,  /* Unix time */
  ST_CLOCK_MACHINE = 2 /* another absolute clock (boot time, monotonic) */
} st_clock_kind;

/* "none", "epoch" or "machine" (the JSON's clock). */
const char *st_clock_kind_name(st_clock_kind k);

typedef struct st_profile_clock {
  st_clock_kind kind;
  int64_t start_ns;     /* absolute time of the trace's t = 0 (0 when NONE) */
  int64_t base_time_ns; /* Kineto baseTimeNanoseconds added to it, else 0 */
} st_profile_clock;

/* Always succeeds (a file with nothing to go by is ST_CLOCK_NONE). */
void st_profile_clock_get(const st_profile_file *f, st_profile_clock *out);

/* offsets_ns[i] = file i's t = 0 on the shared timeline (rule above).
 * ST_OK or ST_ERR_ARG (NULL arrays with n > 0). */
st_code st_profile_initial_offsets(const st_profile_clock *clocks, size_t n, int64_t *offsets_ns);

/* ---- steps and alignment -------------------------------------------------- */
typedef enum st_align_kind {
  ST_ALIGN_START = 0,         /* trace starts */
  ST_ALIGN_PROFILER_STEP = 1, /* ProfilerStep#N */
  ST_ALIGN_STEPS_LINE = 2,    /* a "Steps" track's event */
  ST_ALIGN_XLA_MODULE = 3,    /* the first "XLA Modules" event */
  ST_ALIGN_EVENTS = 4         /* two events chosen by the caller */
} st_align_kind;

typedef struct st_profile_alignment {
  st_align_kind kind;
  int64_t offset_ns;         /* add to B's times to put them on A's */
  st_event_ref ref_a, ref_b; /* the matched events (ST_REF_NONE for starts) */
  int64_t step;              /* the step number matched, -1 if none */
} st_profile_alignment;

/* The default compare alignment (rule above). ST_OK, ST_ERR_ARG (NULL),
 * ST_ERR_NOMEM (scratch: 8 bytes per interned string, 32 per step marker). */
st_code st_profile_compare_offset(const st_alloc *alloc, const st_trace *a, const st_trace *b,
                                  st_profile_alignment *out);

/* Offset putting event eb of b at the start of event ea of a:
 * start_a - start_b (saturating). ST_OK or ST_ERR_ARG (a bad ref). */
st_code st_profile_align_events(const st_trace *a, st_event_ref ea, const st_trace *b,
                                st_event_ref eb, int64_t *offset_ns);

/* Step `step` of a trace: the earliest `ProfilerStep#<step>` slice, else
 * the earliest event of a "Steps" track whose name is the step number or
 * ends with " <step>" (XProf names steps by number; "train_step 7").
 * Returns 1 with *ref and its range [*t0_ns, *t1_ns) (ns from the trace's
 * start), or 0 if the trace has no such step. */
int st_profile_find_step(const st_trace *t, int64_t step, st_event_ref *ref, int64_t *t0_ns,
                         int64_t *t1_ns);

#endif
