/* json_scan.h: small, fast JSON pieces over contiguous memory, for importers
 * that parse one value at a time out of a streaming window.
 *
 * Nothing here builds a tree. Scanners take [p, end) and report OK (with the
 * end of what they read), INCOMPLETE (the value runs past `end`: call again
 * with more bytes) or BAD (syntax error at *out). Strings are byte ranges
 * between the quotes; st_json_unescape() decodes them on demand (escapes,
 * surrogate pairs, repair of invalid UTF-8 with U+FFFD). Numbers become
 * integers by decimal arithmetic on the digits, never through a double, so
 * microsecond timestamps beyond 2^53 keep every digit.
 *
 * st_json_skipper skips one string/array/object across any number of
 * windows (it keeps its state), for huge top-level values like stackFrames.
 *
 *   const char *e;
 *   if (st_json_skip_value(p, end, &e) == ST_JSON_OK) p = e;
 *   int64_t ns; st_json_decimal_scaled("12.5", 4, 3, &ns);  // 12500
 */
#ifndef STRATA_JSON_SCAN_H
#define STRATA_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>

typedef enum st_json_status { ST_JSON_OK = 0, ST_JSON_INCOMPLETE, ST_JSON_BAD } st_json_status;

/* A string value: raw bytes between the quotes; esc != 0 if it holds a '\'. */
typedef struct st_json_str {
  const char *p;
  size_t n;
  int esc;
} st_json_str;

static inline int st_json_is_ws(unsigned char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline const char *st_json_ws(const char *p, const char *end) {
  while (p < end && st_json_is_ws((unsigned char)*p)) p++;
  return p;
}

/* p points just after the opening quote. On OK *close points at the closing
 * quote and *esc says whether a backslash occurred. */
st_json_status st_json_string(const char *p, const char *end, const char **close, int *esc);

/* p points at the first byte of a value (no leading whitespace). On OK *out
 * is just past the value; on BAD *out is where the error is. A number or
 * literal that reaches `end` is INCOMPLETE (more digits may follow). The
 * skip is structural: brackets must balance, contents are not validated. */
st_json_status st_json_skip_value(const char *p, const char *end, const char **out);

/* Decodes a raw string body into out (capacity >= 3 * n suffices): escapes
 * to UTF-8, surrogate pairs combined, lone surrogates and invalid UTF-8 bytes
 * become U+FFFD, \u0000 kept as a 0 byte. Returns the decoded length. */
size_t st_json_unescape(const char *s, size_t n, char *out);
/* The \uXXXX escape at s[0, n) (s[0] the backslash), with the low half
 * that follows a high surrogate: returns the bytes it spans (6, or 12 for a
 * pair) and sets *cp to its code point, U+FFFD for a surrogate without its
 * other half (a pair cut by n counts as such); 0 when s is not a backslash,
 * 'u' and four hex digits; -1 when n < 6 (the escape is cut). */
int st_json_u_escape(const unsigned char *s, size_t n, uint32_t *cp);
/* 1 if [s, s+n) is valid UTF-8 with no backslash (usable as is). */
int st_json_plain_utf8(const char *s, size_t n);

/* Decimal text (JSON number grammar, leniently: leading '+', leading zeros
 * and a missing fraction are accepted) times 10^scale, rounded half away
 * from zero after the last kept digit. 0 if not a number or out of int64
 * range. scale 3 turns microseconds into nanoseconds, 0 rounds to integer. */
int st_json_decimal_scaled(const char *p, size_t n, int scale, int64_t *out);
/* Integer with uint64 wrap-around for values in (INT64_MAX, UINT64_MAX]
 * (ids and tids written as unsigned); fractions are rounded. 0 if bad. */
int st_json_int_key(const char *p, size_t n, int64_t *out);
/* Double via strtod on a bounded copy; accepts NaN/Infinity spellings. */
int st_json_double(const char *p, size_t n, double *out);
/* End of a number token starting at p (no validation). */
const char *st_json_number_end(const char *p, const char *end);
/* The member k of the object starting at p (after whitespace), its key
 * compared unescaped: 1 with [*v, *ve) its value, 0 if absent or not an
 * object. No tree: a scan of the object's members. */
int st_json_member(const char *p, const char *end, const char *k, const char **v, const char **ve);

/* ---- resumable skipping of one string / array / object -------------------- */
typedef struct st_json_skipper {
  uint64_t depth;
  uint8_t in_string, escape, started;
} st_json_skipper;

/* Consumes bytes of the value from p. OK: the value ended at *out (just past
 * it). INCOMPLETE: all of [p, end) was consumed (*out == end); call again
 * with the following bytes. BAD: *out at the offending byte (the value does
 * not start with '"', '[' or '{', or a bracket closes nothing). */
st_json_status st_json_skipper_run(st_json_skipper *s, const char *p, const char *end,
                                   const char **out);

#endif
