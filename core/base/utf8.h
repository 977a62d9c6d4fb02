/* utf8.h: strict UTF-8 validation shared by the JSON writer (json_out.h,
 * and chrome_args.c's reader), the draw list's text and profile names, header
 * only.
 *
 * st_utf8_len(s, n) is the length (1..4) of the one well-formed UTF-8
 * sequence at the start of s[0, n), or 0 when there is none there:
 *   - a continuation byte (0x80..0xBF) or 0xC0, 0xC1, 0xF5..0xFF as lead;
 *   - a sequence cut by the end of the input (n too short);
 *   - a missing continuation byte;
 *   - an overlong form (3 bytes below U+0800, 4 bytes below U+10000; the
 *     2-byte ones are the excluded leads 0xC0 / 0xC1);
 *   - a UTF-16 surrogate (U+D800..U+DFFF) or a code point past U+10FFFF.
 * ASCII (below 0x80) is one byte. n must be at least 1.
 *
 * Callers replace an invalid byte with U+FFFD (EF BF BD) and go on with the
 * next byte.
 *
 * st_utf8_put(out, cp) writes code point cp (below U+110000) as 1..4 bytes
 * and returns how many; st_utf16_join(hi, lo) is the code point of a UTF-16
 * surrogate pair (hi in D800..DBFF, lo in DC00..DFFF), as JSON's \uXXXX
 * escapes write one. */
#ifndef STRATA_UTF8_H
#define STRATA_UTF8_H

#include <stddef.h>
#include <stdint.h>

static inline size_t st_utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  size_t len = c >= 0xF0 && c <= 0xF4   ? 4
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xC2 && c <= 0xDF ? 2
                                        : 0;
  if (!len || len > n) return 0;
  uint32_t cp = c & (0x3Fu >> (len - 1));
  for (size_t k = 1; k < len; k++) {
    unsigned cc = s[k];
    if ((cc & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (cc & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

static inline size_t st_utf8_put(unsigned char *out, uint32_t cp) {
  if (cp < 0x80) {
    out[0] = (unsigned char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (unsigned char)(0xC0 | cp >> 6);
    out[1] = (unsigned char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (unsigned char)(0xE0 | cp >> 12);
    out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    out[2] = (unsigned char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (unsigned char)(0xF0 | cp >> 18);
  out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
  out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
  out[3] = (unsigned char)(0x80 | (cp & 0x3F));
  return 4;
}

static inline uint32_t st_utf16_join(uint32_t hi, uint32_t lo) {
  return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
}

#endif
