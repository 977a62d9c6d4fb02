/* import_perfetto.c: Perfetto protobuf -> st_builder, the packet level
 * (see import_perfetto.h for the mapping rules and perfetto_internal.h for
 * the other parts).
 *
 * Contents
 *   1. clocks (ClockSnapshot, trace config)
 *   2. sequences
 *   3. what is not shown: packet kinds by name
 *   4. packets (and compressed_packets)
 *   5. public API
 */
#include "perfetto_internal.h"

#include "json_out.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

/* ==== 1. clocks ========================================================== */

uint64_t pf_clock_id(uint64_t seq, uint32_t id) {
  return id >= 64 && id < 128 ? st_pclock_seq_id(seq, id) : id;
}

static void set_trace_clock(st_perfetto_importer *im, uint64_t id, uint64_t at) {
  if (!id || id == im->trace_clock) return;
  if (im->clock_used) { /* timestamps already converted: keep them consistent */
    st_stats_warn(im->stats, "perfetto_trace_clock_changed_late", at);
    return;
  }
  im->trace_clock = id;
}

/* ClockSnapshot: 1 clocks {1 clock_id, 2 timestamp, 3 is_incremental,
 * 4 unit_multiplier_ns}, 2 primary_trace_clock. */
static st_code read_clock_snapshot(st_perfetto_importer *im, uint64_t seq, st_pb_reader *r,
                                   const st_pb_field *df, st_error *err) {
  enum { MAXC = 32 };
  st_pclock_entry c[MAXC];
  uint32_t n = 0;
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num == 2 && f.wire == ST_PB_VARINT) set_trace_clock(im, f.u, df->offset);
    if (f.num != 1 || f.wire != ST_PB_LEN) continue;
    if (n == MAXC) {
      st_stats_warn(im->stats, "perfetto_clock_snapshot_too_many_clocks", f.offset);
      continue;
    }
    if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
    memset(&c[n], 0, sizeof c[n]);
    uint32_t id = 0;
    while ((j = st_pb_next(&e, &g, err)) > 0) {
      if (g.wire != ST_PB_VARINT) continue;
      if (g.num == 1) id = (uint32_t)g.u;
      if (g.num == 2) c[n].value = st_pb_i64(g.u);
      if (g.num == 3) c[n].incremental = g.u != 0;
      if (g.num == 4) c[n].unit_ns = g.u;
    }
    if (j < 0) return ST_ERR_PROTO;
    if (id >= 64 && id < 128 && seq == 0) {
      st_stats_warn(im->stats, "perfetto_sequence_clock_without_sequence", f.offset);
      continue;
    }
    c[n++].id = pf_clock_id(seq, id);
  }
  if (k < 0) return ST_ERR_PROTO;
  uint64_t before = st_pclock_rejected(im->clocks);
  if (st_pclock_snapshot(im->clocks, c, n) != ST_OK) return pf_nomem(im, df->offset, err);
  if (st_pclock_rejected(im->clocks) != before)
    st_stats_warn(im->stats, "perfetto_clock_snapshot_not_monotonic", df->offset);
  return ST_OK;
}

/* TraceConfig: 20 builtin_data_sources {5 primary_trace_clock}. */
static st_code read_trace_config(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                                 st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num != 20 || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
    while ((j = st_pb_next(&e, &g, err)) > 0)
      if (g.num == 5 && g.wire == ST_PB_VARINT) set_trace_clock(im, g.u, df->offset);
    if (j < 0) return ST_ERR_PROTO;
  }
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}

/* ==== 2. sequences ======================================================= */

static pseq *seq_get(st_perfetto_importer *im, uint64_t id) {
  uint32_t i = st_u64map_get(&im->seq_map, id);
  if (i != ST_U64MAP_NONE) return &im->seqs[i];
  if (im->nseqs == im->cap_seqs) {
    void *p = im->seqs;
    if (!st_grow32(&im->alloc, &p, &im->cap_seqs, im->nseqs + 1, sizeof *im->seqs, 8)) return NULL;
    im->seqs = p;
  }
  pseq *s = &im->seqs[im->nseqs];
  memset(s, 0, sizeof *s);
  s->legacy_track = UINT32_MAX;
  if (!st_u64map_put(&im->seq_map, &im->alloc, id, im->nseqs)) return NULL;
  im->nseqs++;
  return s;
}

