/* cli_manifest.c: `strata manifest DIR [-o profile.json] [--json]`,
 * a profile's files listed in one versioned JSON manifest the page opens.
 *
 * DIR is walked with its sub-folders (names starting with '.' skipped,
 * symbolic links to folders not followed) for the files strata reads by
 * name (st_profile_trace_name: .json .gz .pb .pftrace .perfetto-trace
 * .trace; a manifest itself and the -o file are left out). Each is read
 * to learn what the page would call it and where it starts: from its index
 * FILE.stx when there is one that matches it (`strata index`, stream_stx.h:
 * its stats, metadata and summary, no pass over the file; one that does
 * not match is said on stderr, listed as no index, and the file read
 * instead), else once through the streaming pass (core/import/stream/
 * stream.h: memory bounded by its summary whatever the file's size); one
 * file at a time, freed before the next:
 *
 *   {"strata_manifest": 1, "files": [
 *     {"path": "sub/rank-3.json" (from the manifest's folder, '/'-separated),
 *      "bytes": 12345 (the file's size),
 *      "format": "chrome-json", "events": N,
 *      "group": "rank 3" (core/set/profile.h's names, unique among the
 *               files read, as the page names them),
 *      "group_source": "hostname" | "rank" | "file" | "none",
 *      "rank": 3 | null (Kineto distributedInfo.rank),
 *      "host": "worker-0" | null (XSpace hostnames),
 *      "clock": {"kind": "epoch" | "machine" | "none", "start_ns": N | null,
 *                "base_time_ns": N | null},
 *      "offset_us": its t = 0 on the shared timeline (the page's rule),
 *      "index": "sub/rank-3.json.stx" if that file exists and matches, else null,
 *      "warning": "..." (a file damaged part-way, read by the pass: kept, as
 *                 the page keeps it)},
 *     {"path": "broken.json", "bytes": 9, "error": "what (at byte N)"}, ...],
 *    "read": files read, "errors": files not read}
 *
 * The first key is "strata_manifest" (the page recognises a manifest by
 * it). Files are sorted by path (bytes compared), so the same folder gives
 * the same manifest. A file that cannot be read is listed with its one-line
 * error and not fatal. The manifest's folder (-o's) must be DIR or a folder
 * above it: the page reads only paths below the manifest. Without -o the
 * paths are relative to DIR. --json prints the manifest on stdout; else one
 * line per file and a summary (with -o: only the summary and the errors).
 */
#define _XOPEN_SOURCE 700 /* realpath */

#include "cli.h"

#include "profile.h"
#include "stats.h"
#include "stream.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 64 /* folders below DIR followed at most */

typedef struct mf_entry {
  char *rel;       /* path from DIR, '/'-separated */
  uint64_t bytes;  /* stat size */
  int ok;          /* loaded */
  char *error;     /* !ok: the one line */
  char *warning;   /* ok, damaged part-way: the one line (else NULL) */
  char format[32]; /* st_stats.format */
  uint64_t events; /* st_stats.events */
  char *meta;      /* a copy of st_loader_metadata_json */
  st_profile_clock clock;
  int has_index; /* rel + ".stx" exists */
} mf_entry;

typedef struct mf_list {
  mf_entry *v;
  size_t n, cap;
} mf_list;

