/* pickle.c: the restricted pickle reader (see pickle.h). One loop over the
 * opcodes; values in an arena of fixed-size records, containers' items in
 * their own growing arrays, the memo an integer map. Strings and bytes
 * point into the input, which must outlive the reader. */
#include "pickle.h"

#include "u64map.h"

#include <string.h>

typedef struct pkval {
  uint8_t type;
  uint32_t n; /* STR/BYTES: length (the input is < 4 GiB apart: see read) */
  union {
    int64_t i;
    double f;
    uint64_t off;  /* STR/BYTES: offset in the input */
    uint32_t cont; /* LIST/TUPLE/DICT: index into conts */
  } u;
} pkval;

typedef struct pkcont {
  uint32_t *items;
  uint32_t n, cap;
} pkcont;

struct st_pickle {
  st_alloc alloc;
  const uint8_t *in;
  pkval *vals;
  uint32_t nvals, cvals;
  pkcont *conts;
  uint32_t nconts, cconts;
  uint32_t root;
};

int st_pickle_sniff(const uint8_t *p, size_t n) { return n >= 1 && p[0] == 0x80; }

/* ---- the reader's state ------------------------------------------------- */

typedef struct vm {
  st_pickle *pk;
  const uint8_t *p;
  size_t n, i, at; /* at: the current opcode's offset */
  uint32_t *stack;
  size_t nstack, cstack;
  size_t *marks;
  size_t nmarks, cmarks;
  st_u64map memo;
  st_error *err;
  int nomem;
} vm;

static const char *op_name(uint8_t op) {
  switch (op) {
  case 'c': return "GLOBAL";
  case 0x93: return "STACK_GLOBAL";
  case 'R': return "REDUCE";
  case 'b': return "BUILD";
  case 'i': return "INST";
  case 'o': return "OBJ";
  case 0x81: return "NEWOBJ";
  case 0x92: return "NEWOBJ_EX";
  case 0x82: return "EXT1";
  case 0x83: return "EXT2";
  case 0x84: return "EXT4";
  case 'P': return "PERSID";
  case 'Q': return "BINPERSID";
  case 0x8f: return "EMPTY_SET";
  case 0x90: return "ADDITEMS";
  case 0x91: return "FROZENSET";
  case 0x97: return "NEXT_BUFFER";
  case 0x98: return "READONLY_BUFFER";
  case 'S': return "STRING";
  case 'V': return "UNICODE";
  case 'F': return "FLOAT";
  default: return NULL;
  }
}

static int fail(vm *m, const char *what) {
  st_error_set(m->err, ST_ERR_FORMAT, m->at, "pickle: %s", what);
  return 0;
}

static int nomem(vm *m) {
  m->nomem = 1;
  st_error_set(m->err, ST_ERR_NOMEM, m->at, "out of memory reading the pickle");
  return 0;
}

static int need(vm *m, uint64_t k) {
  if (m->n - m->i >= k) return 1;
  st_error_set(m->err, ST_ERR_FORMAT, m->at,
               "pickle: truncated: the opcode needs %llu bytes, %zu are left",
               (unsigned long long)k, m->n - m->i);
  return 0;
}

static uint64_t le(const uint8_t *p, int k) {
  uint64_t x = 0;
  for (int j = k; j-- > 0;) x = x << 8 | p[j];
  return x;
}

static uint32_t new_val(vm *m, uint8_t type) {
  st_pickle *pk = m->pk;
  size_t c = pk->cvals;
  if (pk->nvals >= UINT32_MAX - 1 ||
      !st_grow(&pk->alloc, (void **)&pk->vals, &c, (size_t)pk->nvals + 1, sizeof *pk->vals)) {
    nomem(m);
    return UINT32_MAX;
  }
  pk->cvals = (uint32_t)c;
  pk->vals[pk->nvals] = (pkval){.type = type};
  return pk->nvals++;
}

