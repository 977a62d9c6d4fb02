/* draw_blocks.c: memory blocks tracks (st_track.block_span > 0).
 *
 * A blocks track's lanes all lie in one band ST_VIEW_BLOCKS_H high: its
 * BLOCK_ROWS pixel rows (1 px inside its top and bottom) each stand for
 * span / BLOCK_ROWS bytes of its address space. A block covers the pixel
 * rows from floor(y) to ceil(y + size) (at least one: nothing that exists
 * disappears). The index (built on the first frame that draws the trace's
 * blocks, kept in the drawlist while the trace and its parts' offsets stay
 * the same): per pixel row the union of the time ranges of the blocks
 * covering it, as disjoint intervals sorted by start, each named after the
 * first block in it (its colour: the block's top frame). A frame draws per
 * pixel row the intervals in its window, those under a pixel folded into a
 * 1 px rect (one binary search per rect): at most about two rects per
 * pixel column per pixel row, whatever the number of blocks or lanes. */
#include "draw_internal.h"

#include "bisect.h"
#include "merge_sort.h"

#include <math.h>
#include <stdio.h> /* snprintf only */
#include <string.h>

enum { BLOCK_ROWS = 158 }; /* ST_VIEW_BLOCKS_H - 2 */
_Static_assert(BLOCK_ROWS == (int)ST_VIEW_BLOCKS_H - 2, "a pixel row each");
#define BLOCK_SEL_MAX 4096u /* selected blocks outlined per frame */

typedef struct bix_iv {
  int64_t start, end;
  uint32_t name, prow; /* prow: the pixel row (while building) */
} bix_iv;

typedef struct bix_track {
  uint32_t track;
  size_t first[BLOCK_ROWS + 1]; /* pixel row p's intervals: [first[p], first[p + 1]) */
} bix_track;

typedef struct st_block_index st_block_index;
struct st_block_index {
  bix_track *tr;
  uint32_t ntr;
  bix_iv *iv;
  size_t niv;
};

void dr_block_index_free(st_block_index *x, const st_alloc *a) {
  if (!x) return;
  st_free(a, x->tr);
  st_free(a, x->iv);
  st_free(a, x);
}

static int iv_less(const bix_iv *x, const bix_iv *y) {
  return x->prow != y->prow ? x->prow < y->prow : x->start < y->start;
}
ST_DEFINE_MERGE_SORT(sort_iv, bix_iv, iv_less)

/* The pixel rows [*p0, *p1) of a block in a track of span bytes. */
static void block_rows(const st_block *b, double span, uint32_t *p0, uint32_t *p1) {
  double k = BLOCK_ROWS / span, y0 = (double)b->y * k, y1 = ((double)b->y + (double)b->size) * k;
  uint32_t a = y0 >= BLOCK_ROWS ? BLOCK_ROWS - 1 : y0 > 0 ? (uint32_t)y0 : 0;
  double c = ceil(y1);
  uint32_t e = c >= BLOCK_ROWS ? BLOCK_ROWS : c > 0 ? (uint32_t)c : 0;
  *p0 = a;
  *p1 = e > a ? e : a + 1;
}

