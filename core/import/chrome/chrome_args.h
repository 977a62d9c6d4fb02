/* chrome_args.h: an event's args, decoded on demand from the bytes of its JSON
 * object (the model keeps only `src`, the object's offset in the decoded
 * input; the page re-reads the object with Blob.slice, the CLI from the
 * file).
 *
 * st_args_extract() finds the top-level "args" member of one event object
 * and writes its value as compact JSON text: always valid JSON and UTF-8,
 * whatever the input (the input is untrusted):
 *   - invalid UTF-8 and lone surrogate escapes become U+FFFD;
 *   - control characters are escaped; other escapes are kept as written;
 *   - values nested deeper than ST_ARGS_MAX_DEPTH become the string "…";
 *   - when the output would exceed cap - 1 bytes, strings are cut with "…",
 *     further members are dropped and open containers are closed, and
 *     *truncated is set.
 * No "args" member gives "{}". The object may be followed by anything (a
 * comma, the next event): parsing stops at its closing brace. Bytes beyond
 * len are never read.
 *
 *   char out[1 << 16]; int cut;
 *   st_error err;
 *   if (st_args_extract(obj, n, out, sizeof out, &cut, &err) == ST_OK) show(out);
 */
#ifndef STRATA_CHROME_ARGS_H
#define STRATA_CHROME_ARGS_H

#include "base.h"

#define ST_ARGS_MAX_DEPTH 32

/* How many bytes of the event object a reader should fetch from src at
 * first (most events are far smaller); st_args_extract reports
 * ST_ERR_TRUNCATED when the object goes on beyond len, and the caller may
 * retry with more, up to ST_ARGS_MAX_OBJECT. */
#define ST_ARGS_FIRST_READ (64u * 1024u)
#define ST_ARGS_MAX_OBJECT (64u * 1024u * 1024u)

/* Returns ST_OK (out holds the args, NUL-terminated), ST_ERR_JSON (not an
 * object, or malformed before its end; err->offset says where),
 * ST_ERR_TRUNCATED (the input ended inside the object) or ST_ERR_ARG
 * (cap < 64). out is "{}" on every error. *out_len (may be NULL) gets the
 * length written. */
st_code st_args_extract(const char *json, size_t len, char *out, size_t cap, size_t *out_len,
                        int *truncated, st_error *err);

/* The args of a slice made of two events (a B/E pair: trace.h
 * st_trace_end_src), as the spec, catapult and Perfetto merge them: b (the
 * B's args) and e (the E's), each a JSON value text as st_args_extract
 * gives it. When both are objects: b's members whose key (escapes decoded)
 * is not a key of e, in b's order, then e's members, in e's order, so the
 * E wins on a duplicate key. Otherwise e, unless e is an empty object (then
 * b). The members' text is copied as it is; the result is compact JSON
 * between them ("," and ":").
 *
 * Writes the result to out (cap >= 64; nb + ne + 3 bytes always suffice),
 * NUL-terminated; a member that does not fit is dropped, with every member
 * after it, and *truncated set. Returns ST_OK, ST_ERR_JSON (b or e is not
 * a JSON value of that shape: out is "{}"), ST_ERR_NOMEM (a lookup table
 * of e's keys, 16 bytes per key, comes from a) or ST_ERR_ARG. */
st_code st_args_merge(const st_alloc *a, const char *b, size_t nb, const char *e, size_t ne,
                      char *out, size_t cap, size_t *out_len, int *truncated, st_error *err);

#endif
