/* efficiency_cost.c: an op's FLOPs and bytes from its args (efficiency.h):
 * PyTorch's recorded shapes and XLA's stats. README "How well the hardware
 * is used" states every formula. */
#include "efficiency.h"
#include "json_scan.h"

#include <math.h>
#include <string.h>

#define MAX_IN 16
#define MAX_DIMS 8

typedef struct shapes {
  int n;                        /* inputs recorded */
  int rank[MAX_IN];             /* -1: not a plain tensor (a list, a scalar: rank 0 too) */
  double dim[MAX_IN][MAX_DIMS]; /* sizes */
  uint8_t dtype[MAX_IN];        /* st_dtype */
  double esize[MAX_IN];         /* bytes per element (0 unknown) */
  int nconc;                    /* Concrete Inputs recorded */
  const char *conc[MAX_IN];     /* raw string bodies */
  size_t conc_len[MAX_IN];
} shapes;

const char *st_dtype_name(st_dtype d) {
  static const char *const n[ST_DT_COUNT] = {"",     "fp32", "tf32", "bf16",
                                             "fp16", "fp8",  "int8", "fp64"};
  return d < ST_DT_COUNT ? n[d] : "";
}

static int eqs(const char *s, size_t n, const char *w) {
  return strlen(w) == n && !memcmp(s, w, n);
}

/* The elements of the array [p, end): calls fn on each. */
typedef void (*elem_fn)(void *ctx, int i, const char *v, const char *ve);
static int each(const char *p, const char *end, elem_fn fn, void *ctx) {
  p = st_json_ws(p, end);
  if (p >= end || *p != '[') return -1;
  p = st_json_ws(p + 1, end);
  int i = 0;
  if (p < end && *p == ']') return 0;
  while (p < end) {
    const char *ve;
    if (st_json_skip_value(p, end, &ve) != ST_JSON_OK) return -1;
    fn(ctx, i++, p, ve);
    p = st_json_ws(ve, end);
    if (p < end && *p == ',') {
      p = st_json_ws(p + 1, end);
      continue;
    }
    return p < end && *p == ']' ? i : -1;
  }
  return -1;
}

typedef struct dims_ctx {
  shapes *s;
  int in;
  int bad;
} dims_ctx;

static void dim_elem(void *c, int i, const char *v, const char *ve) {
  dims_ctx *d = c;
  double x;
  /* sizes are counts: whole, 0 .. 2^53 (beyond that, or not a number: no cost) */
  if (*v == '[' || i >= MAX_DIMS || !st_json_double(v, (size_t)(ve - v), &x) || !(x >= 0) ||
      x > 9007199254740992.0 || x != (double)(int64_t)x) {
    d->bad = 1;
    return;
  }
  d->s->dim[d->in][i] = x;
}

static void input_elem(void *c, int i, const char *v, const char *ve) {
  shapes *s = c;
  if (i >= MAX_IN) return;
  if (i >= s->n) s->n = i + 1;
  dims_ctx d = {s, i, 0};
  int r = each(v, ve, dim_elem, &d);
  s->rank[i] = r < 0 || d.bad ? -1 : r;
}

static void dtype_of(const char *t, size_t n, uint8_t *dt, double *es) {
  static const struct {
    const char *name;
    uint8_t dt;
    double es;
  } m[] = {{"float", ST_DT_FP32, 4},
           {"c10::Half", ST_DT_FP16, 2},
           {"c10::BFloat16", ST_DT_BF16, 2},
           {"double", ST_DT_FP64, 8},
           {"c10::Float8_e4m3fn", ST_DT_FP8, 1},
           {"c10::Float8_e5m2", ST_DT_FP8, 1},
           {"c10::Float8_e4m3fnuz", ST_DT_FP8, 1},
           {"c10::Float8_e5m2fnuz", ST_DT_FP8, 1},
           {"signed char", ST_DT_INT8, 1},
           {"unsigned char", ST_DT_UNKNOWN, 1},
           {"bool", ST_DT_UNKNOWN, 1},
           {"short", ST_DT_UNKNOWN, 2},
           {"int", ST_DT_UNKNOWN, 4},
           {"long", ST_DT_UNKNOWN, 8},
           {"long int", ST_DT_UNKNOWN, 8}};
  *dt = ST_DT_UNKNOWN;
  *es = 0;
  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
    if (eqs(t, n, m[i].name)) {
      *dt = m[i].dt;
      *es = m[i].es;
      return;
    }
}

