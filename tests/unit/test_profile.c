/* test_profile.c: many traces as one profile (core/set/profile.h): group
 * names, clocks and initial offsets, the default compare alignment,
 * aligning on events and finding a step. Exact numbers on the fixtures
 * tests/fixtures/profile/rank{0,1}.pt.trace.json (Kineto-like: rank,
 * baseTimeNanoseconds 1.7e18; rank 0 starts at 500 us, rank 1 at 750 us;
 * ProfilerStep#5 at 600 / 900 us, rank 1 also has #4 at 760 us), on
 * traces written here, and on an XSpace encoded in memory. */
#include "check.h"
#include "pb_enc.h"
#include "profile.h"
#include "test_util.h"

#define US 1000ll
#define BASE 1700000000000000000ll

typedef struct loaded {
  st_trace *t;
  st_stats stats;
  char meta[4096];
  char path[512];
  st_profile_file f;
} loaded;

static void load_mem(loaded *l, const void *data, size_t n, const char *name) {
  st_error err;
  l->t = tu_load(data, n, n ? n : 1, name, &err, &l->stats, l->meta, sizeof l->meta);
  l->f.trace = l->t;
  l->f.format = l->stats.format;
  l->f.metadata_json = l->meta;
  l->f.file_name = name;
}

static void load_fixture(loaded *l, const char *name) {
  snprintf(l->path, sizeof l->path, "%s/tests/fixtures/profile/%s", STRATA_SOURCE_DIR, name);
  size_t n;
  unsigned char *data = tu_read_file(l->path, &n);
  CHECK(data != NULL);
  load_mem(l, data, data ? n : 0, l->path);
  free(data);
  CHECK(l->t != NULL);
}

static void load_text(loaded *l, const char *text, const char *name) {
  load_mem(l, text, strlen(text), name);
  CHECK(l->t != NULL);
}

static void unload(loaded *l) { st_trace_destroy(l->t); }

/* An XSpace: hostnames (field 4) and one plane with one line whose events
 * are at absolute ns ts_ns + offsets. */
static enc xspace(const char *const *hosts, int nhosts, int64_t ts_ns) {
  enc sp = {0}, plane = {0}, line = {0}, ev = {0}, entry = {0}, md = {0};
  enc_str(&plane, 2, "/host:CPU");
  enc_u(&ev, 1, 1);
  enc_i(&ev, 2, 0);
  enc_i(&ev, 3, 5000000); /* 5 us in ps */
  enc_msg(&line, 4, &ev);
  enc_i(&line, 1, 1);
  enc_str(&line, 2, "main");
  enc_i(&line, 3, ts_ns);
  enc_msg(&plane, 3, &line);
  enc_u(&md, 1, 1);
  enc_str(&md, 2, "work");
  enc_u(&entry, 1, 1);
  enc_msg(&entry, 2, &md);
  enc_msg(&plane, 4, &entry);
  enc_msg(&sp, 1, &plane);
  for (int i = 0; i < nhosts; i++) enc_str(&sp, 4, hosts[i]);
  enc_free(&plane);
  enc_free(&line);
  enc_free(&ev);
  enc_free(&entry);
  enc_free(&md);
  return sp;
}

