/* efficiency.c: peaks, the attribution of ops' costs to kernels, the
 * achieved figures per op and per step (efficiency.h). The costs
 * themselves: efficiency_cost.c. */
#include "efficiency.h"
#include "bisect.h"
#include "json_scan.h"
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

/* ==== 1. peaks ============================================================ */

/* Dense figures (without sparsity), per device as the profiler shows it.
 * Order of tflops: unknown, fp32, tf32, bf16, fp16, fp8, int8, fp64. */
static const st_peak_entry peak_table[] = {
    {"NVIDIA A100 40GB",
     "a100-sxm4-40gb|a100-pcie-40gb|a100-pg509|a100 40gb",
     {0, 19.5, 156, 312, 312, 0, 624, 9.7},
     1555,
     "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
     "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"},
    {"NVIDIA A100 80GB SXM",
     "a100",
     {0, 19.5, 156, 312, 312, 0, 624, 9.7},
     2039,
     "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
     "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"},
    {"NVIDIA H100 PCIe",
     "h100 pcie",
     {0, 51, 378, 756.5, 756.5, 1513, 1513, 26},
     2000,
     "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"},
    {"NVIDIA H100 NVL",
     "h100 nvl",
     {0, 60, 417.5, 835.5, 835.5, 1671, 1671, 30},
     3900,
     "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"},
    {"NVIDIA H100 SXM",
     "h100",
     {0, 67, 494.5, 989.5, 989.5, 1979, 1979, 34},
     3350,
     "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"},
    {"NVIDIA H200 SXM",
     "h200",
     {0, 67, 494.5, 989.5, 989.5, 1979, 1979, 34},
     4800,
     "https://www.nvidia.com/en-us/data-center/h200/"},
    {"NVIDIA B200",
     "b200",
     {0, 75, 1125, 2250, 2250, 4500, 4500, 37},
     8000,
     "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B200, one of its 8 GPUs)"},
    {"AMD Instinct MI250X (one GCD)",
     "mi250x|mi250",
     {0, 47.85, 0, 191.5, 191.5, 0, 191.5, 47.85},
     1638.4,
     "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html (half of the "
     "module: ROCm shows each of its 2 GCDs as a device)"},
    {"AMD Instinct MI300X",
     "mi300x",
     {0, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 163.4},
     5300,
     "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"},
    {"Google TPU v4",
     "tpu v4",
     {0, 0, 0, 275, 0, 0, 275, 0},
     1200,
     "https://cloud.google.com/tpu/docs/v4"},
    {"Google TPU v5e",
     "tpu v5e|tpu v5 lite|v5litepod",
     {0, 0, 0, 197, 0, 0, 393, 0},
     819,
     "https://cloud.google.com/tpu/docs/v5e"},
    {"Google TPU v5p",
     "tpu v5p|tpu v5",
     {0, 0, 0, 459, 0, 0, 918, 0},
     2765,
     "https://cloud.google.com/tpu/docs/v5p"},
    {"Google TPU v6e",
     "tpu v6e|tpu v6 lite|trillium",
     {0, 0, 0, 918, 0, 0, 1836, 0},
     1638,
     "https://cloud.google.com/tpu/docs/v6e"},
};

const st_peak_entry *st_peak_table(uint32_t *count) {
  if (count) *count = (uint32_t)(sizeof peak_table / sizeof peak_table[0]);
  return peak_table;
}

static int has_lower(const char *s, size_t n, const char *w, size_t m) {
  for (size_t i = 0; i + m <= n; i++) {
    size_t k = 0;
    while (k < m) {
      char c = s[i + k];
      if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
      if (c == '_' || c == '-') c = w[k] == ' ' ? ' ' : c; /* "TPU_v4" as "tpu v4" */
      if (c != w[k]) break;
      k++;
    }
    if (k == m) return 1;
  }
  return 0;
}

const st_peak_entry *st_peak_lookup(const char *name, size_t n) {
  const st_peak_entry *best = NULL;
  size_t best_len = 0;
  for (size_t e = 0; e < sizeof peak_table / sizeof peak_table[0]; e++) {
    const char *m = peak_table[e].match;
    while (*m) {
      const char *bar = strchr(m, '|');
      size_t l = bar ? (size_t)(bar - m) : strlen(m);
      if (l > best_len && has_lower(name, n, m, l)) best = &peak_table[e], best_len = l;
      m += l + (bar ? 1 : 0);
    }
  }
  return best;
}

/* ==== 2. state ============================================================ */

typedef struct kern {
  uint32_t trace, device, cost; /* cost: index into costs */
  uint32_t row, index;
  int64_t start, dur;
  double share; /* of its op's cost: its duration / its op's kernels' (1 / their count if 0) */
} kern;

struct st_efficiency {
  st_alloc alloc;
  st_eff_peak *peaks;
  uint32_t npeaks;
  st_eff_op *ops;
  uint32_t nops, cap_ops;
  st_eff_step *steps;
  uint32_t nsteps;
  uint8_t headline;
  int64_t device_ns, no_flops_ns;
};