static void type_elem(void *c, int i, const char *v, const char *ve) {
  shapes *s = c;
  if (i >= MAX_IN || *v != '"' || ve - v < 2) return;
  dtype_of(v + 1, (size_t)(ve - v - 2), &s->dtype[i], &s->esize[i]);
}

static void conc_elem(void *c, int i, const char *v, const char *ve) {
  shapes *s = c;
  if (i >= MAX_IN || *v != '"' || ve - v < 2) return;
  if (i >= s->nconc) s->nconc = i + 1;
  s->conc[i] = v + 1;
  s->conc_len[i] = (size_t)(ve - v - 2);
}

static int read_shapes(const char *args, size_t alen, shapes *s) {
  memset(s, 0, sizeof *s);
  const char *end = args + alen, *v, *ve;
  if (!st_json_member(args, end, "Input Dims", &v, &ve) || each(v, ve, input_elem, s) < 0) return 0;
  if (st_json_member(args, end, "Input type", &v, &ve)) each(v, ve, type_elem, s);
  if (st_json_member(args, end, "Concrete Inputs", &v, &ve)) each(v, ve, conc_elem, s);
  return s->n > 0;
}

/* Concrete input i as up to k integers ("[1, 2]" or "3"; one value is
 * repeated to k). 1 if recorded. */
static int conc_ints(const shapes *s, int i, int k, double *out) {
  if (i >= s->nconc || !s->conc[i] || !s->conc_len[i]) return 0;
  const char *p = s->conc[i], *end = p + s->conc_len[i];
  int got = 0;
  while (p < end && got < k) {
    while (p < end && (*p == '[' || *p == ' ' || *p == ',')) p++;
    if (p >= end || *p == ']') break;
    const char *e = st_json_number_end(p, end);
    double x;
    if (e == p || !st_json_double(p, (size_t)(e - p), &x)) return 0;
    out[got++] = x;
    p = e;
  }
  if (!got) return 0;
  for (int j = got; j < k; j++) out[j] = got == 1 ? out[0] : out[got - 1];
  return 1;
}

/* Concrete input i as a boolean: 1 true, 0 false, -1 not recorded. */
static int conc_bool(const shapes *s, int i) {
  if (i >= s->nconc || !s->conc[i]) return -1;
  if (eqs(s->conc[i], s->conc_len[i], "True") || eqs(s->conc[i], s->conc_len[i], "1")) return 1;
  if (eqs(s->conc[i], s->conc_len[i], "False") || eqs(s->conc[i], s->conc_len[i], "0")) return 0;
  return -1;
}

static double numel(const shapes *s, int i) {
  if (i >= s->n || s->rank[i] < 0) return 0;
  double v = 1;
  for (int d = 0; d < s->rank[i]; d++) v *= s->dim[i][d];
  return v;
}

static int tensor(const shapes *s, int i, int rank) { return i < s->n && s->rank[i] == rank; }

/* Bytes of inputs listed in ins (their own element sizes, else es) and of
 * an output of out_elems elements of es bytes. */
static double io_bytes(const shapes *s, const int *ins, int nin, double out_elems, double es) {
  double b = out_elems * es;
  for (int j = 0; j < nin; j++) {
    int i = ins[j];
    /* [] of no dtype: an absent optional tensor (or a scalar), not one element */
    if (i < s->n && s->rank[i] >= 0 && (s->rank[i] > 0 || s->esize[i] > 0))
      b += numel(s, i) * (s->esize[i] > 0 ? s->esize[i] : es);
  }
  return b;
}

static void set_dtype(st_op_cost *c, const shapes *s, int i, double *es) {
  c->dtype = i < s->n ? s->dtype[i] : ST_DT_UNKNOWN;
  *es = i < s->n && s->esize[i] > 0 ? s->esize[i] : 0;
}

/* ---- formulas ------------------------------------------------------------- */

