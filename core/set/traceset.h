/* traceset.h: the set of trace files open together, and the one view of
 * the set's shown files (a profile of many ranks or hosts; two runs
 * compared).
 *
 * What it holds. Each file loaded into the set is a slot of a pool (as
 * sokol_gfx's resource pools) addressed by a typed handle, st_trace_handle
 * {id}: the slot index and a generation, so a handle of a closed file
 * fails validation (every call taking one returns NULL / 0 / ST_ERR_ARG)
 * and never reads freed memory, and a reused slot gives new handles. Per
 * file the set owns: its model (st_trace), its load statistics (st_stats;
 * load_ms and heap_bytes are the caller's, st_traceset_set_load_figures:
 * the core has no clock), its top-level metadata JSON
 * (st_loader_metadata_json), its name, clock (core/set/profile.h, read
 * once at load, before any merge moves its times), group name and source,
 * offset on the shared timeline, its args source (core/import/args/argsrc.h,
 * taken from the loader), its load order and the caller's bytes kept with
 * it (desc.data_size, st_traceset_data). Per set: the string table the
 * shown files share, the batch in progress, and the view: the one shown
 * file as itself, or several merged on one timeline (core/model/trace.h
 * st_trace_merge) under their group names at their offsets.
 *
 * Batches. Files are loaded in batches: st_traceset_batch_begin opens one
 * (with its own string table), then each file is a load_begin / load_push
 * (bytes, any chunk size: the core does no I/O) / load_finish, one after
 * another, into that table. st_traceset_batch_end then replaces the shown
 * files by the batch's, once at least one loaded and its view could be
 * built:
 *   1. the caller's view of the shown files is dropped (end desc drop_view),
 *      then the set's (the merged trace); the shown files' models stay;
 *   2. the batch's files are placed (placement below) and their view built:
 *      the set merges them, then the caller builds what it adds on top (end
 *      desc build_view: the page's level-of-detail index and ui), which may
 *      fail (out of memory);
 *   3. while that fails and more than one file is left, the batch's last
 *      file is closed (named in the report: "<file>: not shown: <why>
 *      (after its N events, X MB read)") and the rest placed and built again;
 *   4. if not even the first file's view could be built, the batch's files
 *      are closed, the shown files stay shown with their handles, offsets
 *      and groups, and their view is built again (build_view called for
 *      them; if that fails too they are closed and nothing is shown); the
 *      report's `error` says why ("<why> for <file> (after its N events,
 *      X MB read)"; several files: "<why> of N files together");
 *   5. otherwise the files shown before are closed (their handles go stale)
 *      with their string table, and the batch's files are shown, in load
 *      order (file k of the view is part k of the merged trace).
 * A batch in which nothing loaded changes nothing (no hook is called).
 *
 * Placement (as the page and `strata stats A B` place files): group names
 * from core/set/profile.h (XSpace hostnames, Kineto rank, else the file
 * name; unique among the files shown: st_profile_group_names; or the
 * name given to a file: st_traceset_set_group), initial
 * offsets from the clocks (st_profile_initial_offsets: files with absolute
 * time line up on it, others start with the earliest). In the view the
 * offsets are normalised (the smallest is 0). st_traceset_set_offset and
 * st_traceset_align_events move files later; both return the per-part
 * deltas so the caller can move what it built (lod.h st_lod_shift_rows
 * over st_trace_parts(view)[k]'s rows).
 *
 * Unmerged sets (desc.unmerged = 1: `strata stats A B`, `strata diff A B`):
 * each file keeps its own string table, exactly as when loaded alone (so
 * its stats, heap counted, are the same), batch_end places the files but
 * builds no view (st_traceset_view is NULL, hooks unused, nothing dropped,
 * set_offset / align refused), and no file's times are ever moved.
 *
 * Ownership: the set owns every model, string table, metadata text and
 * args source it hands out; pointers from it are valid until the file is
 * closed (a batch replacing it, a batch-end dropping it, destroy). The
 * view is valid until the next batch_end that loaded something, or
 * destroy; set_offset and align move its times in place (not the pointer).
 * The caller must drop what it built on the view before st_traceset_destroy.
 * Memory through desc.alloc (bookkeeping, the merged view) and
 * desc.load_alloc (loaders, models, string tables, args sources).
 *
 *   st_traceset *set = st_traceset_create(&(st_traceset_desc){0});
 *   st_traceset_batch_begin(set);
 *   for each file:
 *     st_traceset_load_begin(set, name);
 *     while (more) st_traceset_load_push(set, buf, n);
 *     st_error err;
 *     st_trace_handle h = st_traceset_load_finish(set, &err);
 *     if (!h.id) report(err);                          // the batch goes on
 *     else st_traceset_set_load_figures(set, h, ms, heap);
 *   st_traceset_end_desc end = {.build_view = my_build, .drop_view = my_drop, .ud = me};
 *   st_traceset_report rep;
 *   if (!st_traceset_batch_end(set, &end, &rep)) show(rep.error); // the old stay
 *   st_trace *view = st_traceset_view(set);            // draw it
 *   for (uint32_t k = 0; k < st_traceset_count(set); k++) {
 *     st_traceset_file f;
 *     st_traceset_get(set, st_traceset_at(set, k), &f);  // f.name, f.group, ...
 *   }
 *   int64_t deltas[ST_TRACESET_MAX];
 *   if (st_traceset_set_offset(set, h, 1500000, deltas) == ST_OK)
 *     shift my lod's rows of each part k by deltas[k];
 *   my_drop(me); st_traceset_destroy(set);
 */
