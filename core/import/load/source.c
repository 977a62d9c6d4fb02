/* source.c: compression sniffing and streaming inflate (see source.h).
 *
 * States: SNIFF holds up to 2 bytes until the compression can be decided;
 * PLAIN passes chunks through; INFLATE feeds zlib and hands its output to
 * the sink in ST_SOURCE_OUT_BYTES pieces; BETWEEN (gzip only) decides
 * whether the bytes after a finished member start another member (1F 8B) or
 * are trailing garbage; GARBAGE and DONE only count what still arrives.
 * zlib allocates through the caller's st_alloc, so heap accounting sees it.
 */
#include "source.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

typedef enum state { S_SNIFF, S_PLAIN, S_INFLATE, S_BETWEEN, S_GARBAGE, S_FAILED } state;

struct st_source {
  st_alloc alloc;
  st_source_sink sink;
  void *ud;
  state st;
  st_source_info info;
  uint8_t hold[2]; /* bytes kept while sniffing / deciding on a next member */
  unsigned nhold;
  z_stream zs;
  int z_ready;
  uint64_t raw_pos;      /* raw offset of the next byte to process */
  uint64_t member_start; /* raw offset where the current stream began */
  uint8_t *out;
  st_code failed;
  st_error error;
};

static void *z_alloc(void *opaque, uInt items, uInt size) {
  st_source *s = opaque;
  size_t n;
  if (!st_mul_size(items, size, &n)) return Z_NULL;
  return st_malloc(&s->alloc, n);
}

static void z_free(void *opaque, void *p) {
  st_source *s = opaque;
  st_free(&s->alloc, p);
}

st_compression st_source_sniff(int b0, int b1) {
  if (b0 < 0) return ST_COMPRESSION_UNKNOWN;
  if (b1 < 0) return b0 == 0x1F || (b0 & 0x0F) == 8 ? ST_COMPRESSION_UNKNOWN : ST_COMPRESSION_NONE;
  if (b0 == 0x1F && b1 == 0x8B) return ST_COMPRESSION_GZIP;
  if ((b0 & 0x0F) == 8 && (b0 >> 4) <= 7 && (b1 & 0x20) == 0 && ((b0 << 8) | b1) % 31 == 0)
    return ST_COMPRESSION_ZLIB;
  return ST_COMPRESSION_NONE;
}

st_source *st_source_create(const st_alloc *a, st_source_sink sink, void *ud) {
  st_alloc al = a ? *a : (st_alloc){0};
  st_source *s = st_calloc(&al, 1, sizeof *s);
  if (!s) return NULL;
  s->alloc = al;
  s->sink = sink;
  s->ud = ud;
  return s;
}

void st_source_destroy(st_source *s) {
  if (!s) return;
  if (s->z_ready) inflateEnd(&s->zs);
  st_alloc a = s->alloc;
  st_free(&a, s->out);
  st_free(&a, s);
}

const st_source_info *st_source_get_info(const st_source *s) { return s ? &s->info : NULL; }

static st_code fail(st_source *s, st_error *err, st_code code, uint64_t offset, const char *what) {
  s->st = S_FAILED;
  s->failed = code;
  st_error_set(&s->error, code, offset, "%s", what);
  if (err) *err = s->error;
  return code;
}

static st_code emit(st_source *s, st_error *err, const uint8_t *p, size_t n) {
  if (n == 0) return ST_OK;
  s->info.bytes_out += n;
  st_code c = s->sink ? s->sink(s->ud, p, n) : ST_OK;
  if (c != ST_OK) {
    s->st = S_FAILED;
    s->failed = c;
    s->error.code = c; /* the sink reported details through its own channel */
    s->error.msg[0] = 0;
  }
  return c;
}

static void garbage(st_source *s, size_t n) {
  if (n == 0) return;
  if (s->info.trailing_garbage == 0) s->info.trailing_offset = s->raw_pos;
  s->info.trailing_garbage += n;
  s->raw_pos += n;
  s->st = S_GARBAGE;
}

static st_code start_stream(st_source *s, st_error *err) {
  int window = s->info.compression == ST_COMPRESSION_GZIP ? 15 + 16 : 15;
  if (!s->out && !(s->out = st_malloc(&s->alloc, ST_SOURCE_OUT_BYTES)))
    return fail(s, err, ST_ERR_NOMEM, s->raw_pos, "out of memory (inflate buffer)");
  if (!s->z_ready) {
    s->zs.zalloc = z_alloc;
    s->zs.zfree = z_free;
    s->zs.opaque = s;
    if (inflateInit2(&s->zs, window) != Z_OK)
      return fail(s, err, ST_ERR_NOMEM, s->raw_pos, "out of memory (inflate state)");
    s->z_ready = 1;
  } else if (inflateReset(&s->zs) != Z_OK) {
    return fail(s, err, ST_ERR_GZIP, s->raw_pos, "inflate reset failed");
  }
  s->member_start = s->raw_pos;
  if (s->info.compression == ST_COMPRESSION_GZIP) s->info.members++;
  s->st = S_INFLATE;
  return ST_OK;
}