static uint32_t new_cont(vm *m, uint8_t type) {
  st_pickle *pk = m->pk;
  size_t c = pk->cconts;
  if (pk->nconts >= UINT32_MAX - 1 ||
      !st_grow(&pk->alloc, (void **)&pk->conts, &c, (size_t)pk->nconts + 1, sizeof *pk->conts)) {
    nomem(m);
    return UINT32_MAX;
  }
  pk->cconts = (uint32_t)c;
  uint32_t v = new_val(m, type);
  if (v == UINT32_MAX) return v;
  pk->conts[pk->nconts] = (pkcont){0};
  pk->vals[v].u.cont = pk->nconts++;
  return v;
}

static int push(vm *m, uint32_t v) {
  if (v == UINT32_MAX) return 0;
  if (!st_grow(&m->pk->alloc, (void **)&m->stack, &m->cstack, m->nstack + 1, sizeof *m->stack))
    return nomem(m);
  m->stack[m->nstack++] = v;
  return 1;
}

static size_t fence(const vm *m) { return m->nmarks ? m->marks[m->nmarks - 1] : 0; }

static int pop(vm *m, uint32_t *v) {
  if (m->nstack <= fence(m)) return fail(m, "stack underflow");
  *v = m->stack[--m->nstack];
  return 1;
}

static int pop_mark(vm *m, size_t *at) {
  if (!m->nmarks) return fail(m, "no MARK for the opcode");
  *at = m->marks[--m->nmarks];
  return 1;
}

/* appends vals[0, k) to container c */
static int add_items(vm *m, uint32_t c, const uint32_t *v, size_t k) {
  pkcont *ct = &m->pk->conts[m->pk->vals[c].u.cont];
  if ((uint64_t)ct->n + k >= UINT32_MAX) return fail(m, "a container too large");
  if (ct->n + k > ct->cap) { /* small containers are most: exact at first, then doubling */
    void *items = ct->items;
    int ok = st_grow32(&m->pk->alloc, &items, &ct->cap, ct->n + k, sizeof *ct->items,
                       (uint32_t)(ct->n + k));
    ct->items = items;
    if (!ok) return nomem(m);
  }
  if (k) memcpy(ct->items + ct->n, v, k * sizeof *v);
  ct->n += (uint32_t)k;
  return 1;
}

/* a new container of `type` holding the stack's items above the mark */
static int from_mark(vm *m, uint8_t type) {
  size_t at;
  if (!pop_mark(m, &at)) return 0;
  uint32_t c = new_cont(m, type);
  if (c == UINT32_MAX) return 0;
  if (type == ST_PK_DICT && (m->nstack - at) % 2) return fail(m, "DICT with an odd item count");
  if (m->nstack > at && !add_items(m, c, m->stack + at, m->nstack - at)) return 0;
  m->nstack = at;
  return push(m, c);
}

static int is_type(const vm *m, uint32_t v, uint8_t t) { return m->pk->vals[v].type == t; }

/* a decimal line (PUT, GET, INT, LONG): its value */
static int line_int(vm *m, int64_t *out, int allow_l) {
  size_t j = m->i;
  int neg = 0;
  uint64_t x = 0;
  if (j < m->n && (m->p[j] == '-' || m->p[j] == '+')) neg = m->p[j++] == '-';
  size_t d0 = j;
  while (j < m->n && m->p[j] >= '0' && m->p[j] <= '9') {
    if (x > (uint64_t)INT64_MAX / 10) return fail(m, "an integer too large");
    x = x * 10 + (uint64_t)(m->p[j++] - '0');
  }
  if (x > (uint64_t)INT64_MAX) return fail(m, "an integer too large");
  if (allow_l && j < m->n && m->p[j] == 'L') j++;
  if (j == d0 || j >= m->n || m->p[j] != '\n') return fail(m, "a malformed decimal line");
  m->i = j + 1;
  *out = neg ? -(int64_t)x : (int64_t)x;
  return 1;
}

static int memo_put(vm *m, uint64_t idx) {
  if (m->nstack <= fence(m)) return fail(m, "memo store with an empty stack");
  if (!st_u64map_put(&m->memo, &m->pk->alloc, idx, m->stack[m->nstack - 1])) return nomem(m);
  return 1;
}

static int memo_get(vm *m, uint64_t idx) {
  uint32_t v = st_u64map_get(&m->memo, idx);
  if (v == ST_U64MAP_NONE) {
    st_error_set(m->err, ST_ERR_FORMAT, m->at, "pickle: memo entry %llu read was never stored",
                 (unsigned long long)idx);
    return 0;
  }
  return push(m, v);
}

