/* args_search.h: search in events' args over the whole trace ("in args").
 *
 * Args are not resident (the model keeps each event's `src`), so an args
 * search is a streaming pass over the file, like a load: the raw file bytes
 * are pushed in order, in chunks of any size (down to 1 byte); gzip / zlib
 * are inflated by the loader's source layer (core/import/load/source.h). The result is
 * the ascending list of `src` offsets of the event objects whose args
 * contain the needle; st_find_add_srcs (core/index/query.h) turns them into the
 * search's match set.
 *
 * Chrome JSON. Event framing: every object that is an element of an
 * array and not inside another such object (the elements of "traceEvents",
 * or of a top-level array) is an event candidate; its offset is its '{'
 * (the importer's `src`). The mapping (st_find_add_srcs) turns the hit of
 * an "E" (the end of a B/E pair, also async "e" / legacy "F": no model
 * event of its own) into its slice, whose args are the B's and the E's
 * merged (trace.h st_trace_end_src); candidates that are no model event at
 * all (metadata "M" records, an E that closed nothing) are dropped by it.
 * (The B's and the E's args are searched as they are in the file: a B
 * value that the E overrides on the same key still finds the slice.)
 *
 * Matching: case-insensitive (ASCII folding; other UTF-8 bytes compared as
 * they are) substring of ONE token of the event's top-level "args" value:
 * a key, a string value (escapes decoded: \n, \", \uXXXX -> UTF-8, lone
 * surrogates -> U+FFFD) or a number / true / false / null literal, at any
 * nesting depth. A needle never spans two tokens (so "a\":\"b" does not
 * match {"a":"b"}), and fields outside "args" (name, cat, ph, ...) are
 * never looked at. Nesting deeper than ST_ARGS_SEARCH_MAX_DEPTH is
 * followed only by counting (framing stays correct).
 *
 * XSpace and Perfetto traces (st_args_search_create_for, given the trace's
 * args source and model): the decoded file is framed into top-level units
 * with pb_stream (XSpace: each XPlane; Perfetto: each Trace.packet), as the
 * importers frame it, so one unit is held at a time (capped like the
 * importers: ST_XPLANE_PLANE_MAX, ST_PERFETTO_PACKET_MAX). Every model
 * event (the rows' srcs and the SLICE_END events of begin/end slices,
 * gathered and sorted once per search: 8 bytes per event, freed at
 * finish; an END's hit maps to its slice) whose src lies inside the unit has its args
 * decoded by the args source (core/import/args/argsrc.h), every read served from the
 * unit's bytes, and the needle is matched on the args JSON text by the
 * same rule as above (keys, string values, literals). Events whose args
 * cannot be decoded that way (a read outside their unit, Perfetto events
 * inside compressed_packets, malformed records) are skipped and counted
 * (st_args_search_skipped). st_args_search_create (kind only) still fails
 * for these with ST_ERR_FORMAT, "args search is not available for <format>
 * traces": it has no args source.
 *
 *   st_args_search *s = st_args_search_create_for(&alloc, argsrc, trace, "fusion", 6, &err);
 *   while (n = read(...)) st_args_search_push(s, buf, n, &err);
 *   st_args_search_finish(s, &err);
 *   const uint64_t *srcs = st_args_search_hits(s, &count);
 *   st_find_add_srcs(find, srcs, count);
 *   st_args_search_destroy(s);
 *
 * Memory: 8 bytes per matching event candidate, nothing per event.
 */
#ifndef STRATA_ARGS_SEARCH_H
#define STRATA_ARGS_SEARCH_H

#include "argsrc.h"
#include "base.h"

#define ST_ARGS_SEARCH_MAX_NEEDLE 4096u
#define ST_ARGS_SEARCH_MAX_DEPTH 1024u

typedef struct st_args_search st_args_search;
struct st_trace;

/* NULL with err set: ST_ERR_FORMAT (kind is not ST_ARGS_JSON), ST_ERR_ARG
 * (empty needle, or longer than ST_ARGS_SEARCH_MAX_NEEDLE), ST_ERR_NOMEM. */
st_args_search *st_args_search_create(const st_alloc *a, st_args_kind kind, const char *needle,
                                      size_t len, st_error *err);
/* Any format, from the trace's args source (its kind says the format; JSON
 * needs nothing else). XSpace / Perfetto: `as` and `t` must outlive the
 * search. Fails like st_args_search_create (ST_ERR_FORMAT without a
 * source, or without t for a protobuf format). */
st_args_search *st_args_search_create_for(const st_alloc *a, const st_argsrc *as,
                                          const struct st_trace *t, const char *needle, size_t len,
                                          st_error *err);
void st_args_search_destroy(st_args_search *s);
/* Raw file bytes, in order. ST_OK or the first error (ST_ERR_GZIP,
 * ST_ERR_NOMEM); later calls return it again. Malformed JSON is not an
 * error: the framing goes on as well as it can (the trace was loaded). */
st_code st_args_search_push(st_args_search *s, const void *data, size_t len, st_error *err);
st_code st_args_search_finish(st_args_search *s, st_error *err);
/* The matching candidates' offsets, ascending. Valid until destroy. */
const uint64_t *st_args_search_hits(const st_args_search *s, size_t *count);
uint64_t st_args_search_decoded(const st_args_search *s); /* decoded bytes seen */
/* XSpace / Perfetto: events skipped (args not decodable from their unit); 0
 * for JSON. */
uint64_t st_args_search_skipped(const st_args_search *s);

#endif