static int eqs(const char *s, size_t n, const char *w) {
  return strlen(w) == n && !memcmp(s, w, n);
}

/* ==== 3. device peaks from the files' metadata ============================ */

/* The value of member key of the object [p, end) (NULL: none), its end in
 * *ve. */
static const char *jmember(const char *p, const char *end, const char *key, const char **ve) {
  const char *v;
  return st_json_member(p, end, key, &v, ve) ? v : NULL;
}

/* The i-th element of an array [p, end) (NULL past its end). */
static const char *jelem(const char *p, const char *end, uint32_t i, const char **ve) {
  p = st_json_ws(p, end);
  if (p >= end || *p != '[') return NULL;
  p = st_json_ws(p + 1, end);
  for (uint32_t j = 0; p < end && *p != ']'; j++) {
    const char *e;
    if (st_json_skip_value(p, end, &e) != ST_JSON_OK) return NULL;
    if (j == i) {
      *ve = e;
      return p;
    }
    p = st_json_ws(e, end);
    if (p < end && *p == ',') p = st_json_ws(p + 1, end);
  }
  return NULL;
}

static int jnum(const char *v, const char *ve, double *out) {
  if (!v) return 0;
  if (*v == '"') v++, ve--;
  return ve > v && st_json_double(v, (size_t)(ve - v), out);
}

static void copy_name(char *dst, const char *s, size_t n) {
  size_t k = n < ST_ANALYZE_NAME_CAP - 1 ? n : ST_ANALYZE_NAME_CAP - 1;
  for (size_t i = 0; i < k; i++) dst[i] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
  dst[k] = 0;
}

static void from_entry(st_eff_peak *p, const st_peak_entry *e, const char *file_name, size_t fl) {
  copy_name(p->name, file_name ? file_name : e->name, file_name ? fl : strlen(e->name));
  memcpy(p->tflops, e->tflops, sizeof p->tflops);
  p->gbps = e->gbps;
  p->source = e->source;
}

/* Device d's peak: Kineto's deviceProperties (the entry whose id is the
 * process's pid, else the first), XSpace's device_planes (the plane named
 * as the process: its own peak stats, else its device type). */
static void device_peak(const st_analysis *an, const st_an_device *dev, const char *meta,
                        st_eff_peak *p) {
  const st_trace *t = st_analysis_trace(an, dev->trace);
  uint32_t np;
  const st_process *ps = st_trace_processes(t, &np);
  int64_t pid = dev->process < np ? ps[dev->process].pid : -1;
  size_t pl = 0;
  const char *pname =
      dev->process < np ? st_strtab_get(st_trace_strings(t), ps[dev->process].name, &pl) : "";
  if (!meta) return;
  const char *end = meta + strlen(meta), *ve, *v;
  if ((v = jmember(meta, end, "deviceProperties", &ve)) != NULL) {
    const char *first = NULL, *first_end = NULL, *pick = NULL, *pick_end = NULL;
    for (uint32_t i = 0;; i++) {
      const char *ee, *el = jelem(v, ve, i, &ee);
      if (!el) break;
      if (!first) first = el, first_end = ee;
      const char *ie, *iv = jmember(el, ee, "id", &ie);
      double id;
      if (jnum(iv, ie, &id) && (int64_t)id == pid) pick = el, pick_end = ee;
    }
    if (!pick) pick = first, pick_end = first_end;
    const char *ne, *nv = pick ? jmember(pick, pick_end, "name", &ne) : NULL;
    if (nv && *nv == '"' && ne - nv >= 2) {
      const st_peak_entry *e = st_peak_lookup(nv + 1, (size_t)(ne - nv - 2));
      if (e)
        from_entry(p, e, nv + 1, (size_t)(ne - nv - 2));
      else
        copy_name(p->name, nv + 1, (size_t)(ne - nv - 2));
    }
  }
  if ((v = jmember(meta, end, "device_planes", &ve)) != NULL) {
    for (uint32_t i = 0;; i++) {
      const char *ee, *el = jelem(v, ve, i, &ee);
      if (!el) break;
      const char *ne, *nv = jmember(el, ee, "name", &ne);
      if (!nv || *nv != '"' || (size_t)(ne - nv - 2) != pl || memcmp(nv + 1, pname, pl)) continue;
      const char *se, *sv = jmember(el, ee, "stats", &se);
      if (!sv) break;
      static const char *const type_keys[] = {"device_type_string", "device_type",
                                              "device_vendor_string"};
      for (size_t q = 0; q < 3 && !p->source; q++) {
        const char *te, *tv = jmember(sv, se, type_keys[q], &te);
        if (tv && *tv == '"' && te - tv >= 2) {
          const st_peak_entry *e = st_peak_lookup(tv + 1, (size_t)(te - tv - 2));
          if (e) from_entry(p, e, tv + 1, (size_t)(te - tv - 2));
        }
      }
      double tf = 0, bw = 0;
      const char *xe, *xv = jmember(sv, se, "peak_teraflops_per_second", &xe);
      int has_tf = jnum(xv, xe, &tf) && tf > 0;
      xv = jmember(sv, se, "peak_hbm_bw_gigabytes_per_second", &xe);
      int has_bw = jnum(xv, xe, &bw) && bw > 0;
      if (has_tf || has_bw) {
        if (!p->name[0]) copy_name(p->name, pname, pl);
        if (has_tf)
          for (int d = 0; d < ST_DT_COUNT; d++) p->tflops[d] = tf;
        if (has_bw) p->gbps = bw;
        p->source = "file";
      }
      break;
    }
  }
}