#ifndef STRATA_TRACESET_H
#define STRATA_TRACESET_H

#include "load.h"
#include "profile.h"
#include "select.h"
#include "stream.h"

#define ST_TRACESET_MAX 256      /* files open at once by default (the app's ST_APP_MAX_TRACES) */
#define ST_TRACESET_SLOT_BITS 16 /* handle id = slot | generation << 16 */
#define ST_TRACESET_CAPACITY 65535u /* the most a desc may ask for */
#define ST_TRACESET_GROUP_CAP 256   /* bytes of a group name, NUL included */

/* A file of the set: slot | generation << 16 (generation 1 .. 2^15 - 1, so
 * an id is a positive int below 2^31, safe in JavaScript). id 0: none. */
typedef struct st_trace_handle {
  uint32_t id;
} st_trace_handle;

typedef struct st_traceset st_traceset;

typedef struct st_traceset_desc {
  st_alloc alloc;      /* bookkeeping and the merged view; zero: realloc/free */
  st_alloc load_alloc; /* loaders, models, string tables, args sources; zero: alloc */
  uint32_t capacity;   /* files open at once (shown + in the batch); 0: ST_TRACESET_MAX */
  int unmerged;        /* 1: own string tables, no view (see above) */
  /* Bytes the caller keeps with each file, in its slot (st_traceset_data;
   * 0: none): zero when the file opens, zeroed again when it closes, after
   * on_close. */
  size_t data_size;
  /* Called when a file is closed, just before its handle goes stale (it
   * is still valid during the call), e.g. to free what the caller keeps
   * with it (st_traceset_data); may be NULL. */
  void (*on_close)(void *user, st_trace_handle h);
  void *user;
} st_traceset_desc;

/* NULL desc: all defaults. NULL on allocation failure or capacity above
 * ST_TRACESET_CAPACITY. */
st_traceset *st_traceset_create(const st_traceset_desc *desc);
/* Closes every file (on_close for each) and frees the set. NULL: nothing. */
void st_traceset_destroy(st_traceset *s);

/* ---- one file ---------------------------------------------------------- */
typedef struct st_traceset_file {
  const st_trace *trace;     /* its own model (in a merged view: its times moved) */
  const st_stats *stats;     /* its load's numbers */
  const char *metadata_json; /* "{}" if none */
  const char *name;          /* as given to load_begin ('\n', '\r' -> ' ') */
  const char *group;         /* group name on the timeline ("" until placed) */
  st_group_source group_source;
  st_profile_clock clock; /* read at load */
  int64_t offset_ns;      /* its time 0 on the shared timeline */
  const st_argsrc *args;  /* its args source; NULL if none */
  uint64_t load_order;    /* 1, 2, ... over the set's life */
  uint32_t shown_index;   /* its part index in the view; UINT32_MAX while in a batch */
} st_traceset_file;

/* 1 and *out filled for an open file (shown or in the batch in progress);
 * 0 (out zeroed) for a stale or zero handle. */
int st_traceset_get(const st_traceset *s, st_trace_handle h, st_traceset_file *out);
int st_traceset_valid(const st_traceset *s, st_trace_handle h);
/* The slot index (< capacity) of an open file; UINT32_MAX for a stale handle. */
uint32_t st_traceset_slot(const st_traceset *s, st_trace_handle h);
/* The caller's desc.data_size bytes kept with open file h (aligned for any
 * type); NULL for a stale handle or a data_size of 0. */
void *st_traceset_data(const st_traceset *s, st_trace_handle h);
/* The front end's measures of the load (the core has no clock): ST_OK or
 * ST_ERR_ARG (stale handle). */
st_code st_traceset_set_load_figures(st_traceset *s, st_trace_handle h, double load_ms,
                                     uint64_t heap_bytes);

