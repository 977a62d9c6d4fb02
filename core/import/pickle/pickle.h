/* pickle.h: a restricted reader of Python pickles (protocols 2 to 5, and
 * the protocol 0/1 forms of the same values) that understands plain data
 * only: dicts, lists, tuples, str, bytes, int, float, bool, None and the
 * memo. Nothing is ever executed or looked up: every opcode that names,
 * builds or calls an object (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST,
 * OBJ, NEWOBJ, NEWOBJ_EX, EXT1/2/4, PERSID, BINPERSID), sets, out-of-band
 * buffers and any unknown opcode stop the read with one line naming the
 * opcode and its byte offset. So does a length past the end of the input,
 * a memo reference never stored, a mark or stack underflow, and nesting
 * (open marks) deeper than ST_PK_MAX_MARKS.
 *
 * Values live in the reader's arena, addressed by index; containers keep
 * their items (a dict: key, value, key, value...) in the order the pickle
 * gave them. A value may be reachable twice (the memo) and even contain
 * itself: whoever walks the values must bound its own depth.
 *
 *   st_pickle *pk = st_pickle_read(&alloc, bytes, n, &err);  // NULL + err
 *   uint32_t root = st_pickle_root(pk);
 *   uint32_t v = st_pickle_dict_get(pk, root, "segments");
 *   st_pickle_destroy(pk);
 */
#ifndef STRATA_PICKLE_H
#define STRATA_PICKLE_H

#include "base.h"

enum { ST_PK_MAX_MARKS = 1024 };

typedef enum st_pk_type {
  ST_PK_NONE = 0,
  ST_PK_BOOL,
  ST_PK_INT,   /* fits int64 */
  ST_PK_FLOAT, /* also an int too large for int64 (its approximate value) */
  ST_PK_STR,
  ST_PK_BYTES,
  ST_PK_LIST,
  ST_PK_TUPLE,
  ST_PK_DICT
} st_pk_type;

typedef struct st_pickle st_pickle;

/* 1 if the bytes start like a pickle of protocol 2 or later (PROTO: 0x80;
 * a protocol other than 2 to 5 is then refused by the reader). */
int st_pickle_sniff(const uint8_t *p, size_t n);

/* NULL + err (ST_ERR_FORMAT: a refused or malformed pickle, message with
 * the byte offset; ST_ERR_NOMEM). */
st_pickle *st_pickle_read(const st_alloc *a, const uint8_t *p, size_t n, st_error *err);
void st_pickle_destroy(st_pickle *pk);
size_t st_pickle_bytes(const st_pickle *pk); /* resident memory */

uint32_t st_pickle_root(const st_pickle *pk);
st_pk_type st_pickle_type(const st_pickle *pk, uint32_t v); /* ST_PK_NONE for a bad v */
int64_t st_pickle_int(const st_pickle *pk, uint32_t v);     /* INT, BOOL; FLOAT truncated; else 0 */
double st_pickle_float(const st_pickle *pk, uint32_t v);    /* FLOAT, INT, BOOL; else 0 */
/* STR (UTF-8 as written) and BYTES: the bytes and their length; else NULL. */
const char *st_pickle_str(const st_pickle *pk, uint32_t v, size_t *len);
/* LIST, TUPLE, DICT: the items (a dict's as key, value pairs: 2 * entries);
 * else NULL and 0. */
const uint32_t *st_pickle_items(const st_pickle *pk, uint32_t v, uint32_t *count);
/* A dict's value for the str key (the last one given), UINT32_MAX if none. */
uint32_t st_pickle_dict_get(const st_pickle *pk, uint32_t dict, const char *key);

#endif
