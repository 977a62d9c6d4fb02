/* perfetto_clock.c: the clock graph of a Perfetto trace (see
 * perfetto_clock.h): clocks, edges holding the snapshot pairs of two
 * clocks, breadth-first paths between clocks (cached), conversion along a
 * path with the nearest earlier snapshot on each edge. */
#include "perfetto_clock.h"

#include "bisect.h"

#include "u64map.h"

#include <string.h>

typedef struct pc_clock {
  uint64_t id;
  uint64_t unit;
  uint8_t incremental, has_last;
  int64_t last; /* ns: the last value of an incremental clock */
} pc_clock;

typedef struct pc_edge {
  uint32_t a, b;  /* clock indices, a < b */
  int64_t *pairs; /* (a reading, b reading) per snapshot, both ascending */
  uint32_t n, cap;
} pc_edge;

#define PATH_MAX_EDGES 16
#define CACHE_SLOTS 8

typedef struct pc_path {
  uint64_t from, to, gen;
  uint32_t len;
  int32_t edge[PATH_MAX_EDGES]; /* edge index; negative: traversed b -> a (~index) */
  uint8_t ok;
} pc_path;

struct st_pclock {
  st_alloc alloc;
  pc_clock *clocks;
  uint32_t nclocks, cap_clocks;
  st_u64map clock_map; /* id -> index */
  pc_edge *edges;
  uint32_t nedges, cap_edges;
  st_u64map edge_map; /* a << 32 | b -> index */
  uint64_t gen;       /* bumped when an edge appears: cached paths go stale */
  pc_path cache[CACHE_SLOTS];
  uint32_t next_slot;
  uint64_t rejected;
};

st_pclock *st_pclock_create(const st_alloc *a) {
  st_pclock *pc = st_calloc(a, 1, sizeof *pc);
  if (!pc) return NULL;
  pc->alloc = a ? *a : (st_alloc){0};
  pc->gen = 1;
  return pc;
}

void st_pclock_destroy(st_pclock *pc) {
  if (!pc) return;
  st_alloc a = pc->alloc;
  for (uint32_t i = 0; i < pc->nedges; i++) st_free(&a, pc->edges[i].pairs);
  st_free(&a, pc->edges);
  st_free(&a, pc->clocks);
  st_u64map_free(&pc->clock_map, &a);
  st_u64map_free(&pc->edge_map, &a);
  st_free(&a, pc);
}

static uint32_t clock_get(st_pclock *pc, uint64_t id, int create) {
  uint32_t i = st_u64map_get(&pc->clock_map, id);
  if (i != ST_U64MAP_NONE || !create) return i;
  if (pc->nclocks == pc->cap_clocks) {
    void *p = pc->clocks;
    if (!st_grow32(&pc->alloc, &p, &pc->cap_clocks, pc->nclocks + 1, sizeof *pc->clocks, 16))
      return ST_U64MAP_NONE;
    pc->clocks = p;
  }
  i = pc->nclocks;
  pc->clocks[i] = (pc_clock){id, 1, 0, 0, 0};
  if (!st_u64map_put(&pc->clock_map, &pc->alloc, id, i)) return ST_U64MAP_NONE;
  pc->nclocks++;
  return i;
}

static uint32_t edge_get(st_pclock *pc, uint32_t a, uint32_t b) {
  uint64_t key = (uint64_t)a << 32 | b;
  uint32_t i = st_u64map_get(&pc->edge_map, key);
  if (i != ST_U64MAP_NONE) return i;
  if (pc->nedges == pc->cap_edges) {
    void *p = pc->edges;
    if (!st_grow32(&pc->alloc, &p, &pc->cap_edges, pc->nedges + 1, sizeof *pc->edges, 16))
      return ST_U64MAP_NONE;
    pc->edges = p;
  }
  i = pc->nedges;
  pc->edges[i] = (pc_edge){a, b, NULL, 0, 0};
  if (!st_u64map_put(&pc->edge_map, &pc->alloc, key, i)) return ST_U64MAP_NONE;
  pc->nedges++;
  pc->gen++;
  return i;
}