/* Gives file h its group name (a profile manifest's names) instead of
 * profile.h's rule, from the next placement on (a batch's end); NULL or ""
 * goes back to the rule. Control characters become spaces; a name the
 * files shown before it hold already gets " #c" (c - 1 of them). ST_OK,
 * ST_ERR_ARG (stale handle) or ST_ERR_NOMEM. */
st_code st_traceset_set_group(st_traceset *s, st_trace_handle h, const char *group);

/* ---- the files shown, in display order (= load order = view part k) ----- */
uint32_t st_traceset_count(const st_traceset *s);
st_trace_handle st_traceset_at(const st_traceset *s, uint32_t k); /* {0} if k >= count */
/* The one shown file's model, or the merged view of several; NULL when
 * nothing is shown, or for an unmerged set. */
st_trace *st_traceset_view(const st_traceset *s);

/* ---- batches and loads --------------------------------------------------- */
/* ST_OK, ST_ERR_ARG (a batch is open: end or cancel it first), ST_ERR_NOMEM. */
st_code st_traceset_batch_begin(st_traceset *s);
/* 1 while a batch is open. */
int st_traceset_batch_open(const st_traceset *s);
/* Closes the batch's files; what is shown stays. */
void st_traceset_batch_cancel(st_traceset *s);

/* Starts loading a file into the open batch (a load in progress is aborted).
 * name (may be NULL: "trace") names it in messages and placement, and is a
 * format hint (load.h). ST_OK, ST_ERR_ARG (no batch open), ST_ERR_NOMEM. */
st_code st_traceset_load_begin(st_traceset *s, const char *name);
/* The next chunk: ST_OK, or the first error's code (later pushes do
 * nothing); ST_ERR_ARG without a load in progress. */
st_code st_traceset_load_push(st_traceset *s, const void *data, size_t len);
/* The open load's share of an import split across workers (load.h
 * st_loader_apply): instead of pushing, apply task results in order. */
int st_traceset_load_apply_needs_bytes(st_traceset *s, const void *result, size_t rlen);
st_code st_traceset_load_apply(st_traceset *s, const void *result, size_t rlen, const void *bytes,
                               size_t blen);
/* A compressed input split the same way: the raw side's outcome
 * (load.h st_loader_set_inflated), before load_finish. */
void st_traceset_load_set_inflated(st_traceset *s, const st_source_info *info, st_code code,
                                   const st_error *err);
/* Ends the load. The file's handle, with err->code ST_OK, or not ST_OK
 * for a file damaged part-way (what was read before the damage is kept:
 * st_load_error_line says where). {0} on failure, err saying why: the
 * loader's diagnosis (no trace data: ST_ERR_FORMAT "no trace data"),
 * ST_ERR_LIMIT "too many traces open (N)", ST_ERR_NOMEM, ST_ERR_ARG "no
 * load in progress". err may be NULL. */
st_trace_handle st_traceset_load_finish(st_traceset *s, st_error *err);
/* Drops the load in progress (a read error in the front end). */
void st_traceset_load_abort(st_traceset *s);

/* The caller's part of a view. build_view builds what the caller puts on
 * top of view (the set's merged trace, or the one file's model) and
 * returns ST_OK, or an error with err's message saying what failed (err
 * left ST_OK: "out of memory"); on failure it must have freed what it
 * built. During the call st_traceset_view / _count / _at / _get describe
 * the files of the view being built (st_traceset_view(s) == view).
 * drop_view frees what the caller built on the view shown (called once per
 * batch_end that loaded something, if a view was shown, before the set
 * frees it). Either may be NULL. */
typedef struct st_traceset_end_desc {
  st_code (*build_view)(void *ud, const st_traceset *s, st_trace *view, st_error *err);
  void (*drop_view)(void *ud);
  void *ud;
} st_traceset_end_desc;

typedef struct st_traceset_report {
  uint32_t loaded;         /* files the batch loaded */
  uint32_t shown;          /* of them, shown now (0: those shown before stay) */
  uint32_t dropped;        /* left out: the view of them all did not fit */
  int restored;            /* shown == 0 && loaded: 1 if the files shown before are shown
                              again (build_view succeeded for them, or none were shown) */
  char error[320];         /* shown == 0 && loaded: why, one line */
  char dropped_text[2048]; /* "<file>: not shown: <why> (<extent>)\n" per file left out */
} st_traceset_report;

/* Ends the open batch (steps above; a load in progress is aborted).
 * Returns the number of the batch's files shown now (rep->shown); 0:
 * nothing loaded, no batch open, or not even one file's view could be
 * built. desc and rep may be NULL. */
uint32_t st_traceset_batch_end(st_traceset *s, const st_traceset_end_desc *desc,
                               st_traceset_report *rep);

