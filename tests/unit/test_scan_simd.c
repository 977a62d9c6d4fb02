/* test_scan_simd.c: core/base/scan_simd.h and the JSON skips built on it, against
 * byte-by-byte references, on random bytes from a JSON-heavy alphabet at
 * every length 0..100 and every start offset 0..17 (so every 16-byte block
 * split and tail is hit). ctest runs it natively (the portable paths); the
 * wasm SIMD128 paths run when it is built with emcc -msimd128 and run under
 * node (tools/scripts/test_wasm_scan). */
#include <stdlib.h>

#include "check.h"
#include "json_scan.h"
#include "scan_simd.h"

static uint32_t rng = 12345;
static unsigned rnd(unsigned n) {
  rng = rng * 1664525u + 1013904223u;
  return (rng >> 8) % n;
}

/* bytes that matter to the scans, plus filler and non-ASCII */
static const char k_alphabet[] = "\"\\[]{}\n a:,0";
static void fill(char *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned r = rnd(16);
    b[i] = r < sizeof k_alphabet - 1 ? k_alphabet[r] : (char)(0x80 + rnd(128));
  }
}

static const char *ref_byte(const char *p, const char *e, char c) {
  for (; p < e; p++)
    if (*p == c) return p;
  return NULL;
}

static void test_scans(void) {
  char buf[128], buf2[128];
  for (int round = 0; round < 60; round++) {
    fill(buf, sizeof buf);
    for (size_t off = 0; off < 18; off++) {
      for (size_t n = 0; off + n <= 118; n++) {
        const char *p = buf + off, *e = p + n;
        for (const char *c = k_alphabet; *c; c++) {
          CHECK(st_scan_byte(p, e, *c) == ref_byte(p, e, *c));
          CHECK_EQ_INT(st_scan_contains(p, e, *c), ref_byte(p, e, *c) != NULL);
          size_t k = 0;
          const char *last = NULL;
          for (const char *q = p; q < e; q++) k += *q == *c, last = *q == *c ? q : last;
          CHECK_EQ_INT(st_scan_count(p, e, *c), k);
          CHECK(st_scan_last_byte(p, e, *c) == last);
        }
        const char *r2 = p;
        while (r2 < e && *r2 != '"' && *r2 != '\\') r2++;
        CHECK(st_scan_byte2(p, e, '"', '\\') == r2);
        const char *rs = p;
        while (rs < e && !(*rs == '"' || *rs == '[' || *rs == ']' || *rs == '{' || *rs == '}'))
          rs++;
        CHECK(st_scan_structural(p, e) == rs);
        size_t ra = 0;
        while (ra < n && (unsigned char)p[ra] < 0x80 && p[ra] != '\\') ra++;
        CHECK_EQ_INT(st_scan_plain_ascii(p, n), ra);
        memcpy(buf2, buf, sizeof buf);
        CHECK(st_scan_equal(buf2 + off, p, n));
        if (n) {
          size_t at = rnd((unsigned)n);
          buf2[off + at] ^= 1 << rnd(8);
          CHECK(!st_scan_equal(buf2 + off, p, n));
        }
      }
    }
  }
}

/* The reference skip of one array/object: a byte state machine. Returns the
 * end (just past the value) or NULL if it does not close within [p, e). */
static const char *ref_skip(const char *p, const char *e) {
  uint64_t depth = 0;
  int in_str = 0;
  for (; p < e; p++) {
    char c = *p;
    if (in_str) {
      if (c == '\\')
        p++;
      else if (c == '"')
        in_str = 0;
    } else if (c == '"') {
      in_str = 1;
    } else if (c == '[' || c == '{') {
      depth++;
    } else if (c == ']' || c == '}') {
      if (--depth == 0) return p + 1;
    }
  }
  return NULL;
}