/* Inflates [p, p+n); stops early at the end of a stream (*used = bytes eaten). */
static st_code inflate_some(st_source *s, st_error *err, const uint8_t *p, size_t n, size_t *used) {
  const char *kind = s->info.compression == ST_COMPRESSION_GZIP ? "gzip" : "zlib";
  size_t left = n;
  *used = 0;
  while (left > 0) {
    /* avail_in is 32-bit; feed at most 1 GiB at a time */
    uInt take = left > (1u << 30) ? (1u << 30) : (uInt)left;
    s->zs.next_in = (Bytef *)(uintptr_t)p;
    s->zs.avail_in = take;
    for (;;) {
      s->zs.next_out = s->out;
      s->zs.avail_out = ST_SOURCE_OUT_BYTES;
      int r = inflate(&s->zs, Z_NO_FLUSH);
      size_t produced = ST_SOURCE_OUT_BYTES - s->zs.avail_out;
      size_t eaten = take - s->zs.avail_in;
      if (r == Z_STREAM_END) {
        s->raw_pos += eaten;
        *used += eaten;
        st_code c = emit(s, err, s->out, produced);
        if (c != ST_OK) return c;
        s->st = s->info.compression == ST_COMPRESSION_GZIP ? S_BETWEEN : S_GARBAGE;
        s->nhold = 0;
        return ST_OK;
      }
      if (r != Z_OK && r != Z_BUF_ERROR) {
        char msg[160];
        /* hand over what was decoded before the damage */
        if (r != Z_MEM_ERROR && emit(s, err, s->out, produced) != ST_OK) return s->failed;
        uint64_t at = s->member_start + s->zs.total_in;
        const char *why = s->zs.msg ? s->zs.msg : (r == Z_MEM_ERROR ? "out of memory" : "bad data");
        snprintf(msg, sizeof msg, "corrupt %s data at compressed byte %llu: %s", kind,
                 (unsigned long long)at, why);
        return fail(s, err, r == Z_MEM_ERROR ? ST_ERR_NOMEM : ST_ERR_GZIP, at, msg);
      }
      st_code c = emit(s, err, s->out, produced);
      if (c != ST_OK) return c;
      if (s->zs.avail_in == 0 && s->zs.avail_out != 0) break;
      if (r == Z_BUF_ERROR && produced == 0) break; /* no progress possible */
    }
    s->raw_pos += take;
    *used += take;
    p += take;
    left -= take;
  }
  return ST_OK;
}

static st_code process(st_source *s, st_error *err, const uint8_t *p, size_t n) {
  while (n > 0) {
    switch (s->st) {
    case S_PLAIN: {
      st_code c = emit(s, err, p, n);
      s->raw_pos += n;
      return c;
    }
    case S_INFLATE: {
      size_t used;
      st_code c = inflate_some(s, err, p, n, &used);
      if (c != ST_OK) return c;
      p += used;
      n -= used;
      break;
    }
    case S_BETWEEN:
      /* a finished gzip member: does another one follow? */
      if (s->nhold == 0) {
        if (p[0] != 0x1F) {
          garbage(s, n);
          return ST_OK;
        }
        s->nhold = 1;
        s->raw_pos++;
        p++;
        n--;
        break;
      }
      if (p[0] != 0x8B) {
        s->raw_pos--; /* the held 0x1F is garbage too */
        garbage(s, n + 1);
        return ST_OK;
      } else {
        static const uint8_t magic0 = 0x1F;
        size_t used;
        s->raw_pos--;
        st_code c = start_stream(s, err);
        if (c != ST_OK) return c;
        s->nhold = 0;
        c = inflate_some(s, err, &magic0, 1, &used);
        if (c != ST_OK) return c;
      }
      break;
    case S_GARBAGE: garbage(s, n); return ST_OK;
    case S_SNIFF:
    case S_FAILED: return s->failed ? s->failed : ST_ERR_ARG;
    }
  }
  return ST_OK;
}

static st_code decide(st_source *s, st_error *err) {
  s->info.compression =
      st_source_sniff(s->nhold > 0 ? s->hold[0] : -1, s->nhold > 1 ? s->hold[1] : -1);
  if (s->info.compression == ST_COMPRESSION_UNKNOWN) s->info.compression = ST_COMPRESSION_NONE;
  if (s->info.compression == ST_COMPRESSION_NONE) {
    s->st = S_PLAIN;
  } else {
    st_code c = start_stream(s, err);
    if (c != ST_OK) return c;
  }
  unsigned n = s->nhold;
  s->nhold = 0;
  return process(s, err, s->hold, n);
}

int st_source_skip(st_source *s, uint64_t n) {
  if (!s || s->st != S_PLAIN) return 0;
  s->info.bytes_in += n;
  s->info.bytes_out += n;
  return 1;
}

st_code st_source_push(st_source *s, const void *data, size_t len, st_error *err) {
  if (!s) return ST_ERR_ARG;
  if (s->st == S_FAILED) {
    if (err && s->error.msg[0]) *err = s->error;
    return s->failed;
  }
  if (len == 0) return ST_OK;
  if (!data) return ST_ERR_ARG;
  const uint8_t *p = data;
  s->info.bytes_in += len;
  if (s->st == S_SNIFF) {
    while (s->nhold < 2 && len > 0) {
      s->hold[s->nhold++] = *p++;
      len--;
    }
    if (s->nhold < 2) return ST_OK;
    st_code c = decide(s, err);
    if (c != ST_OK) return c;
  }
  return process(s, err, p, len);
}

st_code st_source_finish(st_source *s, st_error *err) {
  if (!s) return ST_ERR_ARG;
  if (s->st == S_FAILED) {
    if (err && s->error.msg[0]) *err = s->error;
    return s->failed;
  }
  if (s->st == S_SNIFF && s->nhold > 0) {
    st_code c = decide(s, err);
    if (c != ST_OK) return c;
  }
  if (s->st == S_INFLATE) {
    const char *kind = s->info.compression == ST_COMPRESSION_GZIP ? "gzip" : "zlib";
    char msg[160];
    snprintf(msg, sizeof msg, "truncated %s data: input ended inside a compressed stream", kind);
    return fail(s, err, ST_ERR_GZIP, s->raw_pos, msg);
  }
  if (s->st == S_BETWEEN && s->nhold) {
    s->raw_pos--;
    garbage(s, 1);
  }
  return ST_OK;
}