static int bytes_val(vm *m, uint8_t type, uint64_t len) {
  if (!need(m, len)) return 0;
  if (len > UINT32_MAX) return fail(m, "a string longer than 4 GiB");
  uint32_t v = new_val(m, type);
  if (v == UINT32_MAX) return 0;
  m->pk->vals[v].n = (uint32_t)len;
  m->pk->vals[v].u.off = m->i;
  m->i += (size_t)len;
  return push(m, v);
}

static int int_val(vm *m, int64_t x) {
  uint32_t v = new_val(m, ST_PK_INT);
  if (v == UINT32_MAX) return 0;
  m->pk->vals[v].u.i = x;
  return push(m, v);
}

/* LONG1 / LONG4: k bytes of little-endian two's complement */
static int long_val(vm *m, uint64_t k) {
  if (!need(m, k)) return 0;
  const uint8_t *b = m->p + m->i;
  m->i += (size_t)k;
  if (k == 0) return int_val(m, 0);
  int neg = b[k - 1] >> 7;
  if (k <= 8) {
    uint64_t x = le(b, (int)k);
    if (neg && k < 8) x |= ~(uint64_t)0 << (8 * k);
    return int_val(m, (int64_t)x);
  }
  double f = 0; /* larger: its approximate value */
  for (uint64_t j = k; j-- > 0;) f = f * 256.0 + (double)(neg ? (uint8_t)~b[j] : b[j]);
  if (neg) f = -(f + 1);
  uint32_t v = new_val(m, ST_PK_FLOAT);
  if (v == UINT32_MAX) return 0;
  m->pk->vals[v].u.f = f;
  return push(m, v);
}

