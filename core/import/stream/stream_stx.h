/* stream_stx.h: the `.stx` index file of a streamed trace (issue 20 part 2):
 * what a finished pass (stream.h) needs for windows and its summary, saved,
 * so opening the trace again skips the pass.
 *
 * Saving (after st_stream_finish, or of a stream opened from an index):
 *
 *   st_stream_range r[ST_STX_SAMPLES];                 // RAW byte ranges of the trace
 *   uint32_t n = st_stream_identity_plan(s, r);
 *   const uint8_t *bytes[ST_STX_SAMPLES];  ... read each r[k] of the trace file ...
 *   st_stream_save(s, summary, bytes, n, write, ud, &err);   // write(ud, data, len) in order
 *
 * Opening (the core does no I/O: the front end reads the index file, then
 * the trace's sampled ranges, and the core compares):
 *
 *   st_trace *summary;
 *   st_stream *s = st_stream_open_index(&desc, stx, stx_len, &summary, &err);
 *   n = st_stream_identity_plan(s, r);  ... read them (NULL where the file is short) ...
 *   if (st_stream_verify(s, "run.json", file_size, bytes, n, &err) != ST_OK)
 *     // "index does not match run.json: ...": destroy both and run the pass
 *   ... windows as after a pass (stream.h): st_stream_window_plan, st_stream_read_*, ...
 *
 * The stream opened is in the finished state: st_stream_stats and
 * st_stream_metadata_json are the pass's (load_ms and heap_bytes 0),
 * st_stream_info_get its figures, st_stream_take_args_source a JSON args
 * source (NULL for other formats: their summary is all there is), and
 * push / finish refuse (ST_ERR_ARG). The summary trace rebuilt through a
 * builder equals the pass's (st_trace_digest; the test:
 * tests/unit/test_stream_index.c).
 *
 * The trace's identity: its raw size, decoded size, format and compression,
 * and the SHA-256 of sampled raw blocks: the first and last 64 KiB and 16
 * blocks of 4 KiB evenly spaced between them (the whole file if it is at
 * most 192 KiB). A file that changed elsewhere passes unnoticed; sizes and
 * 18 hashes catch the usual cases (another run, a file rewritten, appended
 * or cut) at the cost of ~200 KiB of reads.
 *
 * An index is untrusted input like a trace: st_stream_open_index refuses
 * anything malformed with one line and the byte offset (ST_ERR_FORMAT:
 * not an index / a later version / features it does not know; ST_ERR_TRUNCATED;
 * ST_ERR_LIMIT: counts beyond the bytes; ST_ERR_FORMAT: values out of
 * range, the checksum), allocates at most a small multiple of len, and
 * never reads outside [bytes, bytes + len).
 *
 * The format (all integers little-endian, fixed width; no pointers):
 *   header   "STRATASTX" 0 0 0, u32 version (ST_STX_VERSION), u32 features
 *            (ST_STX_F_*: what a reader must know; unknown bits refuse)
 *   sections in this order, each: 4-byte tag, u64 payload length, payload
 *     IDNT  the trace: u64 raw size, u64 decoded size, u8 compressed,
 *           u8 format length + format, u32 n, n x (u64 offset, u64 length,
 *           32-byte SHA-256)
 *     STRS  u32 n, n x (u32 length, bytes): the strings (id 0 is "")
 *     STAT  the pass's st_stats (fields in declaration order, warnings with
 *           their kinds as text), u64 length + the metadata JSON
 *     STRM  block_bytes, max_buckets, bucket width, bucket base, buckets,
 *           summary events, events_end, bytes decoded, origin, end, windows
 *     BLKS  u64 n, n x (u64 first_src, u64 last_src, i64 lo, i64 hi, u64 events)
 *     EXCT  u64 n, n x (i64 pid, i64 key, u32 track name, u8 kind, u8 flags,
 *           i64 start, i64 dur, u32 name, u32 cat, u64 src, u64 end_src)
 *     GZIX  u8 present; if 1: u8 gzip, u64 span, u64 decoded size, u32 n, n x (u64 in, u64 out,
 *           u8 bits, u8 head, u32 window length, u32 packed length, the
 *           window raw-deflated: gzindex.h st_gzwin_pack)
 *     SUMM  the summary trace: i64 origin, i64 end; u32 processes x (i64 pid,
 *           u32 name, u32 labels, i32 sort); u32 tracks (overflow lanes are
 *           the layout's) x (u32 process, u8 kind, u8 indent, i64 key, u32
 *           name, i32 sort[, u32 unit with ST_STX_F_UNITS]); u32 frames x
 *           (u32 parent, u32 name); u64 events x (u32 track, i64 start,
 *           i64 dur, u32 name, u32 cat, u64 src, u8 flags); u64 counter
 *           samples x (u32 track, i64 ts, f64 value); u64 end srcs x
 *           (u64 src, u64 end_src)
 *   trailer  the SHA-256 of every byte before it
 * Times are absolute ns; strings are STRS indices (a stream with its own
 * string table writes all of it, so ids and keys come back the same; one
 * sharing a trace set's writes the strings it uses). A kind byte with
 * ST_STX_KEY_STRING: the key is a string (Chrome JSON's async groups and
 * counter series are keyed by their name's id). The skip list (stream.h)
 * is rebuilt from the exact events. Size: ~37 bytes per summary event
 * (bounded by max_buckets: a few tens of MB at most) plus the gzip points'
 * windows (32 KiB per 4 MiB decoded, 0.8%, resident; deflated in the file:
 * ~0.1-0.25% of the decoded size on trace text).
 */
