/* flow_bundle.c: grouping flow arrows by the cells of their ends
 * (flow_bundle.h). A hash table of bundle indices keyed by (source key,
 * source column, destination key, destination column), at most half full,
 * sized for max_bundles once and kept from frame to frame. A bundle keeps
 * the sums of its members' x and the y of its shortest member. */
#include "flow_bundle.h"

#include <math.h>
#include <string.h>

/* Makes *p hold at least n elements of elem bytes (*cap: how many it holds). */
static int hold(const st_alloc *a, void **p, uint32_t *cap, uint32_t n, size_t elem) {
  if (*cap >= n) return 1;
  void *q = st_realloc_array(a, *p, n, elem);
  if (!q) return 0;
  *p = q;
  *cap = n;
  return 1;
}

st_code st_flow_bundler_begin(st_flow_bundler *fb, float cell_px, float origin_x,
                              uint32_t max_bundles, const st_alloc *a) {
  if (!fb) return ST_ERR_ARG;
  fb->count = 0;
  fb->finished = 0;
  fb->max_bundles = 0; /* nothing can be added until the buffers are there */
  if (!(cell_px > 0) || !isfinite(cell_px) || !isfinite(origin_x) || !max_bundles ||
      max_bundles > (1u << 24))
    return ST_ERR_ARG;
  fb->cell_px = cell_px;
  fb->origin_x = origin_x;
  uint32_t slots = 16;
  while (slots < 2 * max_bundles) slots *= 2;
  void *ps = fb->slots, *pb = fb->bundles;
  int ok = hold(a, &ps, &fb->slot_cap, slots, sizeof *fb->slots);
  fb->slots = ps;
  ok = ok && hold(a, &pb, &fb->bundle_cap, max_bundles, sizeof *fb->bundles);
  fb->bundles = pb;
  if (!ok) return ST_ERR_NOMEM;
  fb->slot_count = slots;
  memset(fb->slots, 0, (size_t)slots * sizeof *fb->slots);
  fb->max_bundles = max_bundles;
  return ST_OK;
}

int32_t st_flow_bundler_cell(const st_flow_bundler *fb, float x) {
  double c = floor(((double)x - fb->origin_x) / fb->cell_px);
  if (!(c > -1073741824.0)) return -1073741824; /* also NaN */
  if (c > 1073741824.0) return 1073741824;
  return (int32_t)c;
}

static uint32_t mix(uint32_t h, uint32_t v) {
  h ^= v * 0x9e3779b1u;
  h = (h << 13 | h >> 19) * 0x85ebca6bu;
  return h ^ h >> 16;
}

int st_flow_bundler_add(st_flow_bundler *fb, uint32_t src_key, float x0, float y0, uint32_t dst_key,
                        float x1, float y1) {
  if (!fb || !fb->max_bundles) return 0;
  int32_t c0 = st_flow_bundler_cell(fb, x0), c1 = st_flow_bundler_cell(fb, x1);
  uint32_t h = mix(mix(mix(mix(0x2545f491u, src_key), (uint32_t)c0), dst_key), (uint32_t)c1);
  uint32_t mask = fb->slot_count - 1;
  for (uint32_t i = h & mask;; i = (i + 1) & mask) {
    uint32_t s = fb->slots[i];
    if (!s) {
      if (fb->count == fb->max_bundles) return 0;
      fb->slots[i] = fb->count + 1;
      fb->bundles[fb->count++] =
          (st_flow_bundle){x0, y0, x1, y1, 1, src_key, dst_key, c0, c1, x0, x1};
      fb->finished = 0;
      return 1;
    }
    st_flow_bundle *b = &fb->bundles[s - 1];
    if (b->src_key == src_key && b->dst_key == dst_key && b->src_cell == c0 && b->dst_cell == c1) {
      b->count++;
      if (fabsf(y1 - y0) < fabsf(b->y1 - b->y0)) b->y0 = y0, b->y1 = y1; /* the shortest */
      b->sum_x0 += x0;
      b->sum_x1 += x1;
      fb->finished = 0;
      return 1;
    }
  }
}

const st_flow_bundle *st_flow_bundler_bundles(st_flow_bundler *fb, uint32_t *count) {
  if (count) *count = fb ? fb->count : 0;
  if (!fb) return NULL;
  if (!fb->finished) {
    for (uint32_t i = 0; i < fb->count; i++) {
      st_flow_bundle *b = &fb->bundles[i];
      b->x0 = (float)(b->sum_x0 / b->count);
      b->x1 = (float)(b->sum_x1 / b->count);
    }
    fb->finished = 1;
  }
  return fb->bundles;
}

void st_flow_bundler_free(st_flow_bundler *fb, const st_alloc *a) {
  if (!fb) return;
  st_free(a, fb->bundles);
  st_free(a, fb->slots);
  memset(fb, 0, sizeof *fb);
}