/* ==== 4. attribution ====================================================== */

static uint64_t key_of(uint32_t row, uint32_t index) { return (uint64_t)row << 32 | index; }

/* The cost of event (row, i) or of its innermost enclosing slice that has
 * one (UINT32_MAX: none). */
static uint32_t cost_up(const st_trace *t, const st_u64map *m, uint32_t row, uint32_t i) {
  uint32_t c = st_u64map_get(m, key_of(row, i));
  if (c != ST_U64MAP_NONE) return c;
  uint32_t nr, nt;
  const st_row *rows = st_trace_rows(t, &nr);
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_row *r = &rows[row];
  if (r->track >= nt) return UINT32_MAX;
  const st_track *tk = &tracks[r->track];
  int64_t s = r->start[i];
  for (uint32_t d = r->depth; d-- > 0;) {
    uint32_t pr = tk->first_row + d;
    if (pr >= tk->first_row + tk->row_count || pr >= nr) continue;
    const st_row *p = &rows[pr];
    uint32_t j = st_row_first_end_gt(p, s);
    if (j >= p->count || p->start[j] > s) continue;
    c = st_u64map_get(m, key_of(pr, j));
    if (c != ST_U64MAP_NONE) return c;
  }
  return UINT32_MAX;
}

static int is_annotation_cat(const char *s, size_t n) {
  return eqs(s, n, "gpu_user_annotation") || eqs(s, n, "user_annotation") ||
         eqs(s, n, "cuda_profiler_range") || eqs(s, n, "cuda_sync");
}

/* The "XLA Ops" track of process p, or UINT32_MAX. */
static uint32_t xla_ops_track(const st_trace *t, uint32_t p) {
  uint32_t np, nt;
  const st_process *ps = st_trace_processes(t, &np);
  const st_track *tracks = st_trace_tracks(t, &nt);
  if (p >= np) return UINT32_MAX;
  for (uint32_t tk = ps[p].first_track; tk < ps[p].first_track + ps[p].track_count && tk < nt;
       tk++) {
    size_t l;
    const char *tn = st_strtab_get(st_trace_strings(t), tracks[tk].name, &l);
    if (tracks[tk].kind == ST_TRACK_SLICES && eqs(tn, l, "XLA Ops")) return tk;
  }
  return UINT32_MAX;
}

static int cmp_want(const void *x, const void *y) {
  const st_eff_want *a = x, *b = y;
  if (a->src != b->src) return a->src < b->src ? -1 : 1;
  return a->row != b->row ? (a->row < b->row ? -1 : 1)
                          : (a->index > b->index) - (a->index < b->index);
}

st_code st_eff_wanted(const st_alloc *alloc, const st_analysis *an, st_eff_want **w, uint32_t *n) {
  st_alloc a = (alloc ? *alloc : (st_alloc){0});
  *w = NULL;
  *n = 0;
  uint32_t cap = 0;
  for (uint32_t k = 0; k < st_analysis_traces(an); k++) {
    const st_trace *t = st_analysis_trace(an, k);
    const st_strtab *strs = st_trace_strings(t);
    uint32_t nr, nt, np, ns = st_strtab_count(strs), first = *n;
    const st_row *rows = st_trace_rows(t, &nr);
    const st_track *tracks = st_trace_tracks(t, &nt);
    const st_process *ps = st_trace_processes(t, &np);
    uint8_t *named = st_calloc(&a, ns ? ns : 1, 1); /* per string id: st_op_cost_named */
    if (!named) {
      st_free(&a, *w);
      *w = NULL;
      *n = 0;
      return ST_ERR_NOMEM;
    }
    for (uint32_t id = 0; id < ns; id++) {
      size_t l;
      const char *nm = st_strtab_get(strs, id, &l);
      named[id] = (uint8_t)st_op_cost_named(nm, l);
    }
    int nomem = 0;
    for (uint32_t r = 0; r < nr && !nomem; r++) {
      const st_track *tk = rows[r].track < nt ? &tracks[rows[r].track] : NULL;
      if (!tk || tk->kind != ST_TRACK_SLICES) continue;
      size_t pl = 0, tl;
      const char *pn = tk->process < np ? st_strtab_get(strs, ps[tk->process].name, &pl) : "";
      const char *tn = st_strtab_get(strs, tk->name, &tl);
      int xla = eqs(tn, tl, "XLA Ops") && pl >= 8 && !memcmp(pn, "/device:", 8);
      for (uint32_t i = 0; i < rows[r].count; i++) {
        uint32_t id = rows[r].name[i];
        if (!xla && (id >= ns || !named[id])) continue;
        if (*n == cap) {
          void *nw = *w;
          if (!st_grow32(&a, &nw, &cap, *n + 1, sizeof **w, 256)) {
            nomem = 1;
            break;
          }
          *w = nw;
        }
        (*w)[(*n)++] = (st_eff_want){k, r, i, rows[r].src[i]};
      }
    }
    st_free(&a, named);
    if (!nomem && *n > first) qsort(*w + first, *n - first, sizeof **w, cmp_want);
    if (nomem) {
      st_free(&a, *w);
      *w = NULL;
      *n = 0;
      return ST_ERR_NOMEM;
    }
  }
  return ST_OK;
}