static void test_group_names(void) {
  loaded r0, r1, x;
  load_fixture(&r0, "rank0.pt.trace.json");
  load_fixture(&r1, "rank1.pt.trace.json");
  char name[64];
  st_group_source src;
  CHECK_EQ_INT(st_profile_group_name(&r0.f, name, sizeof name, &src), 6);
  CHECK_EQ_STR(name, "rank 0");
  CHECK_EQ_INT(src, ST_GROUP_RANK);
  st_profile_group_name(&r1.f, name, sizeof name, &src);
  CHECK_EQ_STR(name, "rank 1");

  /* XSpace: the hostname, several joined; escapes decoded */
  const char *const hosts[] = {"worker-3", "tpu\"host"};
  enc sp = xspace(hosts, 1, BASE);
  load_mem(&x, sp.p, sp.n, "plugins/profile/run/worker-3.xplane.pb");
  CHECK(x.t != NULL);
  st_profile_group_name(&x.f, name, sizeof name, &src);
  CHECK_EQ_STR(name, "worker-3");
  CHECK_EQ_INT(src, ST_GROUP_HOSTNAME);
  unload(&x);
  enc_free(&sp);
  sp = xspace(hosts, 2, BASE);
  load_mem(&x, sp.p, sp.n, "two.xplane.pb");
  st_profile_group_name(&x.f, name, sizeof name, &src);
  CHECK_EQ_STR(name, "worker-3, tpu\"host");
  unload(&x);
  enc_free(&sp);

  /* the file name without its trace suffixes, else "trace" */
  st_profile_file f = {NULL, "chrome-json", "{}", "/runs/a/rank-3.PT.trace.json.gz"};
  st_profile_group_name(&f, name, sizeof name, &src);
  CHECK_EQ_STR(name, "rank-3");
  CHECK_EQ_INT(src, ST_GROUP_FILE);
  f.file_name = "C:\\traces\\host.xplane.pb";
  st_profile_group_name(&f, name, sizeof name, NULL);
  CHECK_EQ_STR(name, "host");
  f.file_name = ".json"; /* nothing would be left: kept */
  st_profile_group_name(&f, name, sizeof name, NULL);
  CHECK_EQ_STR(name, ".json");
  f.file_name = "dir/";
  st_profile_group_name(&f, name, sizeof name, &src);
  CHECK_EQ_STR(name, "trace");
  CHECK_EQ_INT(src, ST_GROUP_NONE);
  f.file_name = NULL;
  f.metadata_json = NULL;
  st_profile_group_name(&f, name, sizeof name, &src);
  CHECK_EQ_STR(name, "trace");
  /* rank as a string, escaped key; metadata that is not JSON */
  f.metadata_json = "{\"x\": [1, {\"rank\": 9}], \"distributed\\u0049nfo\": {\"rank\": \"12\"}}";
  st_profile_group_name(&f, name, sizeof name, &src);
  CHECK_EQ_STR(name, "rank 12");
  f.metadata_json = "{\"distributedInfo\": {\"rank\": }";
  f.file_name = "a\x01"
                "b\xff.json";
  st_profile_group_name(&f, name, sizeof name, &src);
  CHECK_EQ_STR(name, "a b\xEF\xBF\xBD"); /* control -> space, bad UTF-8 -> U+FFFD */
  CHECK_EQ_INT(src, ST_GROUP_FILE);
  /* a small buffer: cut on a character boundary, full length returned */
  f.file_name = "h\xC3\xA9llo.json";
  CHECK_EQ_INT(st_profile_group_name(&f, name, 3, NULL), 6);
  CHECK_EQ_STR(name, "h");
  CHECK_EQ_INT(st_profile_group_name(&f, NULL, 0, NULL), 6);

  /* a long escaped hostname: decoded in pieces, no escape split */
  {
    char meta[1024], want[512], big[600];
    memset(want, 'a', 299);
    memcpy(want + 299, "\xC3\xA9\xF0\x9F\x98\x80\"b", 9);
    snprintf(meta, sizeof meta, "{\"hostnames\": [\"%.299s\\u00e9\\ud83d\\ude00\\\"b\"]}", want);
    st_profile_file h = {NULL, "xplane", meta, "x.xplane.pb"};
    CHECK_EQ_INT(st_profile_group_name(&h, big, sizeof big, &src), 307);
    CHECK_EQ_STR(big, want);
    CHECK_EQ_INT(src, ST_GROUP_HOSTNAME);
  }

  /* a set of files: repeats get the file name, then #k */
  st_profile_file set[4] = {r0.f, r1.f, r0.f, r0.f};
  set[2].file_name = "runB/rank0.pt.trace.json";
  char names[4 * 64];
  CHECK_EQ_INT(st_profile_group_names(NULL, set, 4, names, 64), ST_OK);
  CHECK_EQ_STR(names + 0 * 64, "rank 0 (rank0.pt.trace.json)");
  CHECK_EQ_STR(names + 1 * 64, "rank 1");
  CHECK_EQ_STR(names + 2 * 64, "rank 0 (rank0.pt.trace.json) #2");
  CHECK_EQ_STR(names + 3 * 64, "rank 0 (rank0.pt.trace.json) #3");
  CHECK_EQ_INT(st_profile_group_names(NULL, set, 4, names, 8), ST_ERR_ARG);
  unload(&r0);
  unload(&r1);
}