static int usage(FILE *f, int code) {
  fprintf(f, "usage: strata manifest DIR [-o profile.json] [--json]\n"
             "  Lists the trace files under DIR (sub-folders too; .json .gz .pb .pftrace\n"
             "  .perfetto-trace .trace) in a JSON manifest the page opens as one profile\n"
             "  (?url=profile.json): path, bytes, group (host / rank), rank, host, clock,\n"
             "  index (FILE.stx next to FILE) per file; files it cannot read are listed\n"
             "  with their error. -o FILE writes it (FILE's folder: DIR or above it);\n"
             "  --json prints it.\n");
  return code;
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* a/b joined with '/' (b may be ""): malloc'd, NULL out of memory */
static char *join(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *p = malloc(na + nb + 2);
  if (!p) return NULL;
  memcpy(p, a, na);
  p[na] = '/';
  memcpy(p + na + 1, b, nb + 1);
  if (!*a) memmove(p, p + 1, nb + 1); /* "" + b = b */
  return p;
}

static int add(mf_list *l, char *rel) {
  if (!rel) return -1;
  if (l->n == l->cap) {
    void *v = l->v;
    if (!st_grow_from(&(st_alloc){0}, &v, &l->cap, l->n + 1, sizeof *l->v, 64))
      return free(rel), -1;
    l->v = v;
  }
  memset(&l->v[l->n], 0, sizeof l->v[l->n]);
  l->v[l->n++].rel = rel;
  return 0;
}

/* The first bytes of a manifest: '{' then "strata_manifest" as the first key. */
static int looks_like_manifest(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char b[64];
  size_t n = fread(b, 1, sizeof b - 1, f);
  fclose(f);
  b[n] = 0;
  const char *p = b;
  if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
    p += 3;
  p += strspn(p, " \t\r\n");
  if (*p++ != '{') return 0;
  p += strspn(p, " \t\r\n");
  return strncmp(p, "\"strata_manifest\"", 17) == 0;
}

/* Walks root/rel (rel "" = root): appends the trace files' paths from root.
 * 0, or -1 out of memory. Folders that cannot be read are skipped. */
static int walk(const char *root, const char *rel, int depth, const char *skip_abs, mf_list *out) {
  char *dir = *rel ? join(root, rel) : dup_str(root);
  if (!dir) return -1;
  DIR *d = opendir(dir);
  if (!d) return free(dir), 0;
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue; /* ., .., hidden */
    char *path = join(dir, e->d_name), *sub = join(rel, e->d_name);
    struct stat ls, st;
    if (!path || !sub) {
      rc = -1;
    } else if (lstat(path, &ls) == 0 && S_ISDIR(ls.st_mode)) {
      if (depth < MAX_DEPTH) rc = walk(root, sub, depth + 1, skip_abs, out);
    } else if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st_profile_trace_name(e->d_name)) {
      char real[PATH_MAX];
      int is_out = skip_abs && realpath(path, real) && strcmp(real, skip_abs) == 0;
      if (!is_out && !looks_like_manifest(path)) {
        rc = add(out, sub);
        sub = NULL;
      }
    }
    free(path);
    free(sub);
  }
  closedir(d);
  free(dir);
  return rc;
}

static int by_path(const void *a, const void *b) {
  return strcmp(((const mf_entry *)a)->rel, ((const mf_entry *)b)->rel);
}

static int utf8_ok(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  for (size_t i = 0; i < n;) {
    size_t k = p[i] < 0x80 ? 1 : st_utf8_len(p + i, n - i);
    if (!k) return 0;
    i += k;
  }
  return 1;
}

/* The streaming pass over one file (stream.h: memory bounded by its
 * summary, whatever the file's size), fed in 1 MiB reads. NULL with why
 * (one line) if it could not be read; else the summary trace, *s the
 * stream (the caller destroys both), *err the finish status. */
static st_trace *pass(const char *path, st_stream **s, st_error *err, char *why, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) return snprintf(why, cap, "cannot open: %s", strerror(errno)), NULL;
  st_stream_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = path;
  *s = st_stream_create(&d);
  char *buf = malloc(1u << 20);
  st_code rc = *s && buf ? ST_OK : ST_ERR_NOMEM;
  size_t n;
  while (rc == ST_OK && (n = fread(buf, 1, 1u << 20, f)) > 0) rc = st_stream_push(*s, buf, n);
  int read_error = ferror(f);
  fclose(f);
  free(buf);
  if (rc == ST_ERR_NOMEM || read_error) { /* else finish says what stopped the push */
    snprintf(why, cap, "%s", read_error ? "read error" : "out of memory");
    return NULL;
  }
  memset(err, 0, sizeof *err);
  st_trace *t = st_stream_finish(*s, err);
  if (!t) st_load_error_line(err, NULL, why, cap);
  return t;
}

