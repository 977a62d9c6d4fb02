/* argsrc.h: where an event's args are in the input, and how to decode them,
 * for every format (the model keeps only each event's `src`).
 *
 * An st_argsrc is a small per-trace description the loader builds beside
 * the model (st_loader_args_source): the format, and for protobuf the few
 * tables the bytes at `src` cannot be decoded without:
 *   - JSON: nothing; the args are the "args" member of the object at src
 *     (core/import/chrome/chrome_args.h).
 *   - XSpace: per drawn plane its byte range, its stat metadata names (a
 *     stat's key; also the text of `ref_value` stats) and, per event
 *     metadata id, the range of its XEventMetadata record (display name ->
 *     `long_name`, metadata stats). Stat names are few; event metadata
 *     costs 24 bytes per entry, not its text (HLO text stays in the file).
 *   - Perfetto: interned debug annotation names and interned string values
 *     per (sequence, incremental-state generation): each clear of a
 *     sequence's state starts a generation at that packet's offset, and an
 *     event at src uses the generation of its sequence in force at src.
 *     Resident text is capped at ST_ARGSRC_TEXT_MAX (beyond it, names show
 *     as "name_iid:N" and a warning is given).
 *
 * Decoding one event is a short dialogue, so a front end can fetch bytes
 * however it reads the file (fread, Blob.slice, through a gzip index):
 *
 *   st_args_span rd;
 *   st_args_query *q = st_args_query_begin(as, src, &rd, &err);
 *   int more = 1;
 *   while (q && more) {
 *     bytes = read decoded [rd.offset, rd.offset + rd.length) (fewer at EOF);
 *     if (st_args_query_push(q, bytes, n, &more, &rd, &err) != ST_OK) break;
 *   }
 *   if (q && !more) show(st_args_query_result(q, &len, &truncated));
 *   st_args_query_end(q);
 *
 * At most ST_ARGS_QUERY_STEPS reads per event are asked for (JSON: 64
 * KiB, then more when the object goes on; XSpace: the event record, then
 * its metadata record; Perfetto: the packet); a B/E slice's args are its
 * two events' (st_args_query_begin_end), read one after the other. The result is a JSON object
 * text, always valid JSON and UTF-8 (invalid UTF-8 becomes U+FFFD); past ST_ARGS_RESULT_MAX bytes
 * further members are dropped and *truncated set. XSpace stat values are JSON strings, numbers
 * included (as XProf's JSON writers emit them); stats named `_*` (XProf's internal ones) are
 * hidden. Perfetto annotation values keep their JSON types (integers beyond 2^53 become strings);
 * dicts and arrays nest. Events inside Perfetto compressed_packets report ST_ERR_FORMAT (their src
 * is the blob's).
 */
#ifndef STRATA_ARGSRC_H
#define STRATA_ARGSRC_H

#include "base.h"

typedef enum st_args_kind {
  ST_ARGS_NONE = 0,
  ST_ARGS_JSON = 1,
  ST_ARGS_XPLANE = 2,
  ST_ARGS_PERFETTO = 3
} st_args_kind;

#define ST_ARGSRC_TEXT_MAX ((size_t)16u << 20)
#define ST_ARGS_RESULT_MAX ((size_t)4u << 20)
#define ST_ARGS_QUERY_STEPS 4

typedef struct st_argsrc st_argsrc;

typedef struct st_args_span {
  uint64_t offset; /* in the decoded input */
  uint64_t length;
} st_args_span;

st_argsrc *st_argsrc_create(const st_alloc *a, st_args_kind kind);
void st_argsrc_destroy(st_argsrc *as);
st_args_kind st_argsrc_kind(const st_argsrc *as);   /* ST_ARGS_NONE for NULL */
const char *st_argsrc_kind_name(st_args_kind kind); /* "json", "xplane", ... */
size_t st_argsrc_bytes(const st_argsrc *as);        /* resident memory */
/* 1 once the text cap was hit (some interned names are not kept). */
int st_argsrc_capped(const st_argsrc *as);

/* ---- recording (importers) -------------------------------------------------
 * Each returns ST_OK or ST_ERR_NOMEM; the import goes on either way (args
 * are then incomplete, not wrong). Calls that do not match the kind are
 * ignored. */