/* ==== 5. ops ============================================================== */

static int add_op(st_efficiency *e, const char *name, size_t len, uint8_t kind, uint8_t xla,
                  uint32_t *at) {
  for (uint32_t i = 0; i < e->nops; i++)
    if (e->ops[i].kind == kind && e->ops[i].name_len == len && !memcmp(e->ops[i].name, name, len)) {
      *at = i;
      return 1;
    }
  if (e->nops == e->cap_ops) {
    void *no = e->ops;
    if (!st_grow32(&e->alloc, &no, &e->cap_ops, e->nops + 1, sizeof *e->ops, 64)) return 0;
    e->ops = no;
  }
  st_eff_op *o = &e->ops[e->nops];
  memset(o, 0, sizeof *o);
  o->name = name;
  o->name_len = len;
  o->kind = kind;
  o->xla = xla;
  o->device = UINT32_MAX;
  *at = e->nops++;
  return 1;
}

static int cmp_op(const void *x, const void *y) {
  const st_eff_op *a = x, *b = y;
  if ((a->kind == ST_KIND_KERNEL) != (b->kind == ST_KIND_KERNEL))
    return a->kind == ST_KIND_KERNEL ? 1 : -1;
  if (a->time_ns != b->time_ns) return a->time_ns > b->time_ns ? -1 : 1;
  size_t l = a->name_len < b->name_len ? a->name_len : b->name_len;
  int c = memcmp(a->name, b->name, l);
  return c ? c : (a->name_len < b->name_len ? -1 : a->name_len > b->name_len);
}

/* fp32 work that ran on tensor cores as TF32: a kernel named with "tf32",
 * "s1688" or "s16816" (cuBLAS / CUTLASS names of TF32 tensor-op GEMMs). */
static uint8_t kernel_dtype(uint8_t dt, const char *name, size_t n) {
  if (dt == ST_DT_FP32 && (has_lower(name, n, "tf32", 4) || has_lower(name, n, "s1688", 5) ||
                           has_lower(name, n, "s16816", 6)))
    return ST_DT_TF32;
  return dt;
}

static void op_add(st_eff_op *o, const st_op_cost *c, double share, int64_t dur, uint32_t dev,
                   uint8_t dt) {
  o->flops += c->flops * share;
  o->model_flops += c->model_flops * share;
  o->bytes += c->bytes * share;
  o->time_ns += dur;
  if (o->device == UINT32_MAX) o->device = dev;
  if (!o->dtype || dt == ST_DT_TF32) o->dtype = dt;
  o->estimate |= c->estimate;
}