/* ---- streaming mode (core/import/stream/stream.h) -------------------------
 * A file loaded with load_begin_stream keeps only its pass's summary and
 * index (block_bytes, max_buckets: stream.h's, 0 for defaults). Its model
 * is the summary until show_model puts a window model (from its stream's
 * window loads, in its string table: st_traceset_stream) in its place;
 * show_model(NULL) puts the summary back. show_model rebuilds the view
 * (drop_view / build_view as batch_end); if the window's view does not
 * fit, what was shown comes back and ST_ERR_NOMEM says why. The set owns
 * the window from the call on (also on failure). */
st_code st_traceset_load_begin_stream(st_traceset *s, const char *name, uint64_t block_bytes,
                                      uint32_t max_buckets);
st_stream *st_traceset_stream(const st_traceset *s, st_trace_handle h); /* NULL: resident */
/* A load from an index file (core/import/stream/stream_stx.h) instead of
 * the pass: begin_index opens stx (untrusted: err says why not, one line);
 * the caller reads the trace's identity samples (st_stream_identity_plan of
 * st_traceset_loading_stream) and load_index_verify checks them ("index
 * does not match <file>: ...": abort, and load the trace itself); then
 * load_finish takes the file as a streaming load's, no pass run. */
st_code st_traceset_load_begin_index(st_traceset *s, const char *name, const void *stx, size_t len,
                                     st_error *err);
st_code st_traceset_load_index_verify(st_traceset *s, uint64_t raw_size,
                                      const uint8_t *const *samples, uint32_t n, st_error *err);
st_stream *st_traceset_loading_stream(const st_traceset *s); /* the streaming load in progress */
const st_trace *st_traceset_summary(const st_traceset *s, st_trace_handle h);
int st_traceset_showing_window(const st_traceset *s, st_trace_handle h);
st_code st_traceset_show_model(st_traceset *s, st_trace_handle h, st_trace *window,
                               const st_traceset_end_desc *d, st_error *err);
/* While a streaming load runs: its summary so far (stream.h
 * st_stream_snapshot) becomes the view (drop_view / build_view called), in
 * place of the files shown, which stay open (count is 0 while previewing);
 * again later, a newer snapshot. batch_end drops it: the batch's files are
 * shown, or, when nothing loaded, the files shown before come back (so a
 * batch_end after a preview must be given the desc). ST_OK, ST_ERR_ARG (no
 * streaming load), or the build's error (what was shown comes back). */
st_code st_traceset_preview(st_traceset *s, const st_traceset_end_desc *d, st_error *err);
int st_traceset_previewing(const st_traceset *s);

/* ---- offsets ------------------------------------------------------------- */
/* Moves shown file h to offset_ns on the shared timeline (the others keep
 * theirs; then all are normalised so the smallest is 0) and writes to
 * deltas (may be NULL; st_traceset_count entries) how far each part's
 * times moved. ST_OK, or ST_ERR_ARG (fewer than two shown, unmerged, h not
 * shown, an offset out of the time range) with nothing moved. */
st_code st_traceset_set_offset(st_traceset *s, st_trace_handle h, int64_t offset_ns,
                               int64_t *deltas);
/* "Align": spans are selected events of the view (select.h; rows of the
 * merged trace). The files with one move so that their earliest selected
 * event starts together with that of the first such file (in display
 * order); deltas as above. Returns how many files had a selected event
 * (0: fewer than two, or out of range; nothing moved). */
int st_traceset_align_events(st_traceset *s, const st_sel_span *spans, uint32_t nspans,
                             int64_t *deltas);

/* ---- JSON ---------------------------------------------------------------- */
/* Both write like snprintf: to buf (NUL-terminated, cut at cap - 1) and
 * return the length the full text needs. */
/* [{"handle","name","group","events","offset_us","format"}] of the files
 * shown, in display order (offset_us: %.17g of offset_ns / 1000). */
size_t st_traceset_list_json(const st_traceset *s, char *buf, size_t cap);
/* The stats of the files shown (stats.h shape): "null" if none; one file:
 * its stats with load_ms and heap_bytes as given; several: their totals
 * (st_traceset_totals, load_ms and heap_bytes as given) with "traces":
 * [each file's own stats]. */
size_t st_traceset_stats_json(const st_traceset *s, double load_ms, uint64_t heap_bytes, char *buf,
                              size_t cap);
/* The totals of the shown files' stats: every count summed (phases per
 * letter; warnings merged by kind, the first file's offset), ts_min / ts_max
 * the extremes, format the common one or "mixed" ("unknown" if none shown),
 * compressed if any was, load_ms summed, heap_bytes the largest. */
void st_traceset_totals(const st_traceset *s, st_stats *out);

#endif
