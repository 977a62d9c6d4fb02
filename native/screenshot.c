/* screenshot.c: offscreen frame, glReadPixels -> PNG (see screenshot.h).
 *
 * The frame is drawn into an offscreen framebuffer (nv_offscreen) and read
 * back from it. GL's rows run bottom-up, a PNG's top-down: rows are flipped while each
 * gets its filter byte (0: none). The image is RGB; alpha is dropped (the
 * window is opaque). zlib does the deflate and the chunk CRCs.
 */
#include "screenshot.h"

#include <GLES3/gl3.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int nv_offscreen_begin(nv_offscreen *o, int fb_w, int fb_h) {
  memset(o, 0, sizeof *o);
  glGenFramebuffers(1, &o->fbo);
  glGenRenderbuffers(1, &o->rb);
  glBindRenderbuffer(GL_RENDERBUFFER, o->rb);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, fb_w, fb_h);
  glBindFramebuffer(GL_FRAMEBUFFER, o->fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, o->rb);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    nv_offscreen_end(o);
    return 0;
  }
  return 1;
}

void nv_offscreen_end(nv_offscreen *o) {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (o->fbo) glDeleteFramebuffers(1, &o->fbo);
  if (o->rb) glDeleteRenderbuffers(1, &o->rb);
  memset(o, 0, sizeof *o);
}

static void be32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

/* One chunk: length, type, data, CRC of type + data. 1 if written. */
static int chunk(FILE *f, const char *type, const unsigned char *data, uint32_t n) {
  unsigned char head[8], crc[4];
  be32(head, n);
  memcpy(head + 4, type, 4);
  uLong c = crc32(0L, head + 4, 4);
  if (n) c = crc32(c, data, n);
  be32(crc, (uint32_t)c);
  return fwrite(head, 1, 8, f) == 8 && (n == 0 || fwrite(data, 1, n, f) == n) &&
         fwrite(crc, 1, 4, f) == 4;
}

int nv_screenshot_png(const char *path, int fb_w, int fb_h, char *err, size_t cap) {
  if (fb_w < 1 || fb_h < 1 || fb_w > 32768 || fb_h > 32768) {
    snprintf(err, cap, "%s: bad image size %dx%d", path, fb_w, fb_h);
    return 0;
  }
  size_t w = (size_t)fb_w, h = (size_t)fb_h, row = 1 + 3 * w;
  unsigned char *rgba = malloc(4 * w * h);
  unsigned char *raw = malloc(row * h);
  uLongf zcap = compressBound((uLong)(row * h));
  unsigned char *z = malloc(zcap);
  int ok = 0;
  if (!rgba || !raw || !z) {
    snprintf(err, cap, "%s: out of memory", path);
    goto done;
  }
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, fb_w, fb_h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  if (glGetError() != GL_NO_ERROR) {
    snprintf(err, cap, "%s: cannot read the frame back (glReadPixels)", path);
    goto done;
  }
  for (size_t y = 0; y < h; y++) {
    const unsigned char *src = rgba + 4 * w * (h - 1 - y);
    unsigned char *dst = raw + row * y;
    *dst++ = 0;
    for (size_t x = 0; x < w; x++, src += 4, dst += 3) memcpy(dst, src, 3);
  }
  if (compress2(z, &zcap, raw, (uLong)(row * h), 6) != Z_OK) {
    snprintf(err, cap, "%s: cannot compress the image", path);
    goto done;
  }
  FILE *f = fopen(path, "wb");
  if (!f) {
    snprintf(err, cap, "%s: cannot write: %s", path, strerror(errno));
    goto done;
  }
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  unsigned char ihdr[13];
  be32(ihdr, (uint32_t)fb_w);
  be32(ihdr + 4, (uint32_t)fb_h);
  ihdr[8] = 8;  /* bits per channel */
  ihdr[9] = 2;  /* RGB */
  ihdr[10] = 0; /* deflate */
  ihdr[11] = 0; /* filters per row */
  ihdr[12] = 0; /* not interlaced */
  ok = fwrite(sig, 1, 8, f) == 8 && chunk(f, "IHDR", ihdr, 13) &&
       chunk(f, "IDAT", z, (uint32_t)zcap) && chunk(f, "IEND", NULL, 0);
  if (fclose(f) != 0) ok = 0;
  if (!ok) snprintf(err, cap, "%s: write error", path);
done:
  free(rgba);
  free(raw);
  free(z);
  return ok;
}
