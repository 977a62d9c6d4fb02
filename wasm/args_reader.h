/* args_reader.h: an event's args for the page, decoded on demand from the
 * bytes of its JSON object (core/import/args/args.h). The model keeps only `src`, the
 * event's offset in the decoded input; the page re-reads the file around it
 * (Blob.slice) and hands the bytes here.
 *
 * Plain files: the page reads [src, src + n) and calls st_argsrd_extract.
 * Compressed files: once per trace the page streams the whole file through
 * st_argsrd_index_push (a zran index, core/import/args/gzindex.h: ~0.8% of the decoded
 * size); then for each event st_argsrd_gz_begin says from which compressed
 * byte to read, st_argsrd_gz_push takes bytes until it has n decoded ones,
 * and st_argsrd_gz_extract decodes them.
 *
 * Every format (JSON, XSpace, Perfetto; gzip'd or not) goes through the
 * core's args source (core/import/args/argsrc.h), kept beside the trace shown:
 * st_argsrd_begin(src) says which decoded range to read, the page reads it
 * (st_argsrd_data for plain files; st_argsrd_gz_begin/push through the
 * index for compressed ones), st_argsrd_step decodes it and either asks
 * for another range or gives the args:
 *   {"read": {"offset": N, "length": N}} | {"args": {...}, "truncated": 0|1}
 *   | {"error": "<one line>"}
 *
 * Older entry points, JSON only: results are JSON text valid until the next call:
 *   {"args": <value>, "truncated": 0|1}  or  {"error": "<one line>", "more": 0|1}
 * where more = 1 asks for a larger read (the object went on beyond n bytes).
 */
#ifndef STRATA_WASM_ARGS_READER_H
#define STRATA_WASM_ARGS_READER_H

#include <stddef.h>
#include <stdint.h>

/* Takes ownership of the args source of the trace now shown (NULL: none);
 * the previous one is freed. */
struct st_argsrc;
/* Every open trace has its own source and index (a slot of the workspace,
 * wasm/app.h): st_argsrd_use(slot) makes slot's the one every other call
 * here works on (and drops a read in progress of another); st_argsrd_close
 * frees a slot's. Slot 0 until the first use. */
#define ST_ARGSRD_SLOTS 64
void st_argsrd_use(unsigned slot);
unsigned st_argsrd_current(void);
void st_argsrd_close(unsigned slot);
void st_argsrd_set_source(struct st_argsrc *as);
const char *st_argsrd_begin(double src);
/* The same for a slice made of two events (a B/E pair: core/model/trace.h
 * st_trace_end_src): the args of both merged, the end's winning on a
 * duplicate key (core/import/args/argsrc.h st_args_query_begin_end). The ranges of the
 * event at src are asked for, then those of the one at end_src (up to
 * 2 x ST_ARGS_QUERY_STEPS reads). end_src < 0: none. */
const char *st_argsrd_begin_end(double src, double end_src);
/* The st_args_kind of that source (ST_ARGS_NONE without one). */
int st_argsrd_kind(void);
/* That source (NULL without one), valid while st_argsrd_generation() (bumped
 * by every st_argsrd_set_source) stays the same. */
const struct st_argsrc *st_argsrd_source(void);
unsigned st_argsrd_generation(void);
/* Appends plain bytes of the range asked for; 0 ok, -1 out of memory. */
int st_argsrd_data(const void *data, size_t len);
const char *st_argsrd_step(void);

/* Drops the index (a new trace was loaded). */
void st_argsrd_reset(void);
int st_argsrd_index_ready(void);
/* 0 ok, else an st_code (the index is then unusable). */
int st_argsrd_index_push(const void *data, size_t len);
int st_argsrd_index_finish(void);

const char *st_argsrd_extract(const void *data, size_t len);

/* The compressed offset to read from, or -1 (no index / bad arguments). */
double st_argsrd_gz_begin(double src, double len);
/* 1 when enough was collected (call st_argsrd_gz_extract), 0 for more, -1 on error. */
int st_argsrd_gz_push(const void *data, size_t len);
const char *st_argsrd_gz_extract(void);

#endif
