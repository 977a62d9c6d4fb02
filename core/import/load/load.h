/* load.h: the one entry point front ends use to read a trace file.
 *
 * Bytes arrive in chunks of any size (down to 1 byte); the loader sniffs
 * compression (gzip, incl. concatenated members, or zlib) and format from
 * content, inflates as it goes, and streams into the right importer. The
 * whole file is never held in memory.
 *
 *   st_load_desc d = {0};                  // zeroed fields mean defaults
 *   d.file_name = "run.trace.json.gz";     // only a hint (e.g. *.xplane.pb)
 *   st_loader *l = st_loader_create(&d);
 *   while (more) if (st_loader_push(l, buf, n) != ST_OK) break;
 *   st_error err;
 *   st_trace *t = st_loader_finish(l, &err);
 *   // t == NULL: nothing usable; err says why and where (one line).
 *   // t != NULL and err.code != ST_OK: damaged part-way; t holds what was
 *   //   read before the damage and err says where it stopped.
 *   const st_stats *s = st_loader_stats(l);  // valid until destroy
 *   st_argsrc *as = st_loader_take_args_source(l);  // args on selection
 *   st_loader_destroy(l);
 */
#ifndef STRATA_LOAD_H
#define STRATA_LOAD_H

#include "argsrc.h"
#include "base.h"
#include "source.h"
#include "stats.h"
#include "trace.h"

typedef struct st_load_desc {
  st_alloc alloc;              /* zero: realloc/free */
  const char *file_name;       /* may be NULL; used for hints and messages only */
  st_strtab *strings;          /* NULL: the trace has its own string table; else names are
                                  interned here (shared with other traces: st_trace_merge) */
  const st_builder_sink *sink; /* NULL, or a filter in front of the model (trace.h; streaming
                                  mode: core/import/stream) */
  uint64_t staging_limit;      /* Perfetto ftrace records staged at most, about (0: all;
                                  import_perfetto.h st_perfetto_set_staging_limit) */
} st_load_desc;

typedef struct st_loader st_loader;

st_loader *st_loader_create(const st_load_desc *desc);
/* Feed the next chunk. Returns ST_OK, or the code of the first error (then
 * later pushes do nothing). */
st_code st_loader_push(st_loader *l, const void *data, size_t len);
/* End of input. Ownership of the returned trace passes to the caller. */
st_trace *st_loader_finish(st_loader *l, st_error *err);
const st_stats *st_loader_stats(const st_loader *l);
/* The trace's free-form top-level JSON (metadata, otherData,
 * displayTimeUnit and other keys besides the event list) as one JSON object
 * text {"key": <raw value>, ...}, for a trace-info panel; "{}" if none or
 * not JSON. Valid after st_loader_finish, until destroy. */
const char *st_loader_metadata_json(const st_loader *l);
/* Where each event's args are and how to decode them (argsrc.h), for
 * every format: NULL before the format is known. Valid until destroy;
 * st_loader_take_args_source (after finish) passes ownership to the caller
 * (st_argsrc_destroy), e.g. to keep it beside the trace. */
const st_argsrc *st_loader_args_source(const st_loader *l);
st_argsrc *st_loader_take_args_source(st_loader *l);
/* Streaming mode (core/import/stream): the builder the model is made in
 * (valid until finish; to create tracks and add events the file's bytes
 * do not hold), and, for Chrome JSON, the offset just past the last event
 * of the event list read (0 for other formats or before any). */
st_builder *st_loader_builder(st_loader *l);
uint64_t st_loader_events_end(const st_loader *l);
void st_loader_destroy(st_loader *l);

/* ---- an import split across workers (chrome_range.h) ----------------------
 * Instead of st_loader_push of the whole input, a front end with workers
 * applies task results in task order (k = 0, 1, ...), then calls
 * st_loader_finish as usual; the trace, stats, warnings and errors are
 * those of pushing the same bytes (a result that does not start where the
 * loader stands, checked, is not used: its task's bytes are pushed). */

/* 1 if an input whose first decoded bytes are head[0, n) (n >= 64, or the
 * whole input) may be split: uncompressed Chrome JSON. */
int st_load_splittable(const void *head, size_t n);
/* The same for compressed input: 1 if raw[0, n), the head of a gzip/zlib
 * file (64 KiB is plenty), inflates to Chrome JSON that may be split (its
 * first 64 decoded bytes, st_load_splittable); 0 if not compressed. */
int st_load_decoded_splittable(const void *raw, size_t n);
/* 1 if applying this result needs its task's bytes (they are pushed in
 * part or whole); 0 if the result alone will do. A front end that keeps
 * the bytes elsewhere (the page: in a worker) fetches them only then. */
int st_loader_apply_needs_bytes(st_loader *l, const void *result, size_t rlen);
/* Applies task k's result: result[0, rlen) from st_chrome_range_parse,
 * bytes[0, blen) the task's bytes (from its a_k; NULL/0 when
 * st_loader_apply_needs_bytes said 0). Returns like st_loader_push;
 * ST_ERR_ARG for a malformed result, results out of order or missing bytes. */
st_code st_loader_apply(st_loader *l, const void *result, size_t rlen, const void *bytes,
                        size_t blen);
/* Compressed input split the same way: the front end inflates it itself
 * with an st_source (source.h: raw bytes in, decoded bytes out, e.g. on its
 * own thread), cuts the DECODED bytes into tasks (st_load_splittable on the
 * decoded head), applies the results as above, and before
 * st_loader_finish hands over the source's outcome: its info (after
 * st_source_finish) and the first error it returned (ST_OK if none). The
 * stats (compressed, bytes_in, trailing garbage) and errors are then those
 * of pushing the raw bytes. */
void st_loader_set_inflated(st_loader *l, const st_source_info *info, st_code code,
                            const st_error *err);
/* Input bytes whose events came from replayed results (the rest was
 * parsed by the loader itself): how much of the import the workers did. */
uint64_t st_loader_split_bytes(const st_loader *l);

/* The one-line diagnosis front ends print for err:
 * "<file>: <msg> (at byte N[, line L, column C])" (file omitted if NULL).
 * Returns the length the full text needs, like snprintf. */
size_t st_load_error_line(const st_error *err, const char *file_name, char *buf, size_t cap);

#endif
