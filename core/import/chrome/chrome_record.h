/* chrome_record.h: the records of a range result (chrome_range.h): what a
 * worker read from one element of an event list, written into a byte
 * buffer without pointers, and read back on the main thread.
 *
 *   CREC_EVENT    a parsed event (st_chrome_ev) of a phase whose semantics
 *                 read no nested value: its scalar fields and its strings
 *                 (copied; nested values are not kept)
 *   CREC_RAW      an event's whole object text, parsed again on replay
 *   CREC_WARN     a warning of the list loop at an offset
 *   CREC_X        the most common event, shorter: an 'X' with numeric pid
 *                 and tid, a ts, and nothing its semantics would read
 *                 besides name, cat and dur (no bind_id)
 *
 * Layout of one record (native byte order: a result never leaves the
 * machine that wrote it; the header's magic catches a mix-up):
 *   u8 kind, u64 src, then
 *   EVENT: u32 mask (CF_* below: which fields follow), u32 nkeys, u8
 *          flags, [i64 ts] [i64 dur], per id (pid tid id id2 bind_id):
 *          u8 kind, [i64 num], [str s]; then the strings ph name cat
 *          scope_s scope event_stats bp, each [str] if present.
 *          str = u32 (bit 31: has escapes) length, bytes; or, for a
 *          string written before in the same result, u32 (bit 30 set)
 *          length, u32 offset of the earlier copy's length word from the
 *          result's start: each distinct string is stored once, so the
 *          main thread interns it once per result (by its address).
 *   RAW:   u32 length, bytes
 *   WARN:  u8 which (CREC_W_*)
 *   X:     u8 flags (1: has dur, 2: bad dur), i64 ts, [i64 dur], i64 pid,
 *          i64 tid, str name, str cat (absent: empty, which X reads alike)
 *
 *   st_chrome_recbuf rb = {0};
 *   st_chrome_rec_event(&rb, &alloc, &e, src);   // 0: out of memory
 *   st_chrome_rec_done(&rb, &alloc);             // the string index
 *   st_chrome_reader rd = {body, end, result_start, 0, 0, 0};
 *   while ((k = st_chrome_rec_next(&rd, &rec)) > 0) ...  // -1: malformed
 */
#ifndef STRATA_CHROME_RECORD_H
#define STRATA_CHROME_RECORD_H

#include "base.h"
#include "chrome_event.h"

enum { CREC_EVENT = 1, CREC_RAW = 2, CREC_WARN = 3, CREC_X = 4 };
enum { CREC_W_MISSING_COMMA = 0, CREC_W_NON_OBJECT = 1 };

typedef struct st_chrome_recbuf {
  uint8_t *p;
  size_t len, cap;
  uint32_t *seen; /* strings written so far: offset + 1 of their length word */
} st_chrome_recbuf;

/* Drops the records after the first len bytes (and the strings they held
 * from the index, so no later record refers to them). */
void st_chrome_rec_truncate(st_chrome_recbuf *rb, size_t len);
/* Frees the buffer's index of strings (the bytes stay: they are the result). */
void st_chrome_rec_done(st_chrome_recbuf *rb, const st_alloc *a);

/* Appending (0: out of memory; the buffer is then unchanged in meaning). */
int st_chrome_rec_reserve(st_chrome_recbuf *rb, const st_alloc *a, size_t more);
int st_chrome_rec_event(st_chrome_recbuf *rb, const st_alloc *a, const st_chrome_ev *e,
                        uint64_t src);
int st_chrome_rec_raw(st_chrome_recbuf *rb, const st_alloc *a, const char *obj, size_t n,
                      uint64_t src);
int st_chrome_rec_warn(st_chrome_recbuf *rb, const st_alloc *a, unsigned which, uint64_t src);
/* 1 if the event fits a CREC_X record (see above), written by
 * st_chrome_rec_x; st_chrome_rec_event writes any other. */
int st_chrome_rec_x_fits(const st_chrome_ev *e);
int st_chrome_rec_x(st_chrome_recbuf *rb, const st_alloc *a, const st_chrome_ev *e, uint64_t src);

/* 1 if the event must travel as its text (its semantics read args,
 * entries or the whole object; or its phase is not one the compact
 * record is known to serve). */
int st_chrome_rec_needs_raw(const st_chrome_ev *e);

typedef struct st_chrome_reader {
  const uint8_t *p, *end;
  const uint8_t *origin; /* the result's start: string back-references are from here */
  uint32_t mask;         /* (private) fields the last event record set */
  int primed;            /* (private) the st_chrome_rec's ev was cleared once */
  int xprimed;           /* (private) and its xev set up */
} st_chrome_reader;

typedef struct st_chrome_rec {
  unsigned kind, which;
  uint64_t src;
  st_chrome_ev ev;           /* CREC_EVENT: strings point into the result */
  st_chrome_ev xev;          /* CREC_X: the same, only an X's fields ever set */
  const char *raw, *raw_end; /* CREC_RAW */
} st_chrome_rec;

/* The next record: 1, 0 at the end, -1 if the bytes are malformed. Pass
 * the same *out with one reader every time (its ev is updated in place). */
int st_chrome_rec_next(st_chrome_reader *rd, st_chrome_rec *out);

#endif