/* ==== 3. what is not shown ================================================ */

/* TracePacket fields by number (trace_packet.proto), for the "not shown" line. */
static const struct {
  uint16_t num;
  const char *name;
} k_packet_kinds[] = {{4, "inode_file_map"},
                      {5, "chrome_events"},
                      {33, "trace_config"},
                      {34, "ftrace_stats"},
                      {35, "trace_stats"},
                      {37, "profile_packet"},
                      {38, "battery"},
                      {39, "android_log"},
                      {40, "power_rails"},
                      {45, "system_info"},
                      {46, "trigger"},
                      {47, "packages_list"},
                      {48, "chrome_benchmark_metadata"},
                      {49, "perfetto_metatrace"},
                      {51, "chrome_metadata"},
                      {52, "gpu_counter_event"},
                      {53, "gpu_render_stage_event"},
                      {54, "streaming_profile_packet"},
                      {55, "profiled_frame_symbols"},
                      {56, "heap_graph"},
                      {57, "graphics_frame_event"},
                      {61, "module_symbols"},
                      {62, "vulkan_memory_event"},
                      {63, "gpu_log"},
                      {64, "deobfuscation_mapping"},
                      {65, "vulkan_api_event"},
                      {66, "perf_sample"},
                      {67, "cpu_info"},
                      {68, "smaps_packet"},
                      {69, "service_event"},
                      {70, "initial_display_state"},
                      {71, "gpu_mem_total_event"},
                      {72, "extension_descriptor"},
                      {73, "memory_tracker_snapshot"},
                      {74, "streaming_allocation"},
                      {75, "streaming_free"},
                      {76, "frame_timeline_event"},
                      {77, "android_energy_estimation_breakdown"},
                      {78, "ui_state"},
                      {80, "android_camera_frame_event"},
                      {81, "android_camera_session_stats"},
                      {82, "translation_table"},
                      {83, "android_game_intervention_list"},
                      {84, "statsd_atom"},
                      {86, "android_system_property"},
                      {88, "network_packet"},
                      {89, "trace_uuid"},
                      {90, "track_event_range_of_interest"},
                      {91, "entity_state_residency"},
                      {92, "network_packet_bundle"},
                      {96, "app_wakelock_bundle"},
                      /* parts of packets that are shown otherwise (PF_PART_*) */
                      {PF_PART_SYS_BUDDY_INFO, "sys_stats.buddy_info"},
                      {PF_PART_SYS_DISK_STAT, "sys_stats.disk_stat"},
                      {PF_PART_SYS_OTHER, "sys_stats (other fields)"},
                      {PF_PART_PROC_FDS, "process_stats.fds"},
                      {PF_PART_PROC_OTHER, "process_stats (other fields)"}};

static const char *packet_kind_name(uint32_t num) {
  for (size_t i = 0; i < sizeof k_packet_kinds / sizeof *k_packet_kinds; i++)
    if (k_packet_kinds[i].num == num) return k_packet_kinds[i].name;
  return NULL;
}

/* ==== 4. packets ========================================================= */

static st_code read_packet(st_perfetto_importer *im, const uint8_t *data, size_t len,
                           uint64_t origin, uint64_t src, st_error *err);

static voidpf z_alloc(voidpf opaque, uInt items, uInt size) {
  st_perfetto_importer *im = opaque;
  return st_calloc(&im->alloc, items, size);
}
static void z_free(voidpf opaque, voidpf p) {
  st_perfetto_importer *im = opaque;
  st_free(&im->alloc, p);
}

