/* pb_sniff.c: Perfetto vs XSpace on a 0x0A first byte (see pb_sniff.h). */
#include "pb_sniff.h"

#include "pb_wire.h"

#include <string.h>

static int has_prefix(const uint8_t *s, size_t n, const char *p) {
  size_t m = strlen(p);
  if (n < m) m = n; /* a name cut by the sniff window still counts */
  return m >= 5 && memcmp(s, p, m) == 0;
}

st_pb_kind st_pb_sniff(const uint8_t *data, size_t len) {
  const uint8_t *p = data, *end = data + len;
  uint64_t v, mlen;
  int n;
  if (len < 2 || p[0] != 0x0A) return ST_PB_PERFETTO;
  p++;
  if ((n = st_pb_varint(p, end, &mlen)) <= 0) return ST_PB_PERFETTO;
  p += n;
  if (mlen < (uint64_t)(end - p)) end = p + mlen;
  for (int field = 0; p < end && field < 4; field++) {
    uint64_t tag;
    if ((n = st_pb_varint(p, end, &tag)) <= 0) break;
    p += n;
    unsigned wire = (unsigned)(tag & 7);
    uint64_t num = tag >> 3;
    if (field == 0 && num == 1 && wire == ST_PB_VARINT) return ST_PB_XSPACE;
    if (wire == ST_PB_VARINT) {
      if ((n = st_pb_varint(p, end, &v)) <= 0) break;
      p += n;
    } else if (wire == ST_PB_LEN) {
      if ((n = st_pb_varint(p, end, &v)) <= 0) break;
      p += n;
      size_t avail = (size_t)(end - p) < v ? (size_t)(end - p) : (size_t)v;
      if (num == 2 &&
          (has_prefix(p, avail, "/device:") || has_prefix(p, avail, "/host:") ||
           has_prefix(p, avail, "/custom:") || has_prefix(p, avail, "Task Environment")))
        return ST_PB_XSPACE;
      if (v > (uint64_t)(end - p)) break;
      p += v;
    } else if (wire == ST_PB_I64 || wire == ST_PB_I32) {
      size_t w = wire == ST_PB_I64 ? 8 : 4;
      if ((size_t)(end - p) < w) break;
      p += w;
    } else {
      break;
    }
  }
  return ST_PB_PERFETTO;
}