/* A manifest's host and rank: the same metadata the group names read. */
static void test_host_rank_and_trace_names(void) {
  char host[64];
  int64_t rank = -1;
  st_profile_file f = {NULL, "xplane", "{\"hostnames\": [\"w-1\", \"w\\u00e9\"]}", "a.pb"};
  CHECK_EQ_INT(st_profile_host(&f, host, sizeof host), 8);
  CHECK_EQ_STR(host, "w-1, w\xC3\xA9");
  CHECK_EQ_INT(st_profile_rank(&f, &rank), 0);
  CHECK_EQ_INT(rank, -1);
  f.metadata_json = "{\"distributedInfo\": {\"rank\": 255, \"world_size\": 256}}";
  CHECK_EQ_INT(st_profile_rank(&f, &rank), 1);
  CHECK_EQ_INT(rank, 255);
  CHECK_EQ_INT(st_profile_host(&f, host, sizeof host), 0);
  CHECK_EQ_STR(host, "");
  f.metadata_json = NULL;
  CHECK_EQ_INT(st_profile_rank(&f, &rank), 0);
  CHECK_EQ_INT(st_profile_host(&f, host, sizeof host), 0);
  CHECK_EQ_INT(st_profile_rank(NULL, NULL), 0);
  /* the names a folder walk picks up */
  CHECK_EQ_INT(st_profile_trace_name("rank-3.pt.trace.json.gz"), 1);
  CHECK_EQ_INT(st_profile_trace_name("h.XPLANE.PB"), 1);
  CHECK_EQ_INT(st_profile_trace_name("sys.pftrace"), 1);
  CHECK_EQ_INT(st_profile_trace_name("a.perfetto-trace"), 1);
  CHECK_EQ_INT(st_profile_trace_name("a.json.stx"), 0);
  CHECK_EQ_INT(st_profile_trace_name("model.pt"), 0);
  CHECK_EQ_INT(st_profile_trace_name("notes.txt"), 0);
  CHECK_EQ_INT(st_profile_trace_name(".json"), 0);
  CHECK_EQ_INT(st_profile_trace_name(NULL), 0);
}