/* Per trace: the kernels of its devices with the cost each gets. */
static st_code gather(st_efficiency *e, const st_analysis *an, uint32_t k, const st_eff_want *w,
                      const st_op_cost *costs, uint32_t n, kern **ks, size_t *nk, size_t *cap) {
  const st_alloc *a = &e->alloc;
  const st_trace *t = st_analysis_trace(an, k);
  st_u64map m;
  memset(&m, 0, sizeof m);
  for (uint32_t i = 0; i < n; i++)
    if (w[i].trace == k && costs[i].source != ST_COST_NONE &&
        !st_u64map_put(&m, a, key_of(w[i].row, w[i].index), i)) {
      st_u64map_free(&m, a);
      return ST_ERR_NOMEM;
    }
  uint32_t nd;
  const st_an_device *devs = st_analysis_devices(an, &nd);
  uint32_t nr, nt;
  const st_row *rows = st_trace_rows(t, &nr);
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_strtab *strs = st_trace_strings(t);
  const st_flow *flows = st_trace_flows(t, NULL);
  const uint32_t *fin = st_trace_flows_in(t, NULL);
  st_code rc = ST_OK;
  for (uint32_t d = 0; rc == ST_OK && d < nd; d++) {
    if (devs[d].trace != k) continue;
    uint32_t *dr = NULL, ndr = 0;
    if ((rc = st_analysis_device_rows(an, a, d, &dr, &ndr)) != ST_OK) break;
    uint32_t xt = xla_ops_track(t, devs[d].process);
    for (uint32_t q = 0; rc == ST_OK && q < ndr; q++) {
      const st_row *r = &rows[dr[q]];
      int own_line = xt != UINT32_MAX && r->track == xt;
      for (uint32_t i = 0; i < r->count; i++) {
        size_t cl;
        const char *cn = st_strtab_get(strs, r->cat[i], &cl);
        if (is_annotation_cat(cn, cl)) continue;
        e->device_ns += r->dur[i];
        uint32_t c = st_u64map_get(&m, key_of(dr[q], i)), first;
        if (c == ST_U64MAP_NONE && st_trace_flows_to(t, dr[q], i, i + 1, &first)) {
          const st_flow *f = &flows[fin[first]];
          c = cost_up(t, &m, f->from_row, f->from_index);
        }
        if ((c == ST_U64MAP_NONE || c == UINT32_MAX) && xt != UINT32_MAX && !own_line) {
          const st_track *tk = &tracks[xt];
          for (uint32_t xr = tk->first_row + tk->row_count; xr-- > tk->first_row;) {
            uint32_t j = st_row_first_end_gt(&rows[xr], r->start[i]);
            if (j < rows[xr].count && rows[xr].start[j] <= r->start[i]) {
              c = cost_up(t, &m, xr, j);
              if (c != UINT32_MAX) break;
            }
          }
        }
        if (c == ST_U64MAP_NONE || c == UINT32_MAX) {
          e->no_flops_ns += r->dur[i];
          continue;
        }
        if (*nk == *cap) {
          void *nv = *ks;
          if (!st_grow_from(a, &nv, cap, *nk + 1, sizeof **ks, 1024)) {
            rc = ST_ERR_NOMEM;
            break;
          }
          *ks = nv;
        }
        (*ks)[(*nk)++] = (kern){k, d, c, dr[q], i, r->start[i], r->dur[i], 0};
      }
    }
    st_free(a, dr);
  }
  st_u64map_free(&m, a);
  return rc;
}

/* The op rows; sets each kernel's share of its op's cost. */
static st_code build_ops(st_efficiency *e, const st_analysis *an, const st_eff_want *w,
                         const st_op_cost *costs, uint32_t n, kern *ks, size_t nk) {
  const st_alloc *a = &e->alloc;
  int64_t *ksum = st_calloc(a, n ? n : 1, sizeof *ksum);
  uint32_t *kcount = st_calloc(a, n ? n : 1, sizeof *kcount);
  uint32_t *src_op = st_calloc(a, n ? n : 1, sizeof *src_op);
  if (!ksum || !kcount || !src_op) {
    st_free(a, ksum), st_free(a, kcount), st_free(a, src_op);
    return ST_ERR_NOMEM;
  }
  for (size_t i = 0; i < nk; i++) ksum[ks[i].cost] += ks[i].dur, kcount[ks[i].cost]++;
  st_code rc = ST_OK;
  /* the source ops: each instance that got kernels */
  for (uint32_t c = 0; c < n && rc == ST_OK; c++) {
    src_op[c] = UINT32_MAX;
    if (!kcount[c]) continue;
    const st_trace *t = st_analysis_trace(an, w[c].trace);
    const st_row *row = &st_trace_rows(t, NULL)[w[c].row];
    size_t l;
    const char *nm = st_strtab_get(st_trace_strings(t), row->name[w[c].index], &l);
    uint8_t xla = costs[c].source == ST_COST_XLA;
    if (!add_op(e, nm, l, ST_KIND_HOST, xla, &src_op[c])) rc = ST_ERR_NOMEM;
    if (rc == ST_OK) e->ops[src_op[c]].count++;
  }
  uint32_t *slot = NULL, nslot = 0, slot_trace = 0;
  for (size_t i = 0; i < nk && rc == ST_OK; i++) {
    const kern *x = &ks[i];
    const st_op_cost *c = &costs[x->cost];
    double share =
        ksum[x->cost] > 0 ? (double)x->dur / (double)ksum[x->cost] : 1.0 / (double)kcount[x->cost];
    ks[i].share = share;
    const st_trace *t = st_analysis_trace(an, x->trace);
    size_t l;
    const char *nm =
        st_strtab_get(st_trace_strings(t), st_trace_rows(t, NULL)[x->row].name[x->index], &l);
    uint8_t dt = kernel_dtype(c->dtype, nm, l);
    op_add(&e->ops[src_op[x->cost]], c, share, x->dur, x->device, dt);
    /* the kernel itself, when it is not the op's own event */
    if (w[x->cost].row == x->row && w[x->cost].index == x->index && w[x->cost].trace == x->trace)
      continue;
    /* the kernel row, by name id (a cache per trace: kernels come trace by trace) */
    if (!slot || x->trace != slot_trace) {
      st_free(a, slot);
      nslot = st_strtab_count(st_trace_strings(t));
      slot = st_calloc(a, nslot ? nslot : 1, sizeof *slot);
      slot_trace = x->trace;
      if (!slot) {
        rc = ST_ERR_NOMEM;
        break;
      }
    }
    uint32_t id = st_trace_rows(t, NULL)[x->row].name[x->index], at;
    if (id < nslot && slot[id]) {
      at = slot[id] - 1;
    } else {
      if (!add_op(e, nm, l, ST_KIND_KERNEL, 0, &at)) {
        rc = ST_ERR_NOMEM;
        break;
      }
      if (id < nslot) slot[id] = at + 1;
    }
    op_add(&e->ops[at], c, share, x->dur, x->device, dt);
    e->ops[at].count++;
  }
  st_free(a, slot);
  st_free(a, ksum);
  st_free(a, kcount);
  st_free(a, src_op);
  if (rc == ST_OK && e->nops) qsort(e->ops, e->nops, sizeof *e->ops, cmp_op);
  return rc;
}

