/* import_chrome.h: Chrome Trace Event Format (JSON) -> st_builder, fed with
 * decoded bytes in chunks of any size.
 *
 * Bytes collect in a window; complete event objects are parsed one at a
 * time straight out of it (no tree) and handed to the builder; the rest of
 * the window moves to the front. An event cut by the window end is retried
 * only once the window has doubled past its start (or input ended), so a
 * huge event costs linear time. Top-level values that are not events
 * (metadata, stackFrames, ...) are skipped by a resumable scanner and never
 * held whole; metadata/otherData/other small keys are kept as raw JSON text
 * (up to ST_CHROME_META_VALUE_MAX bytes each) for a trace-info panel.
 *
 * Semantics follow FORMATS.md "strata's choices"; what each stats field
 * counts is documented in stats.h.
 *
 *   st_chrome_importer *im = st_chrome_create(&alloc, builder, &stats);
 *   st_chrome_push(im, bytes, n, &err); ...
 *   st_chrome_finish(im, &err);    // err.code may be set with a usable trace
 *   st_chrome_release(im);         // optional: frees the working state
 *   if (st_chrome_has_trace(im)) ... st_builder_finish(builder, ...)
 *   st_chrome_destroy(im);
 */
#ifndef STRATA_IMPORT_CHROME_H
#define STRATA_IMPORT_CHROME_H

#include "base.h"
#include "stats.h"
#include "trace.h"

#define ST_CHROME_META_VALUE_MAX (64u * 1024u)
/* a single event larger than this is refused (ST_ERR_LIMIT) */
#define ST_CHROME_EVENT_MAX ((size_t)512u * 1024u * 1024u)

/* pid key of the process that holds global-scope instants ("Global") */
#define ST_CHROME_GLOBAL_PID INT64_MIN
/* string pids/tids that are not integers get keys ST_CHROME_STRING_KEY + id */
#define ST_CHROME_STRING_KEY ((int64_t)-0x4000000000000000LL)

typedef struct st_chrome_importer st_chrome_importer;

st_chrome_importer *st_chrome_create(const st_alloc *a, st_builder *b, st_stats *stats);
void st_chrome_destroy(st_chrome_importer *im);
/* Returns ST_OK or the first error (a JSON error stops the import; the
 * events before it stay in the builder). */
st_code st_chrome_push(st_chrome_importer *im, const uint8_t *data, size_t len, st_error *err);
/* End of input: closes what is open (unclosed B, async) and reports a cut
 * object form as ST_ERR_TRUNCATED. A truncated array form is normal: only a
 * "truncated" warning. Returns the first error of the whole import. */
st_code st_chrome_finish(st_chrome_importer *im, st_error *err);
/* The offset just past the last element read from the event list by a
 * streamed import (not kept by st_chrome_replay_from): where the list's
 * events end, for streaming mode's window reads. 0 before any. */
uint64_t st_chrome_events_end(const st_chrome_importer *im);
/* 1 if the input was recognisably a trace (array form, or an object with a
 * traceEvents list) and the builder holds what was read. */
int st_chrome_has_trace(const st_chrome_importer *im);
/* JSON object text {"<top-level key>": <raw value>, ...} of the top-level
 * keys other than traceEvents/systemTraceEvents/stackFrames/samples, in
 * file order; values larger than ST_CHROME_META_VALUE_MAX are replaced by a
 * string saying so. Raw text: valid JSON if the file's was. Never NULL. */
const char *st_chrome_metadata_json(const st_chrome_importer *im);
/* After st_chrome_finish: frees the working state (the window, the id
 * maps of threads, async slices and flows, open-slice stacks) before the
 * builder is finished, so it does not add to that peak. has_trace and
 * metadata_json still answer; nothing else may be called but destroy. */
void st_chrome_release(st_chrome_importer *im);

/* ---- a split import (chrome_range.h) ----------------------------------------
 * 1 and *at = the offset of the next input byte if the importer stands
 * where a task result may be replayed: every byte pushed so far consumed,
 * inside the traceEvents list right after a comma. */
int st_chrome_replay_point(const st_chrome_importer *im, uint64_t *at);
/* Parses what the window holds now, even if a cut element asked to wait
 * for more bytes (that wait only saves re-parsing a huge element; without
 * force, a long pending element is parsed again only once the input grew
 * by half of it): a split import settles before it looks for the replay
 * point, and forced before it takes an error of the source. Returns like
 * push. */
st_code st_chrome_settle(st_chrome_importer *im, int force, st_error *err);
/* Replays a task result from its event at `from` on: its start (the whole
 * result), or the src of one of its events (st_range_parts_next) for a
 * result that did not start where the importer stood, once the importer
 * has been pushed up to that element. The importer must stand at the
 * replay point there (checked: ST_ERR_ARG, nothing changed); the result's
 * events go to the semantics as if the importer had parsed [from, stop)
 * itself, and it then stands at the result's stop (push the bytes from
 * there). A part's lines are counted in the task's bytes [base, base +
 * blen), which must hold [from, stop) (NULL for a whole result). A
 * malformed body fails the import there. */
st_code st_chrome_replay_from(st_chrome_importer *im, const uint8_t *result, size_t len,
                              uint64_t from, const uint8_t *bytes, size_t blen, uint64_t base,
                              st_error *err);

#endif