static void test_clocks_and_offsets(void) {
  loaded r0, r1, zero, mach, x;
  load_fixture(&r0, "rank0.pt.trace.json");
  load_fixture(&r1, "rank1.pt.trace.json");
  load_text(&zero, "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5}]",
            "z.json");
  /* 5000 s of a machine clock, in us */
  load_text(&mach,
            "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":5000000000,\"dur\":5}]",
            "m.json");
  const char *const hosts[] = {"h"};
  enc sp = xspace(hosts, 1, BASE + 100 * US);
  load_mem(&x, sp.p, sp.n, "h.xplane.pb");
  enc_free(&sp);

  st_profile_clock c[5];
  st_profile_clock_get(&r0.f, &c[0]);
  st_profile_clock_get(&r1.f, &c[1]);
  st_profile_clock_get(&zero.f, &c[2]);
  st_profile_clock_get(&mach.f, &c[3]);
  st_profile_clock_get(&x.f, &c[4]);
  CHECK_EQ_INT(c[0].kind, ST_CLOCK_EPOCH);
  CHECK_EQ_INT(c[0].start_ns, BASE + 500 * US);
  CHECK_EQ_INT(c[0].base_time_ns, BASE);
  CHECK_EQ_INT(c[1].start_ns, BASE + 750 * US);
  CHECK_EQ_INT(c[2].kind, ST_CLOCK_NONE);
  CHECK_EQ_INT(c[2].start_ns, 0);
  CHECK_EQ_INT(c[3].kind, ST_CLOCK_MACHINE);
  CHECK_EQ_INT(c[3].start_ns, 5000000000ll * US);
  CHECK_EQ_INT(c[4].kind, ST_CLOCK_EPOCH);
  CHECK_EQ_INT(c[4].start_ns, BASE + 100 * US);
  CHECK_EQ_INT(c[4].base_time_ns, 0);

  int64_t off[5];
  CHECK_EQ_INT(st_profile_initial_offsets(c, 5, off), ST_OK);
  CHECK_EQ_INT(off[0], 400 * US); /* the XSpace starts first, at 100 us */
  CHECK_EQ_INT(off[1], 650 * US);
  CHECK_EQ_INT(off[2], 0); /* no absolute time: starts with the first */
  CHECK_EQ_INT(off[3], 0); /* the only machine clock */
  CHECK_EQ_INT(off[4], 0);
  /* the two ranks alone, in either order */
  CHECK_EQ_INT(st_profile_initial_offsets(c, 2, off), ST_OK);
  CHECK_EQ_INT(off[0], 0);
  CHECK_EQ_INT(off[1], 250 * US);
  st_profile_clock rev[2] = {c[1], c[0]};
  st_profile_initial_offsets(rev, 2, off);
  CHECK_EQ_INT(off[0], 250 * US);
  CHECK_EQ_INT(off[1], 0);
  CHECK_EQ_INT(st_profile_initial_offsets(NULL, 2, off), ST_ERR_ARG);
  CHECK_EQ_INT(st_profile_initial_offsets(NULL, 0, NULL), ST_OK);

  /* a bad baseTimeNanoseconds is ignored; no trace: no clock */
  st_profile_file f = r0.f;
  f.metadata_json = "{\"baseTimeNanoseconds\": \"soon\"}";
  st_profile_clock_get(&f, &c[0]);
  CHECK_EQ_INT(c[0].kind, ST_CLOCK_NONE); /* 500 us as written: from zero */
  f.trace = NULL;
  st_profile_clock_get(&f, &c[0]);
  CHECK_EQ_INT(c[0].kind, ST_CLOCK_NONE);
  /* extreme values saturate instead of overflowing */
  st_profile_clock ext[2] = {{ST_CLOCK_MACHINE, INT64_MIN, 0}, {ST_CLOCK_MACHINE, INT64_MAX, 0}};
  st_profile_initial_offsets(ext, 2, off);
  CHECK_EQ_INT(off[0], 0);
  CHECK_EQ_INT(off[1], INT64_MAX);
  unload(&r0);
  unload(&r1);
  unload(&zero);
  unload(&mach);
  unload(&x);
}

static const char *name_of(const st_trace *t, st_event_ref r) {
  st_event_info info;
  if (!st_event_get(t, r, &info)) return "(none)";
  return st_strtab_get(st_trace_strings(t), info.name, NULL);
}

