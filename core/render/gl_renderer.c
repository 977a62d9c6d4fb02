/* gl_renderer.c: the GL ES 3 (WebGL2) backend for st_drawlist (see gl_renderer.h).
 *
 * Contents:
 *   shaders    compile/link the embedded GLSL (generated/shaders.h)
 *   pipelines  one VAO + instance buffer per primitive kind
 *   draw       upload once per frame, then one instanced draw per command
 *
 * WebGL2 has no base-instance draw, so a command's first instance is chosen
 * by re-pointing the instance attributes at its offset in the buffer (cheap:
 * a few calls per command, and a frame has tens of commands).
 */
#include "gl_renderer.h"

#include <GLES3/gl3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "shaders.h"

typedef struct pipeline {
  GLuint prog, vao, buf;
  GLint u_fb, u_dpr, u_atlas;
  size_t buf_bytes; /* allocated size of buf */
} pipeline;

struct st_gl_renderer {
  GLuint corners; /* the 4 quad corners, shared by all pipelines */
  pipeline rect, glyph, line;
};

/* ---- shaders ------------------------------------------------------------- */

static GLuint compile(GLenum type, const char *src, const char *what) {
  GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, NULL);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024];
    glGetShaderInfoLog(s, sizeof log, NULL, log);
    fprintf(stderr, "strata: shader %s failed to compile: %s\n", what, log);
    glDeleteShader(s);
    return 0;
  }
  return s;
}

static GLuint link_program(const char *vs_src, const char *fs_src, const char *what) {
  GLuint vs = compile(GL_VERTEX_SHADER, vs_src, what);
  GLuint fs = compile(GL_FRAGMENT_SHADER, fs_src, what);
  if (!vs || !fs) {
    if (vs) glDeleteShader(vs);
    if (fs) glDeleteShader(fs);
    return 0;
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, vs);
  glAttachShader(p, fs);
  glLinkProgram(p);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[1024];
    glGetProgramInfoLog(p, sizeof log, NULL, log);
    fprintf(stderr, "strata: program %s failed to link: %s\n", what, log);
    glDeleteProgram(p);
    return 0;
  }
  return p;
}

/* ---- pipelines ----------------------------------------------------------- */

static int pipeline_init(pipeline *p, GLuint corners, const char *vs, const char *fs,
                         const char *what) {
  p->prog = link_program(vs, fs, what);
  if (!p->prog) return 0;
  p->u_fb = glGetUniformLocation(p->prog, "u_fb");
  p->u_dpr = glGetUniformLocation(p->prog, "u_dpr");
  p->u_atlas = glGetUniformLocation(p->prog, "u_atlas");
  glGenVertexArrays(1, &p->vao);
  glGenBuffers(1, &p->buf);
  glBindVertexArray(p->vao);
  glBindBuffer(GL_ARRAY_BUFFER, corners);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (const void *)0);
  glVertexAttribDivisor(0, 0);
  for (GLuint i = 1; i <= 3; i++) {
    glEnableVertexAttribArray(i);
    glVertexAttribDivisor(i, 1);
  }
  glBindVertexArray(0);
  return 1;
}

static void pipeline_free(pipeline *p) {
  if (p->prog) glDeleteProgram(p->prog);
  if (p->vao) glDeleteVertexArrays(1, &p->vao);
  if (p->buf) glDeleteBuffers(1, &p->buf);
}

/* Uploads n records of size sz; grows the buffer geometrically. */
static void pipeline_upload(pipeline *p, const void *data, size_t n, size_t sz) {
  size_t bytes = n * sz;
  glBindBuffer(GL_ARRAY_BUFFER, p->buf);
  if (bytes > p->buf_bytes) {
    size_t cap = p->buf_bytes ? p->buf_bytes : 64 * 1024;
    while (cap < bytes) cap *= 2;
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)cap, NULL, GL_DYNAMIC_DRAW);
    p->buf_bytes = cap;
  }
  if (bytes) glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, data);
}

#define OFF(type, field, first)                                                                    \
  ((const void *)(offsetof(type, field) + (size_t)(first) * sizeof(type)))

/* Points the instance attributes of the bound VAO at record `first`. */
static void point_rects(uint32_t first) {
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(st_rect), OFF(st_rect, x, first));
  glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(st_rect),
                        OFF(st_rect, rgba, first));
  glVertexAttribIPointer(3, 1, GL_UNSIGNED_INT, sizeof(st_rect), OFF(st_rect, flags, first));
}

static void point_glyphs(uint32_t first) {
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(st_glyph_quad),
                        OFF(st_glyph_quad, x, first));
  glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, sizeof(st_glyph_quad),
                        OFF(st_glyph_quad, u0, first));
  glVertexAttribPointer(3, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(st_glyph_quad),
                        OFF(st_glyph_quad, rgba, first));
}