/* Reads one file: fills its entry (ok or error). 0, or -1 out of memory. */
static int read_one(const char *root, mf_entry *m) {
  char *path = join(root, m->rel), *stx = path ? malloc(strlen(path) + 5) : NULL;
  if (!path || !stx) return free(path), -1;
  struct stat st;
  if (stat(path, &st) == 0) m->bytes = (uint64_t)st.st_size;
  snprintf(stx, strlen(path) + 5, "%s.stx", path);
  m->has_index = stat(stx, &st) == 0 && S_ISREG(st.st_mode);
  char why[512] = "";
  st_stream *s = NULL;
  st_trace *t = NULL;
  st_error err;
  memset(&err, 0, sizeof err);
  cli_heap heap = {0, 0, NULL}; /* the index's stream and summary count here until freed */
  if (!utf8_ok(m->rel)) {
    snprintf(why, sizeof why, "the path is not UTF-8 (a manifest cannot name it)");
  } else {
    if (m->has_index) { /* the index's stats and summary: no pass over the file */
      double ms;
      s = cli_stream_open(path, stx, &heap, &t, &ms);
      m->has_index = s != NULL; /* refused (its line on stderr): the pass instead */
    }
    if (!s) t = pass(path, &s, &err, why, sizeof why);
  }
  free(path);
  free(stx);
  if (!t) {
    st_stream_destroy(s);
    return (m->error = dup_str(why)) ? 0 : -1;
  }
  const st_stats *stats = st_stream_stats(s);
  snprintf(m->format, sizeof m->format, "%s", stats->format ? stats->format : "");
  m->events = stats->events;
  const char *meta = st_stream_metadata_json(s);
  m->meta = dup_str(meta ? meta : "{}");
  st_profile_file pf = {t, m->format, m->meta, m->rel};
  st_profile_clock_get(&pf, &m->clock);
  if (err.code != ST_OK) {
    st_load_error_line(&err, NULL, why, sizeof why);
    m->warning = dup_str(why);
  }
  m->ok = 1;
  st_trace_destroy(t);
  st_stream_destroy(s);
  return m->meta && (err.code == ST_OK || m->warning) ? 0 : -1;
}

/* The manifest's folder's prefix of DIR: "" when they are the same folder,
 * "a/b" when DIR is a/b below it; NULL (after one line) otherwise. */
static char *dir_prefix(const char *dir, const char *out_file) {
  char rd[PATH_MAX], rm[PATH_MAX];
  char *o = dup_str(out_file);
  if (!o) return NULL;
  char *slash = strrchr(o, '/');
  const char *mdir = slash ? (slash == o ? "/" : (*slash = 0, o)) : ".";
  int ok = realpath(dir, rd) && realpath(mdir, rm);
  free(o);
  if (!ok) {
    fprintf(stderr, "strata: manifest: cannot resolve %s or the folder of %s: %s\n", dir, out_file,
            strerror(errno));
    return NULL;
  }
  size_t n = strlen(rm);
  if (strcmp(rd, rm) == 0) return dup_str("");
  if (strcmp(rm, "/") == 0) return dup_str(rd + 1);
  if (strncmp(rd, rm, n) == 0 && rd[n] == '/') return dup_str(rd + n + 1);
  fprintf(stderr,
          "strata: manifest: %s must be in %s or a folder above it (the page reads only "
          "paths below the manifest)\n",
          out_file, dir);
  return NULL;
}

static void put_str(st_jout *j, const char *s) { st_jout_str(j, s, strlen(s)); }

/* "prefix/rel" as a JSON string */
static void put_path(st_jout *j, const char *prefix, const char *rel, const char *suffix) {
  st_jout ps = {.grow = 1};
  if (*prefix) {
    st_jout_lit(&ps, prefix);
    st_jout_lit(&ps, "/");
  }
  st_jout_lit(&ps, rel);
  st_jout_lit(&ps, suffix);
  st_jout_end(&ps);
  if (ps.buf) put_str(j, ps.buf);
  st_free(NULL, ps.buf);
}