/* compressed_packets: a zlib/gzip-deflated run of Trace.packet records. */
static st_code read_compressed(st_perfetto_importer *im, const st_pb_field *f, st_error *err) {
  if (im->in_compressed)
    return st_error_set(err, ST_ERR_PROTO, f->offset,
                        "perfetto: compressed_packets nested inside compressed_packets");
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  zs.zalloc = z_alloc;
  zs.zfree = z_free;
  zs.opaque = im;
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return pf_nomem(im, f->offset, err);
  zs.next_in = (Bytef *)(uintptr_t)f->data;
  size_t left = f->len, out = 0;
  int r = Z_OK;
  while (r != Z_STREAM_END) {
    if (out == im->zcap) {
      if (im->zcap >= ST_PERFETTO_INFLATE_MAX) {
        inflateEnd(&zs);
        return st_error_set(err, ST_ERR_LIMIT, f->offset,
                            "perfetto: compressed_packets inflates past %zu bytes",
                            ST_PERFETTO_INFLATE_MAX);
      }
      void *v = im->zbuf;
      int ok =
          st_grow_upto(&im->alloc, &v, &im->zcap, out + 1, 1, 256 * 1024, ST_PERFETTO_INFLATE_MAX);
      im->zbuf = v;
      if (!ok) {
        inflateEnd(&zs);
        return pf_nomem(im, f->offset, err);
      }
    }
    uInt in_now = left > 1u << 30 ? 1u << 30 : (uInt)left;
    size_t room = im->zcap - out;
    zs.avail_in = in_now;
    zs.next_out = im->zbuf + out;
    zs.avail_out = room > 1u << 30 ? 1u << 30 : (uInt)room;
    uInt before_out = zs.avail_out;
    r = inflate(&zs, Z_NO_FLUSH);
    left -= in_now - zs.avail_in;
    out += before_out - zs.avail_out;
    if (r == Z_BUF_ERROR && left == 0) r = Z_DATA_ERROR;
    if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) {
      inflateEnd(&zs);
      return st_error_set(err, ST_ERR_GZIP, f->offset,
                          "perfetto: compressed_packets is not a valid zlib/gzip stream");
    }
  }
  inflateEnd(&zs);
  /* the inflated bytes are a Trace: field 1 = packet */
  st_pb_reader tr;
  st_pb_field g;
  int k;
  st_pb_reader_init(&tr, im->zbuf, out, 0);
  im->in_compressed = 1;
  st_code c = ST_OK;
  while (c == ST_OK && (k = st_pb_next(&tr, &g, err)) > 0)
    if (g.num == 1 && g.wire == ST_PB_LEN) c = read_packet(im, g.data, g.len, 0, f->offset, err);
  im->in_compressed = 0;
  if (c == ST_OK && k < 0) c = ST_ERR_PROTO;
  if (c != ST_OK && err && c != ST_ERR_NOMEM) {
    /* offsets inside inflated data mean nothing to a user: point at the blob */
    char msg[sizeof err->msg + 64];
    snprintf(msg, sizeof msg, "%s (at inflated byte %llu of compressed_packets)", err->msg,
             (unsigned long long)err->offset);
    msg[sizeof err->msg - 1] = 0;
    st_error_set(err, c, f->offset, "%s", msg);
  }
  return c;
}