static uint64_t block_index_key(const st_trace *t) {
  uint64_t key = (uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull ^ st_trace_event_count(t);
  uint32_t np;
  const st_trace_part *parts = st_trace_parts(t, &np);
  for (uint32_t k = 0; k < np; k++) /* moved files: their events' times moved */
    key = (key ^ (uint64_t)parts[k].offset_ns) * 0x100000001b3ull;
  key ^= (uint64_t)st_trace_shift_ns(t) * 0xc2b2ae3d27d4eb4full;
  return key ? key : 1;
}

static st_block_index *block_index_build(const st_trace *t, const st_alloc *a) {
  uint32_t nt, nr;
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_row *rows = st_trace_rows(t, &nr);
  st_block_index *x = st_calloc(a, 1, sizeof *x);
  if (!x) return NULL;
  size_t n = 0, cap = 0;
  uint32_t ntr = 0;
  for (uint32_t ti = 0; ti < nt; ti++)
    if (tracks[ti].block_span) ntr++;
  x->tr = ntr ? st_calloc(a, ntr, sizeof *x->tr) : NULL;
  if (ntr && !x->tr) goto fail;
  for (uint32_t ti = 0; ti < nt; ti++) {
    const st_track *tr = &tracks[ti];
    if (!tr->block_span) continue;
    size_t n0 = n;
    double span = (double)tr->block_span;
    for (uint32_t r = tr->first_row; r < tr->first_row + tr->row_count && r < nr; r++)
      for (uint32_t j = 0; j < rows[r].count; j++) {
        const st_block *b = st_trace_block(t, r, j);
        if (!b) continue;
        uint32_t p0, p1;
        block_rows(b, span, &p0, &p1);
        if (!st_grow(a, (void **)&x->iv, &cap, n + (p1 - p0), sizeof *x->iv)) goto fail;
        int64_t s = rows[r].start[j], e = st_sat_add(s, rows[r].dur[j]);
        for (uint32_t p = p0; p < p1; p++) x->iv[n++] = (bix_iv){s, e, rows[r].name[j], p};
      }
    bix_iv *tmp = n > n0 ? st_malloc(a, (n - n0) * sizeof *tmp) : NULL;
    if (n > n0 && !tmp) goto fail;
    sort_iv(x->iv + n0, tmp, n - n0);
    st_free(a, tmp);
    /* the union per pixel row: overlapping intervals merged into the first */
    bix_track *bt = &x->tr[x->ntr++];
    bt->track = ti;
    size_t w = n0;
    uint32_t p = 0;
    for (size_t i = n0; i < n; i++) {
      bix_iv v = x->iv[i];
      while (p <= v.prow) bt->first[p++] = w;
      if (w > bt->first[v.prow] && v.start < x->iv[w - 1].end) {
        if (v.end > x->iv[w - 1].end) x->iv[w - 1].end = v.end;
      } else
        x->iv[w++] = v;
    }
    while (p <= BLOCK_ROWS) bt->first[p++] = w;
    n = w;
  }
  x->niv = n;
  return x;
fail:
  dr_block_index_free(x, a);
  return NULL;
}

/* The drawlist's index for this trace (built on a miss), NULL if none. */
static const st_block_index *block_index(dctx *d) {
  st_drawlist *dl = d->dl;
  uint64_t key = block_index_key(d->in->trace);
  if (dl->blocks_ix && dl->blocks_key == key) return dl->blocks_ix;
  dr_block_index_free(dl->blocks_ix, d->a);
  dl->blocks_ix = block_index_build(d->in->trace, d->a);
  dl->blocks_key = dl->blocks_ix ? key : 0;
  if (!dl->blocks_ix) d->err = ST_ERR_NOMEM;
  return dl->blocks_ix;
}

/* A blocks track's band at screen y sy over [t0, t1). */
void dr_draw_blocks(dctx *d, uint32_t track, float sy, int64_t t0, int64_t t1) {
  const st_block_index *x = block_index(d);
  if (!x) return;
  const bix_track *bt = NULL;
  for (uint32_t k = 0; k < x->ntr && !bt; k++)
    if (x->tr[k].track == track) bt = &x->tr[k];
  if (!bt) return;
  double nspp = d->v->ns_per_px > 0 ? d->v->ns_per_px : 1;
  float top = sy + 1;
  for (uint32_t p = 0; p < BLOCK_ROWS; p++) {
    float y = top + (float)p;
    if (y + 1 <= d->c.y0 || y >= d->c.y1) continue;
    const bix_iv *iv = x->iv;
    size_t lo = bt->first[p], end = bt->first[p + 1];
    /* the first ending after t0 */
    size_t i =
        lo + st_bound_i64_at(iv + lo, end - lo, sizeof *iv, offsetof(bix_iv, end), t0, ST_UPPER);
    while (i < end && iv[i].start < t1) {
      float x0 = item_x(d, iv[i].start), x1 = item_x(d, iv[i].end);
      uint32_t col = name_color(d, iv[i].name);
      if (x1 - x0 >= 1) {
        push_rect(d, x0, y, x1 - x0, 1, col, 0);
        i++;
        continue;
      }
      /* under a pixel: this pixel's intervals folded in, on to the first ending after it */
      double pe = (double)iv[i].start + nspp;
      size_t a = i + 1 +
                 st_bound((st_bound_key){(const char *)(iv + i + 1),
                                         sizeof *iv,
                                         offsetof(bix_iv, end),
                                         ST_KEY_I64_F,
                                         ST_UPPER,
                                         {.f = pe}},
                          end - i - 1);
      push_rect(d, x0, y, 1, 1, col, 0);
      i = a > i + 1 ? a : i + 1;
    }
  }
  /* the selected blocks: outlined at their own place and size */
  const st_selection *sel = d->ov ? d->ov->sel : NULL;
  if (!sel) return;
  const st_track *tr = &st_trace_tracks(d->in->trace, NULL)[track];
  uint32_t ns;
  const st_sel_span *sp = st_selection_spans(sel, &ns);
  size_t lo =
      st_bound_u32_at(sp, ns, sizeof *sp, offsetof(st_sel_span, row), tr->first_row, ST_LOWER);
  const st_row *rows = st_trace_rows(d->in->trace, NULL);
  uint32_t drawn = 0;
  for (size_t k = lo; k < ns && sp[k].row < tr->first_row + tr->row_count; k++)
    for (uint32_t j = sp[k].lo; j < sp[k].hi && drawn < BLOCK_SEL_MAX; j++, drawn++) {
      const st_block *b = st_trace_block(d->in->trace, sp[k].row, j);
      const st_row *r = &rows[sp[k].row];
      if (!b || r->start[j] >= t1 || st_sat_add(r->start[j], r->dur[j]) < t0) continue;
      uint32_t p0, p1;
      block_rows(b, (double)tr->block_span, &p0, &p1);
      float x0 = item_x(d, r->start[j]), x1 = item_x(d, st_sat_add(r->start[j], r->dur[j]));
      if (x1 - x0 < 1) x1 = x0 + 1;
      push_rect(d, x0, top + (float)p0, x1 - x0, (float)(p1 - p0), name_color(d, r->name[j]),
                ST_RECT_SELECTED);
    }
}

/* The scale of a blocks track, at its top left: its address space's bytes. */
void dr_block_scale(dctx *d, uint64_t span, float sy) {
  if (!d->in->font) return;
  char q[48], buf[80];
  st_format_quantity((double)span, "B", 1, q, sizeof q);
  int n = snprintf(buf, sizeof buf, "0 .. %s of addresses", q);
  if (n > 0)
    dr_draw_text(d, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1, d->c.x0 + PAD,
                 sy + 2 + d->in->font->ascent, 200, COL_TRACK_TEXT);
}