static void put_entry(st_jout *j, const mf_entry *m, const char *prefix, const char *group,
                      st_group_source src, int64_t offset_ns) {
  st_jout_lit(j, "{\"path\":");
  put_path(j, prefix, m->rel, "");
  st_jout_lit(j, ",\"bytes\":");
  st_jout_u64(j, m->bytes);
  if (!m->ok) {
    st_jout_lit(j, ",\"error\":");
    put_str(j, m->error);
    st_jout_lit(j, "}");
    return;
  }
  st_jout_lit(j, ",\"format\":");
  put_str(j, m->format);
  st_jout_lit(j, ",\"events\":");
  st_jout_u64(j, m->events);
  st_jout_lit(j, ",\"group\":");
  put_str(j, group);
  st_jout_lit(j, ",\"group_source\":\"");
  st_jout_lit(j, st_group_source_name(src));
  st_jout_lit(j, "\",\"rank\":");
  st_profile_file pf = {NULL, m->format, m->meta, m->rel};
  int64_t rank;
  if (st_profile_rank(&pf, &rank))
    st_jout_i64(j, rank);
  else
    st_jout_lit(j, "null");
  st_jout_lit(j, ",\"host\":");
  char host[ST_TRACESET_GROUP_CAP];
  if (st_profile_host(&pf, host, sizeof host))
    put_str(j, host);
  else
    st_jout_lit(j, "null");
  st_jout_lit(j, ",\"clock\":{\"kind\":\"");
  st_jout_lit(j, st_clock_kind_name(m->clock.kind));
  st_jout_lit(j, "\",\"start_ns\":");
  int none = m->clock.kind == ST_CLOCK_NONE;
  if (none)
    st_jout_lit(j, "null");
  else
    st_jout_i64(j, m->clock.start_ns);
  st_jout_lit(j, ",\"base_time_ns\":");
  if (none || !m->clock.base_time_ns)
    st_jout_lit(j, "null");
  else
    st_jout_i64(j, m->clock.base_time_ns);
  st_jout_lit(j, "},\"offset_us\":");
  st_jout_us(j, offset_ns);
  st_jout_lit(j, ",\"index\":");
  if (m->has_index)
    put_path(j, prefix, m->rel, ".stx");
  else
    st_jout_lit(j, "null");
  if (m->warning) {
    st_jout_lit(j, ",\"warning\":");
    put_str(j, m->warning);
  }
  st_jout_lit(j, "}");
}

/* Names and places the files read (as the page does), then writes the
 * manifest into j. 0, or -1 out of memory. */
static int build_json(const mf_list *l, const char *prefix, st_jout *j, char **groups_out) {
  size_t n = l->n, k = 0, cap = ST_TRACESET_GROUP_CAP;
  st_profile_file *pf = calloc(n ? n : 1, sizeof *pf);
  st_profile_clock *clocks = calloc(n ? n : 1, sizeof *clocks);
  int64_t *offs = calloc(n ? n : 1, sizeof *offs);
  char *names = calloc(n ? n : 1, cap);
  st_group_source *src = calloc(n ? n : 1, sizeof *src);
  int rc = -1;
  if (!pf || !clocks || !offs || !names || !src) goto out;
  for (size_t i = 0; i < n; i++)
    if (l->v[i].ok) {
      pf[k] = (st_profile_file){NULL, l->v[i].format, l->v[i].meta, l->v[i].rel};
      clocks[k++] = l->v[i].clock;
    }
  if (st_profile_group_names(NULL, pf, k, names, cap) != ST_OK) goto out;
  for (size_t i = 0; i < k; i++) st_profile_group_name(&pf[i], NULL, 0, &src[i]);
  st_profile_initial_offsets(clocks, k, offs);
  size_t read = 0;
  st_jout_lit(j, "{\"strata_manifest\":1,\"files\":[");
  for (size_t i = 0; i < n; i++) {
    if (i) st_jout_lit(j, ",\n");
    const mf_entry *m = &l->v[i];
    if (m->ok) {
      put_entry(j, m, prefix, names + read * cap, src[read], offs[read]);
      read++;
    } else {
      put_entry(j, m, prefix, "", ST_GROUP_NONE, 0);
    }
  }
  st_jout_lit(j, "],\"read\":");
  st_jout_u64(j, read);
  st_jout_lit(j, ",\"errors\":");
  st_jout_u64(j, n - read);
  st_jout_lit(j, "}\n");
  st_jout_end(j);
  rc = j->nomem ? -1 : 0;
  *groups_out = names;
  names = NULL;
out:
  free(pf);
  free(clocks);
  free(offs);
  free(names);
  free(src);
  return rc;
}