static int step(vm *m, int *done) {
  uint8_t op = m->p[m->i];
  m->at = m->i++;
  uint32_t a, b, c;
  size_t at;
  switch (op) {
  case 0x80: /* PROTO */
    if (!need(m, 1)) return 0;
    if (m->p[m->i] > 5) {
      st_error_set(m->err, ST_ERR_FORMAT, m->at,
                   "pickle: protocol %u is not supported (2 to 5 are)", m->p[m->i]);
      return 0;
    }
    m->i++;
    return 1;
  case 0x95: /* FRAME: a hint */
    if (!need(m, 8)) return 0;
    if (le(m->p + m->i, 8) > m->n - m->i - 8) return need(m, le(m->p + m->i, 8) + 8);
    m->i += 8;
    return 1;
  case '.': /* STOP */
    if (!pop(m, &a)) return 0;
    m->pk->root = a;
    *done = 1;
    return 1;
  case '(': /* MARK */
    if (m->nmarks >= ST_PK_MAX_MARKS) return fail(m, "nesting deeper than 1024 marks");
    if (!st_grow(&m->pk->alloc, (void **)&m->marks, &m->cmarks, m->nmarks + 1, sizeof *m->marks))
      return nomem(m);
    m->marks[m->nmarks++] = m->nstack;
    return 1;
  case '}': return push(m, new_cont(m, ST_PK_DICT));
  case ']': return push(m, new_cont(m, ST_PK_LIST));
  case ')': return push(m, new_cont(m, ST_PK_TUPLE));
  case 'd': return from_mark(m, ST_PK_DICT);
  case 'l': return from_mark(m, ST_PK_LIST);
  case 't': return from_mark(m, ST_PK_TUPLE);
  case 0x85: /* TUPLE1..3 */
  case 0x86:
  case 0x87: {
    size_t k = (size_t)(op - 0x84);
    if (m->nstack < fence(m) + k) return fail(m, "stack underflow");
    uint32_t t = new_cont(m, ST_PK_TUPLE);
    if (t == UINT32_MAX || !add_items(m, t, m->stack + m->nstack - k, k)) return 0;
    m->nstack -= k;
    return push(m, t);
  }
  case 'a': /* APPEND */
    if (!pop(m, &b) || !pop(m, &a)) return 0;
    if (!is_type(m, a, ST_PK_LIST)) return fail(m, "APPEND to a value that is not a list");
    return add_items(m, a, &b, 1) && push(m, a);
  case 'e': /* APPENDS */
    if (!pop_mark(m, &at)) return 0;
    if (at == 0 || at <= fence(m)) return fail(m, "APPENDS without a list");
    a = m->stack[at - 1];
    if (!is_type(m, a, ST_PK_LIST)) return fail(m, "APPENDS to a value that is not a list");
    if (!add_items(m, a, m->stack + at, m->nstack - at)) return 0;
    m->nstack = at;
    return 1;
  case 's': /* SETITEM */
    if (!pop(m, &c) || !pop(m, &b) || !pop(m, &a)) return 0;
    if (!is_type(m, a, ST_PK_DICT)) return fail(m, "SETITEM on a value that is not a dict");
    {
      uint32_t kv[2] = {b, c};
      return add_items(m, a, kv, 2) && push(m, a);
    }
  case 'u': /* SETITEMS */
    if (!pop_mark(m, &at)) return 0;
    if (at == 0 || at <= fence(m)) return fail(m, "SETITEMS without a dict");
    a = m->stack[at - 1];
    if (!is_type(m, a, ST_PK_DICT)) return fail(m, "SETITEMS on a value that is not a dict");
    if ((m->nstack - at) % 2) return fail(m, "SETITEMS with an odd item count");
    if (!add_items(m, a, m->stack + at, m->nstack - at)) return 0;
    m->nstack = at;
    return 1;
  case '0': /* POP: a value, or the mark on top */
    if (m->nmarks && m->marks[m->nmarks - 1] == m->nstack) return pop_mark(m, &at);
    return pop(m, &a);
  case '1': /* POP_MARK */
    if (!pop_mark(m, &at)) return 0;
    m->nstack = at;
    return 1;
  case '2': /* DUP */
    if (m->nstack <= fence(m)) return fail(m, "stack underflow");
    return push(m, m->stack[m->nstack - 1]);
  case 'N': return push(m, new_val(m, ST_PK_NONE));
  case 0x88: /* NEWTRUE, NEWFALSE */
  case 0x89:
    a = new_val(m, ST_PK_BOOL);
    if (a == UINT32_MAX) return 0;
    m->pk->vals[a].u.i = op == 0x88;
    return push(m, a);
  case 'J':
    if (!need(m, 4)) return 0;
    m->i += 4;
    return int_val(m, (int32_t)(uint32_t)le(m->p + m->i - 4, 4));
  case 'K':
    if (!need(m, 1)) return 0;
    return int_val(m, m->p[m->i++]);
  case 'M':
    if (!need(m, 2)) return 0;
    m->i += 2;
    return int_val(m, (int64_t)le(m->p + m->i - 2, 2));
  case 0x8a: /* LONG1 */
    if (!need(m, 1)) return 0;
    return long_val(m, m->p[m->i++]);
  case 0x8b: { /* LONG4 */
    if (!need(m, 4)) return 0;
    int32_t k = (int32_t)(uint32_t)le(m->p + m->i, 4);
    m->i += 4;
    if (k < 0) return fail(m, "LONG4 with a negative length");
    return long_val(m, (uint64_t)k);
  }
  case 'I': { /* INT: also I00 / I01, False / True */
    int64_t x;
    int isbool = m->n - m->i >= 3 && m->p[m->i] == '0' && m->p[m->i + 2] == '\n' &&
                 (m->p[m->i + 1] == '0' || m->p[m->i + 1] == '1');
    if (!line_int(m, &x, 0)) return 0;
    if (!isbool) return int_val(m, x);
    a = new_val(m, ST_PK_BOOL);
    if (a == UINT32_MAX) return 0;
    m->pk->vals[a].u.i = x;
    return push(m, a);
  }
  case 'L': {
    int64_t x;
    return line_int(m, &x, 1) && int_val(m, x);
  }
  case 'G': { /* BINFLOAT: big-endian double */
    if (!need(m, 8)) return 0;
    uint64_t x = 0;
    for (int j = 0; j < 8; j++) x = x << 8 | m->p[m->i + (size_t)j];
    m->i += 8;
    a = new_val(m, ST_PK_FLOAT);
    if (a == UINT32_MAX) return 0;
    memcpy(&m->pk->vals[a].u.f, &x, 8);
    return push(m, a);
  }
  case 0x8c: /* SHORT_BINUNICODE */
    if (!need(m, 1)) return 0;
    return bytes_val(m, ST_PK_STR, m->p[m->i++]);
  case 'X': /* BINUNICODE */
    if (!need(m, 4)) return 0;
    m->i += 4;
    return bytes_val(m, ST_PK_STR, le(m->p + m->i - 4, 4));
  case 0x8d: /* BINUNICODE8 */
    if (!need(m, 8)) return 0;
    m->i += 8;
    return bytes_val(m, ST_PK_STR, le(m->p + m->i - 8, 8));
  case 'U': /* SHORT_BINSTRING (Python 2 str): bytes */
  case 'C': /* SHORT_BINBYTES */
    if (!need(m, 1)) return 0;
    return bytes_val(m, ST_PK_BYTES, m->p[m->i++]);
  case 'T': { /* BINSTRING */
    if (!need(m, 4)) return 0;
    int32_t k = (int32_t)(uint32_t)le(m->p + m->i, 4);
    m->i += 4;
    if (k < 0) return fail(m, "BINSTRING with a negative length");
    return bytes_val(m, ST_PK_BYTES, (uint64_t)k);
  }
  case 'B': /* BINBYTES */
    if (!need(m, 4)) return 0;
    m->i += 4;
    return bytes_val(m, ST_PK_BYTES, le(m->p + m->i - 4, 4));
  case 0x8e: /* BINBYTES8, BYTEARRAY8 */
  case 0x96:
    if (!need(m, 8)) return 0;
    m->i += 8;
    return bytes_val(m, ST_PK_BYTES, le(m->p + m->i - 8, 8));
  case 'q': /* BINPUT */
    if (!need(m, 1)) return 0;
    return memo_put(m, m->p[m->i++]);
  case 'r': /* LONG_BINPUT */
    if (!need(m, 4)) return 0;
    m->i += 4;
    return memo_put(m, le(m->p + m->i - 4, 4));
  case 0x94: /* MEMOIZE */ return memo_put(m, m->memo.count);
  case 'h': /* BINGET */
    if (!need(m, 1)) return 0;
    return memo_get(m, m->p[m->i++]);
  case 'j': /* LONG_BINGET */
    if (!need(m, 4)) return 0;
    m->i += 4;
    return memo_get(m, le(m->p + m->i - 4, 4));
  case 'p': /* PUT, GET: decimal lines */
  case 'g': {
    int64_t x;
    if (!line_int(m, &x, 0)) return 0;
    if (x < 0) return fail(m, "a negative memo index");
    return op == 'p' ? memo_put(m, (uint64_t)x) : memo_get(m, (uint64_t)x);
  }
  default: {
    const char *nm = op_name(op);
    int code = op == 'c' || op == 0x93 || op == 'R' || op == 'b' || op == 'i' || op == 'o' ||
               op == 0x81 || op == 0x92 || op == 0x82 || op == 0x83 || op == 0x84 || op == 'P' ||
               op == 'Q';
    if (code)
      st_error_set(m->err, ST_ERR_FORMAT, m->at,
                   "pickle: refused opcode %s (0x%02x): it would import or call Python code; only "
                   "plain data is read",
                   nm, op);
    else if (nm)
      st_error_set(m->err, ST_ERR_FORMAT, m->at,
                   "pickle: opcode %s (0x%02x) is not supported (not the plain data of a memory "
                   "snapshot)",
                   nm, op);
    else
      st_error_set(m->err, ST_ERR_FORMAT, m->at, "pickle: unknown opcode 0x%02x", op);
    return 0;
  }
  }
}