static int cost_mm(const shapes *s, int a, int b, int bias, st_op_cost *c) {
  if (!tensor(s, a, 2) || !tensor(s, b, 2)) return 0;
  double m = s->dim[a][0], k = s->dim[a][1], n = s->dim[b][1], es;
  set_dtype(c, s, a, &es);
  c->flops = 2 * m * k * n;
  int ins[3] = {a, b, bias};
  c->bytes = io_bytes(s, ins, bias >= 0 ? 3 : 2, m * n, es);
  return 1;
}

static int cost_bmm(const shapes *s, int a, int b, int bias, st_op_cost *c) {
  if (!tensor(s, a, 3) || !tensor(s, b, 3)) return 0;
  double bt = s->dim[a][0], m = s->dim[a][1], k = s->dim[a][2], n = s->dim[b][2], es;
  set_dtype(c, s, a, &es);
  c->flops = 2 * bt * m * k * n;
  int ins[3] = {a, b, bias};
  c->bytes = io_bytes(s, ins, bias >= 0 ? 3 : 2, bt * m * n, es);
  return 1;
}

/* matmul's broadcasting: 1-d operands are a row / a column; the batch is
 * the broadcast of the leading dimensions. */
static int cost_matmul(const shapes *s, st_op_cost *c) {
  if (s->n < 2 || s->rank[0] < 1 || s->rank[1] < 1) return 0;
  int ra = s->rank[0], rb = s->rank[1];
  double m = ra >= 2 ? s->dim[0][ra - 2] : 1, k = s->dim[0][ra - 1];
  double n = rb >= 2 ? s->dim[1][rb - 1] : 1;
  int la = ra > 2 ? ra - 2 : 0, lb = rb > 2 ? rb - 2 : 0, l = la > lb ? la : lb;
  double batch = 1;
  for (int i = 0; i < l; i++) {
    double x = i < la ? s->dim[0][la - 1 - i] : 1, y = i < lb ? s->dim[1][lb - 1 - i] : 1;
    batch *= x > y ? x : y;
  }
  double es;
  set_dtype(c, s, 0, &es);
  c->flops = 2 * batch * m * k * n;
  int ins[2] = {0, 1};
  c->bytes = io_bytes(s, ins, 2, batch * m * n, es);
  return 1;
}

static int cost_linear(const shapes *s, st_op_cost *c) {
  if (s->n < 2 || s->rank[0] < 1 || !tensor(s, 1, 2)) return 0;
  int r = s->rank[0];
  double rows = 1, in = s->dim[0][r - 1], out = s->dim[1][0], es;
  for (int i = 0; i + 1 < r; i++) rows *= s->dim[0][i];
  set_dtype(c, s, 0, &es);
  c->flops = 2 * rows * in * out;
  int ins[3] = {0, 1, 2};
  c->bytes = io_bytes(s, ins, s->n > 2 ? 3 : 2, rows * out, es);
  return 1;
}

/* Convolutions: the argument positions of stride, padding, dilation,
 * transposed, output_padding and groups (-1: none). */
typedef struct conv_args {
  int stride, padding, dilation, transposed, out_pad, groups;
} conv_args;

