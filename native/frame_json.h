/* frame_json.h: a frame's draw list written as JSON, for tests that check a
 * screenshot against what was drawn (`strata view --frame-json OUT`):
 *   {"width":W,"height":H,"dpr":D,"clear":RGBA,
 *    "cmds":[[kind,first,count,clip_x,clip_y,clip_w,clip_h],...],
 *    "rects":[[x,y,w,h,rgba,flags],...],"glyphs":[[x,y,w,h,rgba],...],
 *    "lines":[[x0,y0,x1,y1,width,rgba],...]}
 * CSS px; colours packed 0xAABBGGRR as in draw.h; kind: st_draw_kind. */
#ifndef STRATA_NATIVE_FRAME_JSON_H
#define STRATA_NATIVE_FRAME_JSON_H

#include <stddef.h>

#include "draw.h"

/* 0 on failure with one line in err. */
int nv_frame_json_write(const char *path, const st_drawlist *dl, float w, float h, float dpr,
                        char *err, size_t cap);

#endif