st_pickle *st_pickle_read(const st_alloc *a, const uint8_t *p, size_t n, st_error *err) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (!p && n) {
    st_error_set(err, ST_ERR_ARG, 0, "pickle: no input");
    return NULL;
  }
  st_pickle *pk = st_calloc(&al, 1, sizeof *pk);
  if (!pk) {
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory reading the pickle");
    return NULL;
  }
  pk->alloc = al;
  pk->in = p;
  pk->root = UINT32_MAX;
  vm m = {.pk = pk, .p = p, .n = n, .err = err};
  int done = 0, ok = 1;
  while (ok && !done) {
    if (m.i >= m.n) {
      m.at = m.n;
      st_error_set(err, ST_ERR_FORMAT, m.n, "pickle: truncated: no STOP before the end");
      ok = 0;
      break;
    }
    ok = step(&m, &done);
  }
  st_free(&al, m.stack);
  st_free(&al, m.marks);
  st_u64map_free(&m.memo, &al);
  if (!ok) {
    st_pickle_destroy(pk);
    return NULL;
  }
  if (err) st_error_set(err, ST_OK, 0, "");
  return pk;
}

void st_pickle_destroy(st_pickle *pk) {
  if (!pk) return;
  st_alloc a = pk->alloc;
  for (uint32_t i = 0; i < pk->nconts; i++) st_free(&a, pk->conts[i].items);
  st_free(&a, pk->conts);
  st_free(&a, pk->vals);
  st_free(&a, pk);
}