static int write_file(const char *file, const char *text, size_t n) {
  size_t tn = strlen(file) + 8;
  char *tmp = malloc(tn);
  if (!tmp) return -1;
  snprintf(tmp, tn, "%s.tmp", file);
  FILE *f = fopen(tmp, "wb");
  int ok = f && fwrite(text, 1, n, f) == n;
  if (f && fclose(f) != 0) ok = 0;
  if (ok && rename(tmp, file) != 0) ok = 0;
  if (!ok) {
    fprintf(stderr, "strata: manifest: cannot write %s: %s\n", file, strerror(errno));
    remove(tmp);
  }
  free(tmp);
  return ok ? 0 : -1;
}

/* The errors on stderr; with_files: a line per file read; summary: the count line. */
static void print_table(const mf_list *l, const char *groups, int with_files, int summary) {
  size_t read = 0, cap = ST_TRACESET_GROUP_CAP;
  for (size_t i = 0; i < l->n; i++) {
    const mf_entry *m = &l->v[i];
    char clean[512];
    cli_clean(m->rel, strlen(m->rel), clean, sizeof clean);
    if (!m->ok) {
      fprintf(stderr, "strata: %s: %s (listed with its error)\n", clean, m->error);
      continue;
    }
    if (with_files)
      printf("%-24s %-12s %12llu bytes %10llu events  %-7s %s%s\n", groups + read * cap, m->format,
             (unsigned long long)m->bytes, (unsigned long long)m->events,
             m->has_index ? "indexed" : "", clean, m->warning ? " (damaged part-way)" : "");
    read++;
  }
  if (summary) printf("%zu files: %zu read, %zu not read\n", l->n, read, l->n - read);
}

int strata_cmd_manifest(int argc, char **argv) {
  const char *dir = NULL, *out_file = NULL;
  int json = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return usage(stdout, 0);
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!strcmp(argv[i], "-o") && i + 1 < argc)
      out_file = argv[++i];
    else if (argv[i][0] != '-' && !dir)
      dir = argv[i];
    else
      return usage(stderr, 2);
  }
  struct stat st;
  if (!dir) return usage(stderr, 2);
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "strata: manifest: %s: not a folder\n", dir);
    return 1;
  }
  char *prefix = out_file ? dir_prefix(dir, out_file) : dup_str("");
  if (!prefix) return 1;
  char skip_abs[PATH_MAX], *skip = NULL;
  if (out_file && realpath(out_file, skip_abs)) skip = skip_abs;
  mf_list l = {0};
  int rc = walk(dir, "", 0, skip, &l) ? -1 : 0;
  if (l.n) qsort(l.v, l.n, sizeof *l.v, by_path);
  for (size_t i = 0; rc == 0 && i < l.n; i++) rc = read_one(dir, &l.v[i]);
  st_jout j = {.grow = 1};
  char *groups = NULL;
  if (rc == 0) rc = build_json(&l, prefix, &j, &groups);
  if (rc != 0) {
    fprintf(stderr, "strata: manifest: out of memory\n");
  } else {
    if (out_file && write_file(out_file, j.buf, j.len)) rc = 1;
    if (json) fwrite(j.buf, 1, j.len, stdout);
    print_table(&l, groups, !out_file && !json, !json);
    if (out_file && rc == 0 && !json) printf("wrote %s\n", out_file);
  }
  st_free(NULL, j.buf);
  for (size_t i = 0; i < l.n; i++) {
    free(l.v[i].rel);
    free(l.v[i].error);
    free(l.v[i].warning);
    free(l.v[i].meta);
  }
  free(l.v);
  free(groups);
  free(prefix);
  return rc ? 1 : 0;
}
