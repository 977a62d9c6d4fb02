/* row_merge.c: the events of a list of rows in start order, a k-way merge
 * with one cursor per row and a binary heap of the rows by their next
 * start (analyze_internal.h merger). The analysis's sweeps (analyze.c,
 * idle_causes.c) walk the rows through it.
 */
#include "analyze_internal.h"

static void m_down(merger *m, uint32_t i) {
  m_item *h = m->heap, x = h[i];
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, s = l;
    if (l >= m->hn) break;
    if (r < m->hn && h[r].key < h[l].key) s = r;
    if (h[s].key >= x.key) break;
    h[i] = h[s];
    i = s;
  }
  h[i] = x;
}

void an_merge_init(merger *m, const st_row *rows, const uint32_t *list, uint32_t n) {
  m->rows = rows;
  m->list = list;
  m->hn = 0;
  for (uint32_t k = 0; k < n; k++) {
    m->pos[k] = 0;
    if (rows[list[k]].count) m->heap[m->hn++] = (m_item){rows[list[k]].start[0], k};
  }
  for (uint32_t i = m->hn / 2; i-- > 0;) m_down(m, i);
}

/* The next event in start order: 1 and (*row, *index), or 0 at the end. */
int an_merge_next(merger *m, uint32_t *row, uint32_t *index) {
  if (!m->hn) return 0;
  uint32_t k = m->heap[0].k;
  const st_row *r = &m->rows[m->list[k]];
  *row = m->list[k];
  *index = m->pos[k]++;
  if (m->pos[k] >= r->count)
    m->heap[0] = m->heap[--m->hn];
  else
    m->heap[0].key = r->start[m->pos[k]];
  m_down(m, 0);
  return 1;
}