static void point_lines(uint32_t first) {
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(st_line), OFF(st_line, x0, first));
  glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, sizeof(st_line), OFF(st_line, width, first));
  glVertexAttribPointer(3, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(st_line),
                        OFF(st_line, rgba, first));
}

st_gl_renderer *st_gl_renderer_create(void) {
  st_gl_renderer *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  static const float corners[8] = {0, 0, 1, 0, 0, 1, 1, 1};
  glGenBuffers(1, &r->corners);
  glBindBuffer(GL_ARRAY_BUFFER, r->corners);
  glBufferData(GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
  if (!pipeline_init(&r->rect, r->corners, st_shader_rect_vert, st_shader_rect_frag, "rect") ||
      !pipeline_init(&r->glyph, r->corners, st_shader_glyph_vert, st_shader_glyph_frag, "glyph") ||
      !pipeline_init(&r->line, r->corners, st_shader_line_vert, st_shader_line_frag, "line")) {
    st_gl_renderer_destroy(r);
    return NULL;
  }
  return r;
}

void st_gl_renderer_destroy(st_gl_renderer *r) {
  if (!r) return;
  pipeline_free(&r->rect);
  pipeline_free(&r->glyph);
  pipeline_free(&r->line);
  if (r->corners) glDeleteBuffers(1, &r->corners);
  free(r);
}

/* ---- draw ---------------------------------------------------------------- */

static void set_scissor(const st_draw_cmd *c, int fb_w, int fb_h, float dpr) {
  float x0 = c->clip_x * dpr, y0 = c->clip_y * dpr;
  float x1 = (c->clip_x + c->clip_w) * dpr, y1 = (c->clip_y + c->clip_h) * dpr;
  int ix0 = (int)(x0 + 0.5f), iy0 = (int)(y0 + 0.5f);
  int ix1 = (int)(x1 + 0.5f), iy1 = (int)(y1 + 0.5f);
  if (ix0 < 0) ix0 = 0;
  if (iy0 < 0) iy0 = 0;
  if (ix1 > fb_w) ix1 = fb_w;
  if (iy1 > fb_h) iy1 = fb_h;
  if (ix1 < ix0) ix1 = ix0;
  if (iy1 < iy0) iy1 = iy0;
  /* GL's scissor origin is bottom-left */
  glScissor(ix0, fb_h - iy1, ix1 - ix0, iy1 - iy0);
}

static void use(const pipeline *p, int fb_w, int fb_h, float dpr) {
  glUseProgram(p->prog);
  glBindVertexArray(p->vao);
  glBindBuffer(GL_ARRAY_BUFFER, p->buf);
  glUniform2f(p->u_fb, (float)fb_w, (float)fb_h);
  glUniform1f(p->u_dpr, dpr);
  if (p->u_atlas >= 0) glUniform1i(p->u_atlas, 0);
}

void st_gl_renderer_draw(st_gl_renderer *r, const st_drawlist *dl, unsigned atlas_tex, int fb_w,
                         int fb_h, float dpr) {
  glViewport(0, 0, fb_w, fb_h);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_SCISSOR_TEST);
  uint32_t bg = dl->clear_rgba;
  glClearColor((float)(bg & 255) / 255.0f, (float)((bg >> 8) & 255) / 255.0f,
               (float)((bg >> 16) & 255) / 255.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);

  pipeline_upload(&r->rect, dl->rects, dl->rect_count, sizeof(st_rect));
  pipeline_upload(&r->glyph, dl->glyphs, dl->glyph_count, sizeof(st_glyph_quad));
  pipeline_upload(&r->line, dl->lines, dl->line_count, sizeof(st_line));

  glEnable(GL_BLEND);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glEnable(GL_SCISSOR_TEST);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, atlas_tex);

  const pipeline *cur = NULL;
  for (uint32_t i = 0; i < dl->cmd_count; i++) {
    const st_draw_cmd *c = &dl->cmds[i];
    if (!c->count) continue;
    const pipeline *p;
    uint32_t limit;
    switch (c->kind) {
    case ST_DRAW_RECTS:
      p = &r->rect;
      limit = dl->rect_count;
      break;
    case ST_DRAW_GLYPHS:
      p = &r->glyph;
      limit = dl->glyph_count;
      break;
    case ST_DRAW_LINES:
      p = &r->line;
      limit = dl->line_count;
      break;
    default: continue;
    }
    if (c->first > limit || c->count > limit - c->first) continue; /* malformed: skip */
    if (p != cur) {
      use(p, fb_w, fb_h, dpr);
      cur = p;
    }
    switch (c->kind) {
    case ST_DRAW_RECTS: point_rects(c->first); break;
    case ST_DRAW_GLYPHS: point_glyphs(c->first); break;
    default: point_lines(c->first); break;
    }
    set_scissor(c, fb_w, fb_h, dpr);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, (GLsizei)c->count);
  }
  glDisable(GL_SCISSOR_TEST);
  glBindVertexArray(0);
}