static int cost_conv(const shapes *s, conv_args ca, st_op_cost *c) {
  if (s->n < 2 || s->rank[0] < 3 || s->rank[0] > 5 || s->rank[1] != s->rank[0]) return 0;
  int sp = s->rank[0] - 2;
  double st[3], pd[3], dl[3], op[3] = {0, 0, 0}, g = 1;
  int est = 0;
  if (!conc_ints(s, ca.stride, sp, st)) st[0] = st[1] = st[2] = 1, est = 1;
  if (!conc_ints(s, ca.padding, sp, pd)) pd[0] = pd[1] = pd[2] = 0, est = 1;
  if (!conc_ints(s, ca.dilation, sp, dl)) dl[0] = dl[1] = dl[2] = 1, est = 1;
  int tr = ca.transposed >= 0 ? conc_bool(s, ca.transposed) : 0;
  if (tr < 0) tr = 0, est = 1;
  if (tr && ca.out_pad >= 0) conc_ints(s, ca.out_pad, sp, op);
  double gv;
  if (ca.groups >= 0 && conc_ints(s, ca.groups, 1, &gv) && gv >= 1)
    g = gv;
  else if (!tr && s->dim[1][1] > 0) /* weight [Cout, Cin / groups, k...] */
    g = s->dim[0][1] / s->dim[1][1];
  else
    est = 1;
  double nb = s->dim[0][0], cin = s->dim[0][1], kern = 1, in_sp = 1, out_sp = 1;
  double cout = tr ? s->dim[1][1] * g : s->dim[1][0];
  for (int i = 0; i < sp; i++) {
    double in = s->dim[0][2 + i], k = s->dim[1][2 + i], o;
    if (tr)
      o = (in - 1) * st[i] - 2 * pd[i] + dl[i] * (k - 1) + op[i] + 1;
    else {
      double num = in + 2 * pd[i] - dl[i] * (k - 1) - 1;
      if (num < 0 || st[i] <= 0) return 0;
      o = floor(num / st[i]) + 1;
    }
    if (o <= 0) return 0;
    kern *= k;
    in_sp *= in;
    out_sp *= o;
  }
  double es;
  set_dtype(c, s, 0, &es);
  /* each multiply-add of an output element (forward) or of an input
   * element scattered (transposed) */
  c->flops =
      tr ? 2 * nb * cin * in_sp * (cout / g) * kern : 2 * nb * cout * out_sp * (cin / g) * kern;
  int ins[3] = {0, 1, 2};
  c->bytes = io_bytes(s, ins, s->n > 2 ? 3 : 2, nb * cout * out_sp, es);
  c->estimate = (uint8_t)est;
  return 1;
}

/* Attention: q, k, v at qi, qi + 1, qi + 2; bhld: [B, H, L, E] (else
 * [B, L, H, E]); causal from concrete input ci (a bool, or with mask_type
 * an int whose 1 is causal); scale: 2.5 for a backward. */
static int cost_attention(const shapes *s, int qi, int bhld, int ci, int mask_type, double scale,
                          st_op_cost *c) {
  if (!tensor(s, qi, 4) || !tensor(s, qi + 1, 4) || !tensor(s, qi + 2, 4)) return 0;
  const double *q = s->dim[qi], *k = s->dim[qi + 1], *v = s->dim[qi + 2];
  double b = q[0], h = bhld ? q[1] : q[2], l = bhld ? q[2] : q[1], e = q[3];
  double sl = bhld ? k[2] : k[1], ev = v[3];
  int causal = -1;
  if (mask_type) {
    double mt;
    if (conc_ints(s, ci, 1, &mt)) causal = mt == 1;
  } else {
    causal = conc_bool(s, ci);
  }
  /* (query, key) pairs computed: all, or the causal ones (key j <= query
   * i + S - L) */
  double pairs = l * sl;
  if (causal == 1) pairs = sl >= l ? l * (l + 1) / 2 + l * (sl - l) : sl * (sl + 1) / 2;
  double es;
  set_dtype(c, s, qi, &es);
  c->flops = scale * 2 * b * h * pairs * (e + ev);
  int ins[3] = {qi, qi + 1, qi + 2};
  c->bytes = io_bytes(s, ins, 3, b * h * l * ev, es);
  if (scale > 1)
    c->bytes += io_bytes(s, ins, 3, 0, es) + b * h * l * ev * es; /* grads out, grad in */
  c->estimate = causal < 0 || scale > 1;
  return 1;
}

typedef struct named_op {
  const char *name;
  int id;
} named_op;

enum {
  OP_MM = 1,
  OP_ADDMM,
  OP_BMM,
  OP_BADDBMM,
  OP_MATMUL,
  OP_LINEAR,
  OP_CONVND,      /* conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups) */
  OP_CONVOLUTION, /* (input, weight, bias, stride, padding, dilation, transposed, output_padding,
                     groups, ...) */
  OP_SDPA,
  OP_FLASH,
  OP_EFFICIENT,
  OP_CUDNN_ATT,
  OP_FLASH_FWD,
  OP_EFFICIENT_FWD,
  OP_FLASH_BWD,
  OP_EFFICIENT_BWD
};