static void test_compare_profiler_step(void) {
  loaded a, b;
  load_fixture(&a, "rank0.pt.trace.json");
  load_fixture(&b, "rank1.pt.trace.json");
  st_profile_alignment al;
  CHECK_EQ_INT(st_profile_compare_offset(NULL, a.t, b.t, &al), ST_OK);
  CHECK_EQ_INT(al.kind, ST_ALIGN_PROFILER_STEP);
  CHECK_EQ_INT(al.step, 5); /* the first step both have, not rank 1's first (#4) */
  CHECK_EQ_INT(al.offset_ns, 100 * US - 150 * US);
  CHECK_EQ_STR(name_of(a.t, al.ref_a), "ProfilerStep#5");
  CHECK_EQ_STR(name_of(b.t, al.ref_b), "ProfilerStep#5");
  /* the other way round */
  st_profile_compare_offset(NULL, b.t, a.t, &al);
  CHECK_EQ_INT(al.offset_ns, 50 * US);
  /* a trace with itself: 0 */
  st_profile_compare_offset(NULL, a.t, a.t, &al);
  CHECK_EQ_INT(al.offset_ns, 0);
  CHECK_EQ_INT(al.step, 5);

  /* no step in common: each one's first ProfilerStep */
  loaded c;
  load_text(&c,
            "[{\"ph\":\"X\",\"name\":\"ProfilerStep#9\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":5},"
            "{\"ph\":\"X\",\"name\":\"ProfilerStep#8\",\"pid\":1,\"tid\":2,\"ts\":30,\"dur\":5},"
            "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5}]",
            "c.json");
  st_profile_compare_offset(NULL, b.t, c.t, &al);
  CHECK_EQ_INT(al.kind, ST_ALIGN_PROFILER_STEP);
  CHECK_EQ_INT(al.step, -1);
  CHECK_EQ_STR(name_of(b.t, al.ref_a), "ProfilerStep#4");
  CHECK_EQ_STR(name_of(c.t, al.ref_b), "ProfilerStep#8");
  CHECK_EQ_INT(al.offset_ns, 10 * US - 20 * US);

  /* align on two chosen events */
  int64_t off;
  st_event_ref ea, eb;
  CHECK(st_profile_find_step(a.t, 5, &ea, NULL, NULL));
  CHECK(st_profile_find_step(b.t, 4, &eb, NULL, NULL));
  CHECK_EQ_INT(st_profile_align_events(a.t, ea, b.t, eb, &off), ST_OK);
  CHECK_EQ_INT(off, 100 * US - 10 * US);
  CHECK_EQ_INT(st_profile_align_events(a.t, ST_REF_NONE, b.t, eb, &off), ST_ERR_ARG);
  unload(&a);
  unload(&b);
  unload(&c);
}

/* XProf-style JSON: "Steps" and "XLA Modules" lines named by thread_name */
static const char steps_a[] =
    "[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"Steps\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"XLA "
    "Modules\"}},"
    "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":3,\"ts\":0,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"train_step 3\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":50},"
    "{\"ph\":\"X\",\"name\":\"train_step 4\",\"pid\":1,\"tid\":1,\"ts\":150,\"dur\":50},"
    "{\"ph\":\"X\",\"name\":\"jit_f\",\"pid\":1,\"tid\":2,\"ts\":120,\"dur\":20}]";
static const char steps_b[] =
    "[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"Steps\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"XLA "
    "Modules\"}},"
    "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":3,\"ts\":0,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"2\",\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":60},"
    "{\"ph\":\"X\",\"name\":\"4\",\"pid\":1,\"tid\":1,\"ts\":360,\"dur\":60},"
    "{\"ph\":\"X\",\"name\":\"jit_f\",\"pid\":1,\"tid\":2,\"ts\":330,\"dur\":20}]";