#ifndef STRATA_STREAM_STX_H
#define STRATA_STREAM_STX_H

#include "stream.h"

#define ST_STX_MAGIC "STRATASTX"
#define ST_STX_VERSION 1u
enum {
  ST_STX_F_WINDOWS = 1u << 0, /* a block index for window loads (Chrome JSON) */
  ST_STX_F_GZIP = 1u << 1,    /* gzip restart points */
  ST_STX_F_FRAMES = 1u << 2,  /* the summary has CPU samples (a frame table) */
  ST_STX_F_UNITS = 1u << 3    /* SUMM's tracks carry a u32 unit (a counter's, st_track.unit) */
};
#define ST_STX_KNOWN_FEATURES (ST_STX_F_WINDOWS | ST_STX_F_GZIP | ST_STX_F_FRAMES | ST_STX_F_UNITS)
/* 1 if a track of t states a unit (the index then has ST_STX_F_UNITS) */
int st_stx_has_units(const st_trace *t);
#define ST_STX_SAMPLES 18
/* In a track's kind byte (SUMM, EXCT): the key is a string (STRS index). */
#define ST_STX_KEY_STRING 0x80u

/* Writes len bytes (of the index, in order): ST_OK or an error code that
 * stops the save. */
typedef st_code (*st_stx_write_fn)(void *ud, const void *data, size_t len);

/* The raw byte ranges of the trace that identify it (at most
 * ST_STX_SAMPLES, in file order): from the pass's raw size, or as the
 * index opened says. Returns how many. */
uint32_t st_stream_identity_plan(const st_stream *s, st_stream_range out[ST_STX_SAMPLES]);

/* Writes the index of finished stream s (summary: its summary trace) through
 * write; samples[k]: the bytes of planned range k (whole). ST_OK, or
 * ST_ERR_ARG (not finished, no summary, samples missing), ST_ERR_NOMEM, or
 * the writer's code; err says which. */
st_code st_stream_save(const st_stream *s, const st_trace *summary, const uint8_t *const *samples,
                       uint32_t nsamples, st_stx_write_fn write, void *ud, st_error *err);

/* The stream of an index file (finished state) and its summary trace in
 * *summary (owned by the caller; strings in desc->strings or the stream's
 * own, as a pass's). NULL + err (one line, with the byte offset) if the
 * bytes are not a valid index. desc: as st_stream_create's (file_name is
 * only a hint; block_bytes and max_buckets are the index's). */
st_stream *st_stream_open_index(const st_stream_desc *desc, const void *bytes, size_t len,
                                st_trace **summary, st_error *err);

/* Checks an opened index against its trace: raw_size the trace file's
 * size, samples[k] the bytes of planned range k (NULL if it could not be
 * read). ST_OK, or ST_ERR_ARG with "index does not match <file_name>: ..."
 * (a stale or foreign index: run the pass instead). */
st_code st_stream_verify(const st_stream *s, const char *file_name, uint64_t raw_size,
                         const uint8_t *const *samples, uint32_t nsamples, st_error *err);

#endif