/* XSpace: a plane (payload range); the calls below apply to the last one. */
st_code st_argsrc_xplane_plane(st_argsrc *as, uint64_t offset, uint64_t length);
st_code st_argsrc_xplane_stat(st_argsrc *as, uint64_t id, const uint8_t *name, size_t len);
/* the XEventMetadata message of map key id is at [offset, offset + length) */
st_code st_argsrc_xplane_event_meta(st_argsrc *as, uint64_t id, uint64_t offset, uint64_t length);
/* Perfetto: the packet at offset clears sequence seq's incremental state. */
st_code st_argsrc_perfetto_clear(st_argsrc *as, uint64_t seq, uint64_t offset);
/* Interned entry of sequence seq: table 0 = debug_annotation_names,
 * 1 = debug_annotation_string_values. */
st_code st_argsrc_perfetto_intern(st_argsrc *as, uint64_t seq, int table, uint64_t iid,
                                  const uint8_t *text, size_t len);

/* Perfetto system data: an FtraceEventBundle record (TracePacket field 1,
 * tag included) at [offset, offset + length), in ascending order. Events
 * whose src falls inside one are scheduling records; their details are
 * decoded from the bundle by the field at src: a sched_switch's next_pid
 * (the thread that starts running: thread, tid, process, pid, priority;
 * as a slice's end event: its end_state), its prev_state / prev_pid (the
 * thread that leaves: thread, tid, state), a sched_waking's pid, or the
 * same fields of a compact_sched element. A statsd_atom record (TracePacket
 * field 84) is registered the same way: an event whose src is one of its
 * atoms gets "atom_id" and the atom's fields. */
st_code st_argsrc_perfetto_bundle(st_argsrc *as, uint64_t offset, uint64_t length);
/* Thread tid of process pid, with the names the trace gives them (the last
 * call for a tid wins). */
st_code st_argsrc_perfetto_thread(st_argsrc *as, int64_t tid, int64_t pid, const uint8_t *tname,
                                  size_t tlen, const uint8_t *pname, size_t plen);

/* ---- decoding ------------------------------------------------------------ */
typedef struct st_args_query st_args_query;

/* NULL with err set (ST_ERR_ARG: no args source / src outside every plane;
 * ST_ERR_NOMEM). Otherwise *read is the first range to fetch. */
st_args_query *st_args_query_begin(const st_argsrc *as, uint64_t src, st_args_span *read,
                                   st_error *err);
/* The args of a slice made of two events (a B/E pair; trace.h
 * st_trace_end_src): the event at src's merged with those of its end event
 * at end_src, the end's winning on a duplicate key (st_args_merge, chrome_args.h).
 * The same dialogue: the reads of the event at src, then those of the one
 * at end_src (each up to ST_ARGS_QUERY_STEPS, so up to twice that in all),
 * then the merged result (capped at ST_ARGS_RESULT_MAX like any; truncated
 * if either part was). end_src == UINT64_MAX (no end event) or == src:
 * st_args_query_begin. Errors reading either event fail the query. */
st_args_query *st_args_query_begin_end(const st_argsrc *as, uint64_t src, uint64_t end_src,
                                       st_args_span *read, st_error *err);
/* The bytes of the range asked for (fewer only where the input ends).
 * ST_OK with *more = 1 and *read = the next range, or *more = 0: the result
 * is ready. Errors: ST_ERR_TRUNCATED (the record goes on past the input),
 * ST_ERR_PROTO / ST_ERR_JSON (no readable event at src; err->offset says
 * where), ST_ERR_LIMIT (a record over ST_ARGS_MAX_OBJECT), ST_ERR_FORMAT,
 * ST_ERR_NOMEM, ST_ERR_ARG (more reads than ST_ARGS_QUERY_STEPS). */
st_code st_args_query_push(st_args_query *q, const uint8_t *data, size_t len, int *more,
                           st_args_span *read, st_error *err);
/* The args as a JSON object text ("{}" until done). Valid until end. */
const char *st_args_query_result(const st_args_query *q, size_t *len, int *truncated);
void st_args_query_end(st_args_query *q);

#endif