/* ==== 6. steps ============================================================ */

static st_code build_steps(st_efficiency *e, const st_analysis *an, const st_op_cost *costs,
                           uint32_t n, const kern *ks, size_t nk) {
  const st_alloc *a = &e->alloc;
  uint32_t ns;
  const st_an_step *steps = st_analysis_steps(an, &ns);
  (void)n;
  e->nsteps = ns;
  e->steps = st_calloc(a, ns ? ns : 1, sizeof *e->steps);
  if (!e->steps) return ST_ERR_NOMEM;
  uint32_t nd;
  const st_an_device *devs = st_analysis_devices(an, &nd);
  for (uint32_t j = 0; j < ns; j++) {
    st_eff_step *s = &e->steps[j];
    s->trace = steps[j].trace;
    s->step = steps[j].number;
    s->wall_ns = steps[j].t1_ns - steps[j].t0_ns;
    for (uint32_t d = 0; d < nd; d++)
      if (devs[d].trace == s->trace) {
        s->devices++;
        s->peak_tflops += e->peaks[d].headline_tflops;
      }
  }
  for (size_t i = 0; i < nk; i++) {
    const kern *x = &ks[i];
    double share = x->share;
    /* the last step of its trace starting at or before it (steps are
     * trace by trace, each by start), if it holds its start */
    uint32_t lo =
        (uint32_t)st_bound_pair_at(steps, ns, sizeof *steps, offsetof(st_an_step, trace), x->trace,
                                   offsetof(st_an_step, t0_ns), x->start, ST_UPPER);
    if (lo > 0 && steps[lo - 1].trace == x->trace && x->start < steps[lo - 1].t1_ns) {
      e->steps[lo - 1].flops += costs[x->cost].flops * share;
      e->steps[lo - 1].model_flops += costs[x->cost].model_flops * share;
    }
  }
  return ST_OK;
}

/* ==== 7. build, accessors ================================================= */