/* Adds one (a, b) reading pair to edge e, unless a clock went backwards. */
static st_code edge_add(st_pclock *pc, pc_edge *e, int64_t va, int64_t vb) {
  if (e->n) {
    const int64_t *last = &e->pairs[2 * (e->n - 1)];
    if (va < last[0] || vb < last[1]) {
      pc->rejected++;
      return ST_OK;
    }
    if (va == last[0] && vb == last[1]) return ST_OK; /* the same snapshot again */
  }
  if (e->n == e->cap) { /* cap counts pairs: two int64_t each */
    void *v = e->pairs;
    int ok = st_grow32(&pc->alloc, &v, &e->cap, (size_t)e->n + 1, 2 * sizeof *e->pairs, 4);
    e->pairs = v;
    if (!ok) return ST_ERR_NOMEM;
  }
  e->pairs[2 * e->n] = va;
  e->pairs[2 * e->n + 1] = vb;
  e->n++;
  return ST_OK;
}

st_code st_pclock_snapshot(st_pclock *pc, const st_pclock_entry *e, uint32_t n) {
  if (!pc || (!e && n)) return ST_ERR_ARG;
  enum { MAXC = 32 };
  uint32_t idx[MAXC];
  int64_t ns[MAXC];
  uint32_t m = 0;
  for (uint32_t i = 0; i < n && m < MAXC; i++) {
    uint32_t c = clock_get(pc, e[i].id, 1);
    if (c == ST_U64MAP_NONE) return ST_ERR_NOMEM;
    int dup = 0;
    for (uint32_t j = 0; j < m; j++) dup |= idx[j] == c;
    if (dup) continue; /* a clock listed twice: the first reading counts */
    pc_clock *k = &pc->clocks[c];
    k->unit = e[i].unit_ns ? e[i].unit_ns : 1;
    k->incremental = e[i].incremental != 0;
    ns[m] = st_sat_mul(e[i].value, k->unit);
    if (k->incremental) k->last = ns[m], k->has_last = 1;
    idx[m++] = c;
  }
  for (uint32_t i = 0; i < m; i++)
    for (uint32_t j = i + 1; j < m; j++) {
      uint32_t a = idx[i] < idx[j] ? idx[i] : idx[j], b = idx[i] < idx[j] ? idx[j] : idx[i];
      int64_t va = idx[i] < idx[j] ? ns[i] : ns[j], vb = idx[i] < idx[j] ? ns[j] : ns[i];
      uint32_t ei = edge_get(pc, a, b);
      if (ei == ST_U64MAP_NONE) return ST_ERR_NOMEM;
      if (edge_add(pc, &pc->edges[ei], va, vb) != ST_OK) return ST_ERR_NOMEM;
    }
  return ST_OK;
}

int st_pclock_to_ns(st_pclock *pc, uint64_t id, int64_t raw, int64_t *ns) {
  if (!pc || !ns) return 0;
  uint32_t c = st_u64map_get(&pc->clock_map, id);
  if (c == ST_U64MAP_NONE) {
    *ns = raw;
    return 1;
  }
  pc_clock *k = &pc->clocks[c];
  int64_t v = st_sat_mul(raw, k->unit);
  if (k->incremental) {
    if (!k->has_last) return 0;
    v = k->last = st_sat_add(k->last, v);
  }
  *ns = v;
  return 1;
}

