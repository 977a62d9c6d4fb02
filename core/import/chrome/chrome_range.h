/* chrome_range.h: a Chrome JSON import split across workers (issue 21).
 *
 * The decoded input (size bytes) is cut into tasks at nominal offsets
 * a_k = k * task_bytes (st_range_plan). A worker (a CLI thread, a page Web
 * Worker running the small parse module) parses task k on its own, from the
 * bytes [a_k, min(a_{k+1} + ST_RANGE_SLACK, size)), into a result: a
 * self-contained byte blob (no pointers, so it may cross threads or
 * postMessage) that a main thread hands, in task order, to
 * st_loader_apply (load.h). The main thread's importer replays the events
 * of a result when the result starts exactly where the importer stands, at
 * the start of an event-list element after a comma (checked), and is
 * otherwise fed the task's bytes as a one-worker import would be. So the
 * model, stats, warnings and errors are those of a one-worker import
 * whatever the cut points, and a wrong guess only costs time.
 *
 * Where task k starts: c_k = the first '{' in [a_k, a_k + ST_RANGE_SCAN)
 * that follows '}' ws* ',' ws* (where two elements of an event list meet).
 * A string can fool that scan (`"},{"` inside a name): the check on the
 * main thread catches it. Task k parses elements from c_k the way the
 * importer's list loop does, and stops at the first '{' element at or
 * after c_{k+1} (the same scan at a_{k+1}) that follows a comma, at the
 * list's ']', at a syntax error or an event cut by the end of its bytes:
 * what follows is the main thread's (or the next task's) job. Task 0 starts
 * at c_0 too: the file's head (the top-level '{', other keys, the first
 * event) is always parsed on the main thread.
 *
 * What a result holds, per element: a compact record (the parsed fields,
 * strings copied) for the phases whose semantics read no nested value
 * (X B E i I R b e n s t f S), the element's whole text for the others
 * (M C P T p F, CpuProfile, events with counter `entries`), re-parsed on
 * replay; the warnings the list loop gives (missing_comma,
 * non_object_event) with their offsets; and the newlines of the range,
 * so error lines and columns stay right.
 *
 *   uint64_t tb;
 *   uint32_t n = st_range_plan(size, workers, &tb);   // 0: import on one worker
 *   // worker, task k:
 *   size_t rlen;
 *   uint8_t *r = st_chrome_range_parse(&alloc, bytes, len, k * tb, next, size, &rlen);
 *   // main thread, k = 0, 1, ...: st_loader_apply(loader, r, rlen, bytes, len)
 */
#ifndef STRATA_CHROME_RANGE_H
#define STRATA_CHROME_RANGE_H

#include "base.h"

/* bytes past its nominal end a task reads (the end of its last event and
 * the next task's start must lie within them) */
#define ST_RANGE_SLACK ((uint64_t)1u << 20)
/* how far past a_k the scan for c_k looks (< ST_RANGE_SLACK) */
#define ST_RANGE_SCAN ((uint64_t)512u * 1024u)
/* below this input size one worker is used: starting workers would not pay */
#define ST_RANGE_MIN_SPLIT ((uint64_t)24u << 20)

/* The number of tasks to cut an input of `size` bytes into for `workers`
 * workers (their nominal size in *task_bytes), or 0 when one worker should
 * import it (workers <= 1, or a small input). */
uint32_t st_range_plan(uint64_t size, uint32_t workers, uint64_t *task_bytes);

/* Parses one task: bytes = the decoded input [base, base + len), base =
 * a_k, next = a_{k+1} (size for the last task), size = the whole input's
 * size. Returns the result (allocated with a; *out_len bytes), or NULL when
 * out of memory or on bad arguments. Never fails on bad input: trouble ends
 * the range early and the main thread meets it itself. */
uint8_t *st_chrome_range_parse(const st_alloc *a, const uint8_t *bytes, size_t len, uint64_t base,
                               uint64_t next, uint64_t size, size_t *out_len);

/* Why a range stopped (st_range_info.status). */
enum {
  ST_RANGE_AT_NEXT = 0, /* at the element that starts at or after c_{k+1} (after a comma) */
  ST_RANGE_LIST_END,    /* at the list's ']' */
  ST_RANGE_TROUBLE,     /* at an element it could not read (syntax error, cut by the bytes' end) */
  ST_RANGE_NO_START     /* no c_k in the scan window: nothing parsed */
};

/* A result's header, read and checked. */
typedef struct st_range_info {
  uint64_t base, next, size; /* the task: a_k, a_{k+1}, the input's size */
  uint64_t start;            /* c_k, where parsing began (UINT64_MAX: ST_RANGE_NO_START) */
  uint64_t stop;             /* where it ended: the first byte not consumed */
  uint32_t status;           /* ST_RANGE_* */
  uint32_t expect_value;     /* the list loop's flags at stop */
  uint32_t after_comma;
  uint64_t last_src;   /* src of the last element consumed (UINT64_MAX: none) */
  uint64_t newlines;   /* '\n' bytes in [start, stop) */
  uint64_t last_nl;    /* offset of the last of them (UINT64_MAX: none) */
  uint64_t records;    /* elements and warnings recorded */
  uint64_t body_bytes; /* bytes of records after the header */
} st_range_info;

/* 1 and *out filled if blob[0, len) is a well-formed result header whose
 * body fits, else 0 (a result is input like any other: the page's
 * workers are trusted no more than a file). */
int st_range_info_read(const uint8_t *blob, size_t len, st_range_info *out);
/* The records after the header (st_range_info.body_bytes of them; read
 * with chrome_record.h) of a result st_range_info_read accepted. */
const uint8_t *st_range_body(const uint8_t *blob);

/* Where a part of a result may be replayed from (import_chrome.h
 * st_chrome_replay_from): the srcs of its events that follow a comma, in
 * order. For a result that did not start where the main thread stood (a
 * string fooled the scan, or the first task began in a list before
 * traceEvents, as Kineto's deviceProperties): the main thread catches up
 * at one of them. */
typedef struct st_range_parts {
  const uint8_t *p, *end, *origin;
} st_range_parts;
/* blob: a result st_range_info_read accepted */
void st_range_parts_begin(st_range_parts *it, const uint8_t *blob, size_t len);
/* 1 and *src, or 0 at the end (or at a malformed record) */
int st_range_parts_next(st_range_parts *it, uint64_t *src);

#endif