st_efficiency *st_efficiency_build(const st_alloc *alloc, const st_analysis *an,
                                   const st_eff_want *w, const st_op_cost *costs, uint32_t n,
                                   const char *const *metadata, const st_eff_opts *o,
                                   st_error *err) {
  st_alloc al = (alloc ? *alloc : (st_alloc){0});
  if (!an || (n && (!w || !costs))) {
    st_error_set(err, ST_ERR_ARG, 0, "efficiency: no analysis");
    return NULL;
  }
  st_eff_opts opts = o ? *o : (st_eff_opts){0};
  st_efficiency *e = st_calloc(&al, 1, sizeof *e);
  if (!e) {
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  e->alloc = al;
  uint32_t nd;
  const st_an_device *devs = st_analysis_devices(an, &nd);
  e->npeaks = nd;
  e->peaks = st_calloc(&al, nd ? nd : 1, sizeof *e->peaks);
  kern *ks = NULL;
  size_t nk = 0, cap = 0;
  st_code rc = e->peaks ? ST_OK : ST_ERR_NOMEM;
  for (uint32_t k = 0; rc == ST_OK && k < st_analysis_traces(an); k++)
    rc = gather(e, an, k, w, costs, n, &ks, &nk, &cap);
  /* the headline dtype */
  double by[ST_DT_COUNT] = {0};
  for (size_t i = 0; i < nk; i++) {
    const st_trace *t = st_analysis_trace(an, ks[i].trace);
    size_t l;
    const char *nm =
        st_strtab_get(st_trace_strings(t), st_trace_rows(t, NULL)[ks[i].row].name[ks[i].index], &l);
    uint8_t dt = kernel_dtype(costs[ks[i].cost].dtype, nm, l);
    by[dt] += (double)ks[i].dur; /* the dtype most device time with FLOPs ran at */
  }
  e->headline = ST_DT_BF16;
  double best = 0;
  for (int d = 1; d < ST_DT_COUNT; d++)
    if (by[d] > best) best = by[d], e->headline = (uint8_t)d;
  for (uint32_t d = 0; rc == ST_OK && d < nd; d++) {
    st_eff_peak *p = &e->peaks[d];
    p->device = d;
    p->source = NULL;
    device_peak(an, &devs[d], metadata ? metadata[devs[d].trace] : NULL, p);
    if (opts.peak_tflops > 0) {
      for (int q = 0; q < ST_DT_COUNT; q++) p->tflops[q] = opts.peak_tflops;
      p->source = "option";
    }
    if (opts.peak_gbps > 0) {
      p->gbps = opts.peak_gbps;
      p->source = "option";
    }
    if (!p->source) p->source = "";
    p->headline_tflops = p->tflops[e->headline];
  }
  if (rc == ST_OK) rc = build_ops(e, an, w, costs, n, ks, nk);
  if (rc == ST_OK) rc = build_steps(e, an, costs, n, ks, nk);
  st_free(&al, ks);
  if (rc != ST_OK) {
    st_efficiency_destroy(e);
    st_error_set(err, rc, 0, "out of memory");
    return NULL;
  }
  uint32_t top = opts.top ? opts.top : 50, keep = 0, nh = 0, nk2 = 0;
  for (uint32_t i = 0; i < e->nops; i++) {
    uint32_t *cnt = e->ops[i].kind == ST_KIND_KERNEL ? &nk2 : &nh;
    if (*cnt >= top) continue;
    (*cnt)++;
    e->ops[keep++] = e->ops[i];
  }
  e->nops = keep;
  return e;
}

void st_efficiency_destroy(st_efficiency *e) {
  if (!e) return;
  st_alloc a = e->alloc;
  st_free(&a, e->peaks);
  st_free(&a, e->ops);
  st_free(&a, e->steps);
  st_free(&a, e);
}

const st_eff_peak *st_efficiency_peaks(const st_efficiency *e, uint32_t *count) {
  if (count) *count = e ? e->npeaks : 0;
  return e ? e->peaks : NULL;
}
const st_eff_op *st_efficiency_ops(const st_efficiency *e, uint32_t *count) {
  if (count) *count = e ? e->nops : 0;
  return e ? e->ops : NULL;
}
const st_eff_step *st_efficiency_steps(const st_efficiency *e, uint32_t *count) {
  if (count) *count = e ? e->nsteps : 0;
  return e ? e->steps : NULL;
}
st_dtype st_efficiency_headline(const st_efficiency *e) {
  return e ? (st_dtype)e->headline : ST_DT_BF16;
}
void st_efficiency_coverage(const st_efficiency *e, int64_t *device_ns, int64_t *no_flops_ns) {
  *device_ns = e ? e->device_ns : 0;
  *no_flops_ns = e ? e->no_flops_ns : 0;
}

double st_eff_op_peak_tflops(const st_efficiency *e, const st_eff_op *op) {
  if (!e || op->device >= e->npeaks) return 0;
  const st_eff_peak *p = &e->peaks[op->device];
  double v = op->dtype ? p->tflops[op->dtype] : 0;
  return v > 0 ? v : p->headline_tflops;
}
double st_eff_op_peak_gbps(const st_efficiency *e, const st_eff_op *op) {
  return e && op->device < e->npeaks ? e->peaks[op->device].gbps : 0;
}

/* ==== 8. JSON ============================================================= */

/* key (with its comma and colon) then v with `digits` significant digits. */
static void key_sig(st_jout *o, const char *key, double v, int digits) {
  st_jout_lit(o, key);
  st_jout_sig(o, v, digits);
}

static void num_or_null(st_jout *o, int ok, double v, int digits) {
  if (ok)
    st_jout_sig(o, v, digits);
  else
    st_jout_lit(o, "null");
}

void st_efficiency_json(const st_efficiency *e, st_jout *o) {
  st_jout_lit(o, "{\"headline_dtype\":");
  const char *hd = st_dtype_name(st_efficiency_headline(e));
  st_jout_str(o, hd, strlen(hd));
  st_jout_lit(o, ",\"device_us\":");
  st_jout_us(o, e->device_ns);
  st_jout_lit(o, ",\"no_flops_us\":");
  st_jout_us(o, e->no_flops_ns);
  st_jout_lit(o, ",\"no_flops_pct\":");
  num_or_null(o, e->device_ns > 0, 100.0 * (double)e->no_flops_ns / (double)e->device_ns, 4);
  st_jout_lit(o, ",\"device_peaks\":[");
  for (uint32_t d = 0; d < e->npeaks; d++) {
    const st_eff_peak *p = &e->peaks[d];
    st_jout_lit(o, d ? ",{\"device\":" : "{\"device\":");
    st_jout_u64(o, d);
    st_jout_lit(o, ",\"name\":");
    st_jout_str(o, p->name, strlen(p->name));
    st_jout_lit(o, ",\"tflops\":");
    num_or_null(o, p->headline_tflops > 0, p->headline_tflops, 6);
    st_jout_lit(o, ",\"gbps\":");
    num_or_null(o, p->gbps > 0, p->gbps, 6);
    st_jout_lit(o, ",\"source\":");
    st_jout_str(o, p->source, strlen(p->source));
    st_jout_lit(o, ",\"tflops_by_dtype\":{");
    int any = 0;
    for (int q = 1; q < ST_DT_COUNT; q++) {
      if (!(p->tflops[q] > 0)) continue;
      if (any++) st_jout_lit(o, ",");
      const char *dn = st_dtype_name((st_dtype)q);
      st_jout_str(o, dn, strlen(dn));
      key_sig(o, ":", p->tflops[q], 6);
    }
    st_jout_lit(o, "}}");
  }
  st_jout_lit(o, "],\"ops\":[");
  for (uint32_t i = 0; i < e->nops; i++) {
    const st_eff_op *p = &e->ops[i];
    double sec = (double)p->time_ns / 1e9;
    double tf = sec > 0 ? p->flops / sec / 1e12 : 0, gb = sec > 0 ? p->bytes / sec / 1e9 : 0;
    double pk = st_eff_op_peak_tflops(e, p), bw = st_eff_op_peak_gbps(e, p);
    st_jout_lit(o, i ? ",{\"name\":" : "{\"name\":");
    st_jout_str(o, p->name, p->name_len);
    st_jout_lit(o, ",\"kind\":");
    st_jout_lit(o, p->kind == ST_KIND_KERNEL ? "\"kernel\"" : p->xla ? "\"xla\"" : "\"op\"");
    st_jout_lit(o, ",\"dtype\":");
    const char *dn = st_dtype_name((st_dtype)p->dtype);
    st_jout_str(o, dn, strlen(dn));
    st_jout_lit(o, ",\"count\":");
    st_jout_u64(o, p->count);
    st_jout_lit(o, ",\"flops\":");
    st_jout_sig(o, p->flops, 17);
    st_jout_lit(o, ",\"model_flops\":");
    st_jout_sig(o, p->model_flops, 17);
    st_jout_lit(o, ",\"bytes\":");
    st_jout_sig(o, p->bytes, 17);
    st_jout_lit(o, ",\"time_us\":");
    st_jout_us(o, p->time_ns);
    st_jout_lit(o, ",\"tflops\":");
    num_or_null(o, sec > 0, tf, 6);
    st_jout_lit(o, ",\"gbps\":");
    num_or_null(o, sec > 0 && p->bytes > 0, gb, 6);
    st_jout_lit(o, ",\"pct_of_peak\":");
    num_or_null(o, sec > 0 && pk > 0, 100 * tf / pk, 4);
    st_jout_lit(o, ",\"intensity\":");
    num_or_null(o, p->bytes > 0, p->flops / p->bytes, 6);
    st_jout_lit(o, ",\"ridge\":");
    num_or_null(o, pk > 0 && bw > 0, pk * 1000.0 / bw, 6);
    st_jout_lit(o, ",\"bound\":");
    if (pk > 0 && bw > 0 && p->bytes > 0)
      st_jout_lit(o, p->flops / p->bytes >= pk * 1000.0 / bw ? "\"compute\"" : "\"memory\"");
    else
      st_jout_lit(o, "null");
    st_jout_lit(o, p->estimate ? ",\"estimate\":true}" : ",\"estimate\":false}");
  }
  st_jout_lit(o, "],\"steps\":[");
  for (uint32_t j = 0; j < e->nsteps; j++) {
    const st_eff_step *s = &e->steps[j];
    double denom = (double)s->wall_ns / 1e9 * s->peak_tflops * 1e12;
    st_jout_lit(o, j ? ",{\"trace\":" : "{\"trace\":");
    st_jout_u64(o, s->trace);
    st_jout_lit(o, ",\"step\":");
    st_jout_i64(o, s->step);
    st_jout_lit(o, ",\"wall_us\":");
    st_jout_us(o, s->wall_ns);
    st_jout_lit(o, ",\"devices\":");
    st_jout_u64(o, s->devices);
    st_jout_lit(o, ",\"flops\":");
    st_jout_sig(o, s->flops, 17);
    st_jout_lit(o, ",\"model_flops\":");
    st_jout_sig(o, s->model_flops, 17);
    st_jout_lit(o, ",\"peak_tflops\":");
    num_or_null(o, s->peak_tflops > 0, s->peak_tflops, 6);
    st_jout_lit(o, ",\"mfu_pct\":");
    num_or_null(o, denom > 0, 100 * s->model_flops / denom, 4);
    st_jout_lit(o, ",\"hfu_pct\":");
    num_or_null(o, denom > 0, 100 * s->flops / denom, 4);
    st_jout_lit(o, "}");
  }
  st_jout_lit(o, "]}");
}