static const named_op ops[] = {
    {"aten::mm", OP_MM},
    {"aten::addmm", OP_ADDMM},
    {"aten::bmm", OP_BMM},
    {"aten::baddbmm", OP_BADDBMM},
    {"aten::matmul", OP_MATMUL},
    {"aten::linear", OP_LINEAR},
    {"aten::conv1d", OP_CONVND},
    {"aten::conv2d", OP_CONVND},
    {"aten::conv3d", OP_CONVND},
    {"aten::convolution", OP_CONVOLUTION},
    {"aten::_convolution", OP_CONVOLUTION},
    {"aten::scaled_dot_product_attention", OP_SDPA},
    {"aten::_scaled_dot_product_flash_attention", OP_FLASH},
    {"aten::_scaled_dot_product_efficient_attention", OP_EFFICIENT},
    {"aten::_scaled_dot_product_cudnn_attention", OP_CUDNN_ATT},
    {"aten::_flash_attention_forward", OP_FLASH_FWD},
    {"aten::_efficient_attention_forward", OP_EFFICIENT_FWD},
    {"aten::_scaled_dot_product_flash_attention_backward", OP_FLASH_BWD},
    {"aten::_scaled_dot_product_efficient_attention_backward", OP_EFFICIENT_BWD},
};

static int op_id(const char *name, size_t n) {
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (eqs(name, n, ops[i].name)) return ops[i].id;
  return 0;
}

int st_op_cost_named(const char *name, size_t n) { return op_id(name, n) != 0; }

/* An XLA stat (a JSON string or number) as a double. */
static int stat_num(const char *args, size_t alen, const char *key, double *out) {
  const char *v, *ve;
  if (!st_json_member(args, args + alen, key, &v, &ve)) return 0;
  if (*v == '"') v++, ve--;
  return ve > v && st_json_double(v, (size_t)(ve - v), out) && *out >= 0 && isfinite(*out);
}

int st_op_cost_from_args(const char *name, size_t n, const char *args, size_t alen,
                         st_op_cost *out) {
  memset(out, 0, sizeof *out);
  double f;
  if (stat_num(args, alen, "flops", &f)) {
    out->flops = f;
    out->model_flops = stat_num(args, alen, "model_flops", &f) ? f : out->flops;
    if (!stat_num(args, alen, "bytes_accessed", &out->bytes)) out->bytes = 0;
    out->source = ST_COST_XLA;
    return 1;
  }
  int id = op_id(name, n);
  shapes s;
  if (!id || !read_shapes(args, alen, &s)) return 0;
  int ok = 0;
  switch (id) {
  case OP_MM: ok = cost_mm(&s, 0, 1, -1, out); break;
  case OP_ADDMM: ok = cost_mm(&s, 1, 2, 0, out); break;
  case OP_BMM: ok = cost_bmm(&s, 0, 1, -1, out); break;
  case OP_BADDBMM: ok = cost_bmm(&s, 1, 2, 0, out); break;
  case OP_MATMUL: ok = cost_matmul(&s, out); break;
  case OP_LINEAR: ok = cost_linear(&s, out); break;
  case OP_CONVND: ok = cost_conv(&s, (conv_args){3, 4, 5, -1, -1, 6}, out); break;
  case OP_CONVOLUTION: ok = cost_conv(&s, (conv_args){3, 4, 5, 6, 7, 8}, out); break;
  case OP_SDPA: ok = cost_attention(&s, 0, 1, 5, 0, 1, out); break;
  case OP_FLASH: ok = cost_attention(&s, 0, 1, 4, 0, 1, out); break;
  case OP_EFFICIENT:
  case OP_CUDNN_ATT: ok = cost_attention(&s, 0, 1, 6, 0, 1, out); break;
  case OP_FLASH_FWD: ok = cost_attention(&s, 0, 0, 8, 0, 1, out); break;
  case OP_EFFICIENT_FWD: ok = cost_attention(&s, 0, 0, 9, 1, 1, out); break;
  case OP_FLASH_BWD: ok = cost_attention(&s, 1, 1, 11, 0, 2.5, out); break;
  case OP_EFFICIENT_BWD: ok = cost_attention(&s, 1, 1, 11, 0, 2.5, out); break;
  default: break;
  }
  if (!ok || !(out->flops >= 0) || !isfinite(out->flops) || !(out->bytes >= 0) ||
      !isfinite(out->bytes)) {
    memset(out, 0, sizeof *out);
    return 0;
  }
  out->model_flops = out->flops;
  out->source = ST_COST_SHAPES;
  return 1;
}