/* Random nested values with strings holding escapes, brackets and quotes. */
static size_t gen_value(char *o, size_t cap, int depth) {
  size_t n = 0;
#define PUT(ch)                                                                                    \
  do {                                                                                             \
    if (n < cap) o[n] = (ch);                                                                      \
    n++;                                                                                           \
  } while (0)
  unsigned kind = depth > 6 ? rnd(2) : rnd(4);
  if (kind == 0) {
    PUT('"');
    for (unsigned i = 0, len = rnd(40); i < len; i++) {
      unsigned r = rnd(12);
      if (r == 0) {
        PUT('\\');
        PUT("\"\\n/"[rnd(4)]);
      } else if (r == 1) {
        PUT("[]{}:,"[rnd(6)]);
      } else {
        PUT((char)('a' + rnd(26)));
      }
    }
    PUT('"');
  } else if (kind == 1) {
    for (unsigned i = 0, len = 1 + rnd(6); i < len; i++) PUT((char)('0' + rnd(10)));
  } else {
    int obj = kind == 3;
    PUT(obj ? '{' : '[');
    for (unsigned i = 0, len = rnd(5); i < len; i++) {
      if (i) PUT(',');
      if (obj) {
        PUT('"');
        PUT('k');
        PUT('"');
        PUT(':');
      }
      size_t m = gen_value(n < cap ? o + n : o, n < cap ? cap - n : 0, depth + 1);
      n += m;
    }
    PUT(obj ? '}' : ']');
  }
#undef PUT
  return n;
}

static void test_skip_value(void) {
  static char buf[1 << 16];
  int containers = 0;
  for (int round = 0; round < 3000; round++) {
    size_t n = gen_value(buf, sizeof buf - 64, 0);
    if (n > sizeof buf - 64 || (buf[0] != '[' && buf[0] != '{')) continue;
    containers++;
    memcpy(buf + n, " ,\"x\"]}", 7); /* what follows a value */
    const char *want = ref_skip(buf, buf + n + 7);
    CHECK(want == buf + n);
    const char *out = NULL;
    CHECK_EQ_INT(st_json_skip_value(buf, buf + n + 7, &out), ST_JSON_OK);
    CHECK(out == buf + n);
    /* cut anywhere inside: incomplete, never past the cut */
    for (size_t cut = 0; cut < n; cut += 1 + rnd(7)) {
      CHECK_EQ_INT(st_json_skip_value(buf, buf + cut, &out), ST_JSON_INCOMPLETE);
    }
    /* the resumable skipper agrees, fed in random pieces */
    st_json_skipper sk = {0};
    const char *p = buf, *e = buf + n + 7;
    st_json_status s = ST_JSON_INCOMPLETE;
    while (p < e && s == ST_JSON_INCOMPLETE) {
      const char *pe = p + 1 + rnd(40);
      if (pe > e) pe = e;
      s = st_json_skipper_run(&sk, p, pe, &out);
      p = out;
    }
    CHECK_EQ_INT(s, ST_JSON_OK);
    CHECK(out == buf + n);
  }
  CHECK(containers > 1000);
}

/* Long strings of plain bytes with the odd escape: the block path and its
 * hand-overs to the byte-wise scan inside and outside strings. */
static void test_skip_long(void) {
  static char buf[8192];
  for (int round = 0; round < 400; round++) {
    size_t n = 0;
    buf[n++] = '{';
    for (int k = 0; k < 1 + (int)rnd(12); k++) {
      if (k) buf[n++] = ',';
      buf[n++] = '"';
      buf[n++] = 'k';
      buf[n++] = '"';
      buf[n++] = ':';
      buf[n++] = '"';
      for (unsigned i = 0, len = rnd(300); i < len; i++) {
        unsigned r = rnd(60);
        if (r == 0) {
          buf[n++] = '\\';
          buf[n++] = '"';
        } else if (r == 1) {
          buf[n++] = '\\';
          buf[n++] = '\\';
        } else if (r < 5) {
          buf[n++] = "[]{}"[r - 1];
        } else {
          buf[n++] = (char)(' ' + rnd(2) + (r % 7 ? 'a' - ' ' : 0));
        }
      }
      buf[n++] = '"';
      if (rnd(3) == 0) {
        memcpy(buf + n, ",\"a\":[1,{\"b\":[]}]", 17);
        n += 17;
      }
    }
    buf[n++] = '}';
    const char *out = NULL;
    CHECK(ref_skip(buf, buf + n) == buf + n);
    CHECK_EQ_INT(st_json_skip_value(buf, buf + n, &out), ST_JSON_OK);
    CHECK(out == buf + n);
    CHECK_EQ_INT(st_json_skip_value(buf, buf + n - 1, &out), ST_JSON_INCOMPLETE);
  }
}

int main(void) {
  printf("scan paths: %s\n", ST_SCAN_SIMD ? "wasm simd128" : "portable");
  RUN(test_scans);
  RUN(test_skip_value);
  RUN(test_skip_long);
  return check_report();
}