/* Breadth-first path from clock index s to t over the edges; 0 if none. */
static int find_path(st_pclock *pc, uint32_t s, uint32_t t, pc_path *out) {
  enum { MAXN = 256 };
  if (pc->nclocks > MAXN) return 0; /* beyond any real trace: refuse, never guess */
  int32_t via[MAXN];                /* per clock: the edge that reached it, encoded as in pc_path */
  uint32_t from[MAXN];
  uint8_t seen[MAXN];
  uint32_t queue[MAXN], qh = 0, qt = 0;
  memset(seen, 0, pc->nclocks);
  seen[s] = 1;
  queue[qt++] = s;
  while (qh < qt && !seen[t]) {
    uint32_t u = queue[qh++];
    for (uint32_t i = 0; i < pc->nedges; i++) {
      const pc_edge *e = &pc->edges[i];
      if (!e->n) continue;
      uint32_t v;
      int32_t code;
      if (e->a == u)
        v = e->b, code = (int32_t)i;
      else if (e->b == u)
        v = e->a, code = ~(int32_t)i;
      else
        continue;
      if (seen[v]) continue;
      seen[v] = 1;
      via[v] = code;
      from[v] = u;
      queue[qt++] = v;
    }
  }
  if (!seen[t]) return 0;
  uint32_t len = 0;
  int32_t rev[PATH_MAX_EDGES];
  for (uint32_t v = t; v != s; v = from[v]) {
    if (len == PATH_MAX_EDGES) return 0;
    rev[len++] = via[v];
  }
  out->len = len;
  for (uint32_t i = 0; i < len; i++) out->edge[i] = rev[len - 1 - i];
  return 1;
}

/* Converts along one edge (forward a -> b, or backward). */
static int64_t edge_convert(const pc_edge *e, int backward, int64_t t) {
  uint32_t x = backward ? 1 : 0, y = 1 - x;
  /* the first pair whose x reading is > t */
  uint32_t lo = (uint32_t)st_bound_i64_at(e->pairs, e->n, 2 * sizeof *e->pairs,
                                          x * sizeof *e->pairs, t, ST_UPPER);
  uint32_t k = lo ? lo - 1 : 0;
  return st_sat_add(st_sat_sub(t, e->pairs[2 * k + x]), e->pairs[2 * k + y]);
}

int st_pclock_convert(st_pclock *pc, uint64_t from, int64_t ns, uint64_t to, int64_t *out) {
  if (!pc || !out) return 0;
  if (from == to) {
    *out = ns;
    return 1;
  }
  pc_path *p = NULL;
  for (uint32_t i = 0; i < CACHE_SLOTS; i++)
    if (pc->cache[i].gen == pc->gen && pc->cache[i].from == from && pc->cache[i].to == to)
      p = &pc->cache[i];
  if (!p) {
    p = &pc->cache[pc->next_slot];
    pc->next_slot = (pc->next_slot + 1) % CACHE_SLOTS;
    memset(p, 0, sizeof *p);
    p->from = from;
    p->to = to;
    p->gen = pc->gen;
    uint32_t s = st_u64map_get(&pc->clock_map, from), t = st_u64map_get(&pc->clock_map, to);
    p->ok = s != ST_U64MAP_NONE && t != ST_U64MAP_NONE && find_path(pc, s, t, p);
  }
  if (!p->ok) return 0;
  int64_t v = ns;
  for (uint32_t i = 0; i < p->len; i++) {
    int32_t code = p->edge[i];
    int backward = code < 0;
    v = edge_convert(&pc->edges[backward ? ~code : code], backward, v);
  }
  *out = v;
  return 1;
}

uint64_t st_pclock_rejected(const st_pclock *pc) { return pc ? pc->rejected : 0; }

size_t st_pclock_bytes(const st_pclock *pc) {
  if (!pc) return 0;
  size_t n = sizeof *pc + (size_t)pc->cap_clocks * sizeof(pc_clock) +
             (size_t)pc->cap_edges * sizeof(pc_edge) + st_u64map_bytes(&pc->clock_map) +
             st_u64map_bytes(&pc->edge_map);
  for (uint32_t i = 0; i < pc->nedges; i++) n += (size_t)pc->edges[i].cap * 2 * sizeof(int64_t);
  return n;
}