/* TracePacket: see FORMATS.md §3.2. src = the packet record's offset. */
static st_code read_packet(st_perfetto_importer *im, const uint8_t *data, size_t len,
                           uint64_t origin, uint64_t src, st_error *err) {
  st_pb_reader pr, r;
  st_pb_field f;
  st_pb_field ev, desc, interned, defaults, clocks, tdesc, pdesc, ftrace, ptree, pstats, sstats,
      config, frame, android;
  int k;
  int has_ts = 0, has_clock = 0, cleared = 0, dropped = 0, first = 0;
  int has_ev = 0, has_desc = 0, has_int = 0, has_def = 0, has_clk = 0, has_td = 0, has_pd = 0;
  int has_ftrace = 0, has_ptree = 0, has_pstats = 0, has_sstats = 0, has_config = 0, has_frame = 0;
  int has_android = 0;
  uint64_t ts = 0, seq_id = 0, flags = 0;
  uint32_t clock = 0, other = 0;
  st_code c;
  im->stats->events++;
  st_pb_reader_init(&pr, data, len, origin);
  pr.depth = 1;
  r = pr;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    switch (f.num) {
    case 8: ts = f.u, has_ts = 1; break;
    case 58: clock = (uint32_t)f.u, has_clock = 1; break;
    case 10: seq_id = f.u; break;
    case 13: flags = f.u; break;
    case 41: cleared = f.u != 0; break;
    case 42: dropped = f.u != 0; break;
    case 87: first = f.u != 0; break;
    case 11: ev = f, has_ev = 1; break;
    case 60: desc = f, has_desc = 1; break;
    case 12: interned = f, has_int = 1; break;
    case 59: defaults = f, has_def = 1; break;
    case 6: clocks = f, has_clk = 1; break;
    case 44: tdesc = f, has_td = 1; break;
    case 43: pdesc = f, has_pd = 1; break;
    case 1: ftrace = f, has_ftrace = f.wire == ST_PB_LEN; break;
    case 2: ptree = f, has_ptree = f.wire == ST_PB_LEN; break;
    case 9: pstats = f, has_pstats = f.wire == ST_PB_LEN; break;
    case 7: sstats = f, has_sstats = f.wire == ST_PB_LEN; break;
    case 33: config = f, has_config = f.wire == ST_PB_LEN; break;
    case 76: frame = f, has_frame = f.wire == ST_PB_LEN; break;
    case 38: /* battery, power_rails, entity_state_residency, statsd_atom, */
    case 40: /* network_packet, network_packet_bundle, packages_list: perfetto_android.c */
    case 47:
    case 91:
    case 84:
    case 88:
    case 92:
      if (f.wire == ST_PB_LEN) android = f, has_android = 1;
      break;
    case 50:
      if (f.wire == ST_PB_LEN) {
        c = read_compressed(im, &f, err);
        if (c != ST_OK) return c;
      }
      break;
    case 3:
    case 79:
    case 36: break; /* trusted uid/pid, sync marker */
    default:
      if (f.wire == ST_PB_LEN && !other) other = f.num;
      break;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  pseq *s = seq_get(im, seq_id);
  if (!s) return pf_nomem(im, src, err);
  if (dropped && !first) {
    s->valid = 0;
    st_stats_warn(im->stats, "perfetto_packet_loss", src);
  }
  im->cur_seq = seq_id;
  im->pkt_src = src;
  if (cleared || (flags & 1)) {
    pf_seq_clear(s);
    if (st_argsrc_perfetto_clear(im->args, seq_id, src) != ST_OK) return pf_nomem(im, src, err);
  }
  if (has_config && (c = read_trace_config(im, &pr, &config, err)) != ST_OK) return c;
  if (has_int && (c = pf_read_interned(im, s, &pr, &interned, err)) != ST_OK) return c;
  if (has_def && (c = pf_read_defaults(im, s, &pr, &defaults, err)) != ST_OK) return c;
  if (has_clk && (c = read_clock_snapshot(im, seq_id, &pr, &clocks, err)) != ST_OK) return c;
  if (has_desc && (c = pf_read_track_descriptor(im, &pr, &desc, err)) != ST_OK) return c;
  if (has_pd) {
    int64_t pid = 0, tid = 0;
    const uint8_t *nm = NULL;
    size_t nl = 0;
    if ((c = pf_read_pt_desc(&pr, &pdesc, &pid, &tid, &nm, &nl, 0, err)) != ST_OK) return c;
    if (nl) pf_process_name(im, pid, pf_intern(im, nm, nl), NAME_DESCRIPTOR);
  }
  if (has_td) { /* legacy: the sequence's default track is this thread */
    int64_t pid = 0, tid = 0;
    const uint8_t *nm = NULL;
    size_t nl = 0;
    if ((c = pf_read_pt_desc(&pr, &tdesc, &pid, &tid, &nm, &nl, 1, err)) != ST_OK) return c;
    uint64_t key = 0x8000000000000000ull ^ ((uint64_t)(uint32_t)pid << 32) ^ (uint32_t)tid;
    uint32_t ti = pf_track_get(im, key, 1);
    if (ti == ST_U64MAP_NONE) return pf_nomem(im, src, err);
    ptrack *t = &im->tracks[ti];
    t->kind = TK_THREAD;
    t->pid = pid;
    t->tid = tid;
    pf_thread_tgid(im, tid, pid);
    if (nl) pf_thread_name(im, tid, pf_intern(im, nm, nl), NAME_DESCRIPTOR);
    s->legacy_track = ti;
  }
  if (has_ptree && (c = pf_read_process_tree(im, &pr, &ptree, err)) != ST_OK) return c;
  if (has_ftrace && (c = pf_read_ftrace_bundle(im, &pr, &ftrace, seq_id, err)) != ST_OK) return c;
  /* the packet's own timestamp, in the trace clock (TracePacket.timestamp_clock_id,
   * else the sequence's default; 0 means the trace clock itself) */
  int64_t tns = 0;
  int ts_ok = 1;
  if (has_ts) {
    uint32_t id = has_clock ? clock : s->has_def_clock ? s->def_clock : 0;
    int used = has_ev || has_pstats || has_sstats || has_frame || has_android;
    if (id >= 64 && id < 128 && seq_id == 0) {
      if (used) st_stats_warn(im->stats, "perfetto_sequence_clock_without_sequence", src);
      ts_ok = 0;
    } else if (used) {
      ts_ok =
          pf_to_trace(im, id ? pf_clock_id(seq_id, id) : im->trace_clock, st_pb_i64(ts), src, &tns);
    } else if (id) { /* nothing shown, but an incremental clock still advances */
      st_pclock_to_ns(im->clocks, pf_clock_id(seq_id, id), st_pb_i64(ts), &tns);
    }
  }
  if (has_pstats && ts_ok && (c = pf_read_process_stats(im, &pr, &pstats, tns, src, err)) != ST_OK)
    return c;
  if (has_sstats && ts_ok && (c = pf_read_sys_stats(im, &pr, &sstats, tns, src, err)) != ST_OK)
    return c;
  if (has_frame && ts_ok && (c = pf_read_frame_timeline(im, &pr, &frame, tns, src, err)) != ST_OK)
    return c;
  if (has_android && ts_ok &&
      (c = pf_read_android(im, android.num, &pr, &android, tns, src, err)) != ST_OK)
    return c;
  if (has_ev) {
    if ((flags & 2) && !s->valid) {
      st_stats_warn(im->stats, "perfetto_incremental_state_invalid", src);
    } else if (ts_ok) {
      im->has_trace = 1;
      if ((c = pf_read_track_event(im, s, &pr, &ev, has_ts, tns, src, err)) != ST_OK) return c;
    }
  } else if (other && !has_desc && !has_int && !has_def && !has_clk && !has_td && !has_pd &&
             !has_ftrace && !has_ptree && !has_pstats && !has_sstats && !has_config && !has_frame &&
             !has_android) {
    pf_not_shown(im, other, src);
  }
  im->has_trace = 1;
  return im->nomem ? pf_nomem(im, src, err) : ST_OK;
}

static st_code on_trace_field(void *ud, const st_pb_field *f, uint64_t data_offset, st_error *err) {
  st_perfetto_importer *im = ud;
  if (f->num != 1 || f->wire != ST_PB_LEN) {
    st_stats_warn(im->stats, "perfetto_unknown_top_level_field", f->offset);
    return ST_OK;
  }
  return read_packet(im, f->data, f->len, data_offset, f->offset, err);
}

/* ==== 5. public API ====================================================== */

st_perfetto_importer *st_perfetto_create(const st_alloc *a, st_builder *b, st_stats *stats) {
  if (!b || !stats) return NULL;
  st_perfetto_importer *im = st_calloc(a, 1, sizeof *im);
  if (!im) return NULL;
  im->alloc = a ? *a : (st_alloc){0};
  im->b = b;
  im->stats = stats;
  im->strs = st_builder_strings(b);
  im->trace_clock = ST_CLOCK_BOOTTIME;
  im->clocks = st_pclock_create(&im->alloc);
  im->stream =
      st_pb_stream_create(&im->alloc, ST_PERFETTO_PACKET_MAX, on_trace_field, im, "packet");
  if (!im->stream || !im->clocks) {
    st_pb_stream_destroy(im->stream);
    st_pclock_destroy(im->clocks);
    st_free(&im->alloc, im);
    return NULL;
  }
  return im;
}

/* Everything but what st_perfetto_metadata_json needs (the counts in the
 * struct and meta_json). Safe to call twice. */
static void free_working_state(st_perfetto_importer *im) {
  st_alloc a = im->alloc;
  st_pb_stream_destroy(im->stream);
  st_pclock_destroy(im->clocks);
  im->stream = NULL;
  im->clocks = NULL;
  for (uint32_t i = 0; i < im->ntracks; i++) {
    st_free(&a, im->tracks[i].stack);
    st_free(&a, im->tracks[i].pend);
  }
  st_free(&a, im->tracks);
  for (uint32_t i = 0; i < im->nseqs; i++) {
    st_u64map_free(&im->seqs[i].names, &a);
    st_u64map_free(&im->seqs[i].cats, &a);
    st_free(&a, im->seqs[i].def_extra);
  }
  st_free(&a, im->seqs);
  st_u64map_free(&im->track_map, &a);
  st_u64map_free(&im->seq_map, &a);
  st_free(&a, im->fids);
  st_seen_free(&a, &im->track_seen);
  st_seen_free(&a, &im->proc_seen);
  pf_sched_free(im);
  st_free(&a, im->fevs);
  st_free(&a, im->runs);
  st_free(&a, im->run_tmp);
  for (uint32_t i = 0; i < im->nthr; i++) st_free(&a, im->thr[i].stack);
  st_free(&a, im->thr);
  st_u64map_free(&im->thr_map, &a);
  st_free(&a, im->procs);
  st_u64map_free(&im->proc_map, &a);
  st_free(&a, im->frames);
  st_u64map_free(&im->rail_map, &a);
  st_u64map_free(&im->entity_map, &a);
  st_u64map_free(&im->netctx_map, &a);
  st_free(&a, im->netctx);
  st_free(&a, im->nets);
  st_u64map_free(&im->pkg_map, &a);
  im->nets = NULL, im->nnets = im->cap_nets = 0;
  im->netctx = NULL, im->nnetctx = im->cap_netctx = 0;
  st_free(&a, im->zbuf);
  im->tracks = NULL, im->ntracks = im->cap_tracks = 0;
  im->seqs = NULL, im->nseqs = im->cap_seqs = 0;
  memset(&im->track_map, 0, sizeof im->track_map);
  memset(&im->seq_map, 0, sizeof im->seq_map);
  im->fids = NULL, im->nfids = im->cap_fids = 0;
  im->track_seen = (st_seen){0}, im->proc_seen = (st_seen){0};
  im->fevs = NULL, im->nfevs = im->cap_fevs = 0;
  im->runs = NULL, im->nruns = im->cap_runs = 0;
  im->run_tmp = NULL, im->cap_run_tmp = 0;
  im->thr = NULL, im->nthr = im->cap_thr = 0;
  memset(&im->thr_map, 0, sizeof im->thr_map);
  im->procs = NULL, im->nprocs = im->cap_procs = 0;
  memset(&im->proc_map, 0, sizeof im->proc_map);
  im->frames = NULL, im->nframes = im->cap_frames = 0;
  im->zbuf = NULL, im->zcap = 0;
}

void st_perfetto_destroy(st_perfetto_importer *im) {
  if (!im) return;
  st_alloc a = im->alloc;
  free_working_state(im);
  st_free(&a, im->meta_json);
  st_free(&a, im);
}

void st_perfetto_release(st_perfetto_importer *im) {
  if (im) free_working_state(im);
}

st_code st_perfetto_push(st_perfetto_importer *im, const uint8_t *data, size_t len, st_error *err) {
  if (!im || !im->stream) return st_error_set(err, ST_ERR_ARG, 0, "no importer");
  return st_pb_stream_push_kept(im->stream, &im->status, data, len, err);
}

st_code st_perfetto_finish(st_perfetto_importer *im, st_error *err) {
  if (!im) return st_error_set(err, ST_ERR_ARG, 0, "no importer");
  if (!im->stream) return st_error_set(err, ST_ERR_ARG, 0, "importer already finished");
  st_pb_stream_finish_kept(im->stream, &im->status, err);
  /* the input is read: its buffers go before the replay adds to the
   * builder (the peak of a system trace), and the staged records lose
   * their growth slack */
  st_pb_stream_destroy(im->stream);
  im->stream = NULL;
  st_free(&im->alloc, im->zbuf);
  st_free(&im->alloc, im->run_tmp);
  im->zbuf = NULL, im->zcap = 0;
  im->run_tmp = NULL, im->cap_run_tmp = 0;
  if (im->nfevs && im->nfevs < im->cap_fevs) {
    fev *p = st_realloc_array(&im->alloc, im->fevs, im->nfevs, sizeof *p);
    if (p) im->fevs = p, im->cap_fevs = im->nfevs;
  }
  if (im->status.code != ST_ERR_NOMEM) {
    pf_flush_pending(im);
    pf_close_track_events(im);
    pf_sched_finish(im);
    pf_android_finish(im);
    pf_order_tracks(im);
    pf_name_unnamed_tracks(im);
    pf_name_undescribed(im);
    pf_system_finish(im);
  }
  if (im->nomem && im->status.code == ST_OK) {
    st_error e;
    memset(&e, 0, sizeof e);
    st_pb_status_record(&im->status, pf_nomem(im, 0, &e), &e, err);
  }
  return st_pb_status_record(&im->status, ST_OK, NULL, err);
}

int st_perfetto_has_trace(const st_perfetto_importer *im) { return im && im->has_trace; }

void st_perfetto_set_args_source(st_perfetto_importer *im, st_argsrc *as) {
  if (im) im->args = as;
}

/* {"not_shown": {"packets": N, "kinds": {"android_log": n, ...},
 *  "ftrace_events": n, "nothing_shown": bool}} */
const char *st_perfetto_metadata_json(const st_perfetto_importer *im) {
  if (!im || (!im->nskips && !im->ftrace_other && im->shown)) return "{}";
  st_perfetto_importer *m = (st_perfetto_importer *)im; /* caches the text */
  if (m->meta_json) return m->meta_json;
  st_jout o = {.grow = 1, .alloc = &m->alloc};
  st_jout_lit(&o, "{\"not_shown\": {\"packets\": ");
  st_jout_u64(&o, im->skipped_total);
  st_jout_lit(&o, ", \"kinds\": {");
  for (uint32_t i = 0; i < im->nskips; i++) {
    const char *name = packet_kind_name(im->skips[i].field);
    char tmp[32];
    if (!name) snprintf(tmp, sizeof tmp, "field %u", (unsigned)im->skips[i].field), name = tmp;
    if (i) st_jout_put(&o, ", ", 2);
    st_jout_str_as(&o, name, strlen(name), 0);
    st_jout_put(&o, ": ", 2);
    st_jout_u64(&o, im->skips[i].count);
  }
  st_jout_lit(&o, "}, \"ftrace_events\": ");
  st_jout_u64(&o, im->ftrace_other);
  st_jout_lit(&o, im->shown ? ", \"nothing_shown\": false}}" : ", \"nothing_shown\": true}}");
  if (o.nomem) {
    st_free(&m->alloc, o.buf);
    return "{}";
  }
  m->meta_json = o.buf;
  return o.buf;
}

void st_perfetto_set_staging_limit(st_perfetto_importer *im, uint64_t records) {
  if (im) im->staging_limit = im->staging_next = records;
}