static void test_compare_steps_and_modules(void) {
  loaded a, b, m, plain;
  load_text(&a, steps_a, "a.json");
  load_text(&b, steps_b, "b.json");
  st_profile_alignment al;
  st_profile_compare_offset(NULL, a.t, b.t, &al);
  CHECK_EQ_INT(al.kind, ST_ALIGN_STEPS_LINE);
  CHECK_EQ_INT(al.step, 4); /* A: 3, 4; B: 2, 4 */
  CHECK_EQ_INT(al.offset_ns, 150 * US - 360 * US);
  CHECK_EQ_STR(name_of(a.t, al.ref_a), "train_step 4");
  CHECK_EQ_STR(name_of(b.t, al.ref_b), "4");

  /* only XLA Modules in one: the first module */
  load_text(&m,
            "[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"XLA "
            "Modules\"}},"
            "{\"ph\":\"X\",\"name\":\"jit_g\",\"pid\":1,\"tid\":2,\"ts\":70,\"dur\":20},"
            "{\"ph\":\"X\",\"name\":\"jit_f\",\"pid\":1,\"tid\":2,\"ts\":90,\"dur\":20}]",
            "m.json");
  st_profile_compare_offset(NULL, a.t, m.t, &al);
  CHECK_EQ_INT(al.kind, ST_ALIGN_XLA_MODULE);
  CHECK_EQ_INT(al.offset_ns, 120 * US - 0);
  CHECK_EQ_STR(name_of(m.t, al.ref_b), "jit_g");
  CHECK_EQ_INT(al.step, -1);

  /* nothing in common: the starts */
  load_text(&plain, "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":5}]",
            "p.json");
  st_profile_compare_offset(NULL, a.t, plain.t, &al);
  CHECK_EQ_INT(al.kind, ST_ALIGN_START);
  CHECK_EQ_INT(al.offset_ns, 0);
  CHECK(al.ref_a.row == UINT32_MAX && al.ref_b.row == UINT32_MAX);
  CHECK_EQ_INT(st_profile_compare_offset(NULL, NULL, plain.t, &al), ST_ERR_ARG);

  /* find_step on a Steps line: "train_step 4" and "4" */
  st_event_ref r;
  int64_t t0, t1;
  CHECK(st_profile_find_step(a.t, 4, &r, &t0, &t1));
  CHECK_EQ_INT(t0, 150 * US);
  CHECK_EQ_INT(t1, 200 * US);
  CHECK(st_profile_find_step(b.t, 2, &r, &t0, &t1));
  CHECK_EQ_INT(t0, 300 * US);
  CHECK(!st_profile_find_step(a.t, 2, &r, &t0, &t1));
  CHECK(!st_profile_find_step(plain.t, 0, &r, &t0, &t1));
  CHECK(!st_profile_find_step(a.t, -1, &r, &t0, &t1));
  unload(&a);
  unload(&b);
  unload(&m);
  unload(&plain);
}

static void test_find_profiler_step(void) {
  loaded r1;
  load_fixture(&r1, "rank1.pt.trace.json");
  st_event_ref r;
  int64_t t0, t1;
  CHECK(st_profile_find_step(r1.t, 4, &r, &t0, &t1));
  CHECK_EQ_INT(t0, 10 * US);
  CHECK_EQ_INT(t1, 110 * US);
  CHECK_EQ_STR(name_of(r1.t, r), "ProfilerStep#4");
  CHECK(st_profile_find_step(r1.t, 5, &r, &t0, &t1));
  CHECK_EQ_INT(t0, 150 * US);
  CHECK(!st_profile_find_step(r1.t, 6, &r, &t0, &t1));
  unload(&r1);
}

static void test_out_of_memory(void) {
  loaded a, b;
  load_fixture(&a, "rank0.pt.trace.json");
  load_fixture(&b, "rank1.pt.trace.json");
  int ok = 0;
  for (int k = 0; k < 32 && !ok; k++) {
    tu_fail_alloc f = {k};
    st_alloc al = {tu_failing, &f};
    st_profile_alignment out;
    st_code c = st_profile_compare_offset(&al, a.t, b.t, &out);
    if (c == ST_OK) {
      ok = 1;
      CHECK_EQ_INT(out.step, 5);
    } else {
      CHECK_EQ_INT(c, ST_ERR_NOMEM);
    }
  }
  CHECK(ok);
  tu_fail_alloc f = {0};
  st_alloc al = {tu_failing, &f};
  char names[2 * 64];
  st_profile_file set[2] = {a.f, b.f};
  CHECK_EQ_INT(st_profile_group_names(&al, set, 2, names, 64), ST_ERR_NOMEM);
  unload(&a);
  unload(&b);
}

int main(void) {
  RUN(test_group_names);
  RUN(test_host_rank_and_trace_names);
  RUN(test_clocks_and_offsets);
  RUN(test_compare_profiler_step);
  RUN(test_compare_steps_and_modules);
  RUN(test_find_profiler_step);
  RUN(test_out_of_memory);
  return check_report();
}