size_t st_pickle_bytes(const st_pickle *pk) {
  if (!pk) return 0;
  size_t b =
      sizeof *pk + (size_t)pk->cvals * sizeof *pk->vals + (size_t)pk->cconts * sizeof *pk->conts;
  for (uint32_t i = 0; i < pk->nconts; i++) b += (size_t)pk->conts[i].cap * sizeof(uint32_t);
  return b;
}

uint32_t st_pickle_root(const st_pickle *pk) { return pk ? pk->root : UINT32_MAX; }

st_pk_type st_pickle_type(const st_pickle *pk, uint32_t v) {
  return pk && v < pk->nvals ? (st_pk_type)pk->vals[v].type : ST_PK_NONE;
}

int64_t st_pickle_int(const st_pickle *pk, uint32_t v) {
  st_pk_type t = st_pickle_type(pk, v);
  if (t == ST_PK_INT || t == ST_PK_BOOL) return pk->vals[v].u.i;
  if (t == ST_PK_FLOAT) {
    double f = pk->vals[v].u.f;
    return f >= 9.2e18 ? INT64_MAX : f <= -9.2e18 ? INT64_MIN : f == f ? (int64_t)f : 0;
  }
  return 0;
}

double st_pickle_float(const st_pickle *pk, uint32_t v) {
  st_pk_type t = st_pickle_type(pk, v);
  if (t == ST_PK_FLOAT) return pk->vals[v].u.f;
  if (t == ST_PK_INT || t == ST_PK_BOOL) return (double)pk->vals[v].u.i;
  return 0;
}

const char *st_pickle_str(const st_pickle *pk, uint32_t v, size_t *len) {
  st_pk_type t = st_pickle_type(pk, v);
  if (t != ST_PK_STR && t != ST_PK_BYTES) {
    if (len) *len = 0;
    return NULL;
  }
  if (len) *len = pk->vals[v].n;
  return (const char *)pk->in + pk->vals[v].u.off;
}

const uint32_t *st_pickle_items(const st_pickle *pk, uint32_t v, uint32_t *count) {
  st_pk_type t = st_pickle_type(pk, v);
  if (t != ST_PK_LIST && t != ST_PK_TUPLE && t != ST_PK_DICT) {
    if (count) *count = 0;
    return NULL;
  }
  const pkcont *c = &pk->conts[pk->vals[v].u.cont];
  if (count) *count = c->n;
  return c->items;
}

uint32_t st_pickle_dict_get(const st_pickle *pk, uint32_t dict, const char *key) {
  if (st_pickle_type(pk, dict) != ST_PK_DICT || !key) return UINT32_MAX;
  uint32_t n;
  const uint32_t *it = st_pickle_items(pk, dict, &n);
  size_t kl = strlen(key);
  uint32_t found = UINT32_MAX;
  for (uint32_t i = 0; i + 1 < n; i += 2) {
    size_t l;
    const char *s = st_pickle_str(pk, it[i], &l);
    if (s && st_pickle_type(pk, it[i]) == ST_PK_STR && l == kl && memcmp(s, key, kl) == 0)
      found = it[i + 1];
  }
  return found;
}
