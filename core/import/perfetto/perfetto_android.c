/* perfetto_android.c: the Android system packets of a Perfetto trace, shown
 * as ui.perfetto.dev shows them (trace_processor's android_probes,
 * statsd and network_trace modules name the tracks):
 *
 *   - BatteryCounters (TracePacket 38) {1 charge_counter_uah, 2
 *     capacity_percent (float), 3 current_ua, 4 current_avg_ua, 5 name,
 *     6 energy_counter_uwh, 7 voltage_uv}: counters "batt.charge_uah"
 *     (from energy and voltage when the charge is absent),
 *     "batt.capacity_pct", "batt.current_ua", "batt.current.avg_ua",
 *     "batt.voltage_uv" and "batt.power_mw" (|current x voltage|), named
 *     "batt.<name>.*" for a named battery, in the "Power" section.
 *   - PowerRails (40) {1 rail_descriptor {1 index, 2 rail_name, 3
 *     subsys_name}, 2 energy_data {1 index, 2 timestamp_ms (BOOTTIME), 3
 *     energy (uWs)}}: one counter per rail, "power.rails.<name>" for the
 *     rails trace_processor knows by a friendly name, else
 *     "power.<rail_name>_uws"; the value is the energy since boot (uWs),
 *     cumulative as Perfetto shows it.
 *   - EntityStateResidency (91) {1 power_entity_state {1 entity_index, 2
 *     state_index, 3 entity_name, 4 state_name}, 2 residency {1
 *     entity_index, 2 state_index, 3 total_time_in_state_ms}}: counters
 *     "Entity residency: <entity> is <state>" (ms in the state since boot).
 *   - StatsdAtom (84) {1 atom (repeated), 2 timestamp_nanos (repeated)}:
 *     an instant per atom on the System section's "Statsd Atoms" track,
 *     named by the atom's field number: its atoms.proto name for the
 *     well-known atoms (atom_name), else "atom_<id>"; on selection its args are
 *     "atom_id" and its fields (perfetto_args.c).
 *   - NetworkPacketBundle (92) {1 iid (InternedData 30 packet_context
 *     {1 iid, 2 ctx}) or 2 ctx, 3 packet_timestamps (packed, ns after the
 *     packet's), 4 packet_lengths (packed; not drawn), 5 total_packets, 6
 *     total_duration, 7 total_length} and NetworkPacketEvent (88) {1
 *     direction (1 in, 2 out), 2 network_interface, 3 length, 4 uid}: in
 *     the "Network" section, a track per interface and direction
 *     ("wlan0 Received", "wlan0 Transmitted"); an instant per packet, or
 *     one slice over total_duration for an aggregated bundle, named by
 *     the uid's package from PackagesList (47) {1 packages {1 name, 2
 *     uid}} (uid % 100000, the app id), else "uid=<uid>". They are named
 *     at the end (pf_android_finish), as the package list may come later;
 *     a packages_list no network packet uses is counted as not shown.
 *
 * Everything is untrusted: indices are bounded (rails 0..256 as in
 * trace_processor), an unknown index or context is counted as a warning at
 * the offset of the record, times that overflow are dropped and counted.
 */
#include "perfetto_internal.h"

#include <stdio.h>
#include <string.h>

#define KEY_BATTERY ((int64_t)1 << 40) /* counter keys in the Power section: + name id */
#define KEY_RAIL ((int64_t)2 << 40)
#define KEY_ENTITY ((int64_t)3 << 40)
#define KEY_STATSD (-0x800000000LL) /* the System section's "Statsd Atoms" track */
#define MAX_RAIL 256

static uint32_t power_counter(st_perfetto_importer *im, const char *name, size_t n, int64_t base) {
  uint32_t id = pf_intern(im, name, n);
  return pf_counter_track(im, PF_POWER_PID, name, n, base + (int64_t)id);
}

/* A small message's fields 1..7: varint / fixed32 values, and text. */
typedef struct flat {
  uint64_t v[8];
  const uint8_t *s[8];
  size_t sl[8];
  uint8_t has[8];
} flat;

static st_code read_flat(const st_pb_reader *r, const st_pb_field *f, flat *x, st_error *err) {
  st_pb_reader e;
  st_pb_field g;
  int j;
  memset(x, 0, sizeof *x);
  if (st_pb_enter(r, f, &e, err) != ST_OK) return err->code;
  while ((j = st_pb_next(&e, &g, err)) > 0) {
    if (g.num < 1 || g.num > 7) continue;
    if (g.wire == ST_PB_LEN)
      x->s[g.num] = g.data, x->sl[g.num] = g.len;
    else if (g.wire == ST_PB_VARINT || g.wire == ST_PB_I32)
      x->v[g.num] = g.u, x->has[g.num] = 1;
  }
  return j < 0 ? ST_ERR_PROTO : ST_OK;
}

/* ==== BatteryCounters ===================================================== */

static void batt(st_perfetto_importer *im, const uint8_t *bn, size_t bl, const char *what,
                 int64_t ts, double v, uint64_t src) {
  char tmp[200];
  int n = bl ? snprintf(tmp, sizeof tmp, "batt.%.*s.%s", (int)(bl > 128 ? 128 : bl),
                        (const char *)bn, what)
             : snprintf(tmp, sizeof tmp, "batt.%s", what);
  if (n <= 0) return;
  pf_counter(im, power_counter(im, tmp, (size_t)n, KEY_BATTERY), ts, v, src);
}

static st_code read_battery(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                            int64_t ts, uint64_t src, st_error *err) {
  flat x;
  if (read_flat(r, df, &x, err) != ST_OK) return err->code;
  int64_t v[8];
  for (int i = 0; i < 8; i++) v[i] = st_pb_i64(x.v[i]);
  const uint8_t *name = x.s[5];
  size_t nl = x.sl[5];
  float cap;
  uint32_t bits = (uint32_t)x.v[2];
  memcpy(&cap, &bits, sizeof cap);
  if (x.has[1])
    batt(im, name, nl, "charge_uah", ts, (double)v[1], src);
  else if (x.has[6] && x.has[7] && v[7] > 0) /* charge from energy and voltage */
    batt(im, name, nl, "charge_uah", ts, (double)v[6] * 1e6 / (double)v[7], src);
  if (x.has[2]) batt(im, name, nl, "capacity_pct", ts, (double)cap, src);
  if (x.has[3]) batt(im, name, nl, "current_ua", ts, (double)v[3], src);
  if (x.has[4]) batt(im, name, nl, "current.avg_ua", ts, (double)v[4], src);
  if (x.has[7]) batt(im, name, nl, "voltage_uv", ts, (double)v[7], src);
  if (x.has[3] && x.has[7]) { /* mW = |uA x uV| / 1e9, truncated as trace_processor does */
    double p = (double)v[3] * (double)v[7] / 1e9;
    if (p < 0) p = -p;
    if (p < 9e15) p = (double)(int64_t)p;
    batt(im, name, nl, "power_mw", ts, p, src);
  }
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* ==== PowerRails ========================================================== */

/* trace_processor's friendly names of Pixel rails (android_probes_module.cc) */
static const char *rail_friendly(const uint8_t *s, size_t n) {
  static const char *const map[][2] = {{"S4M_VDD_CPUCL0", "cpu.little"},
                                       {"S3M_VDD_CPUCL1", "cpu.mid"},
                                       {"S2M_VDD_CPUCL2", "cpu.big"},
                                       {"S5M_VDD_INT", "system.fabric"},
                                       {"S10M_VDD_TPU", "tpu"},
                                       {"PPVAR_VSYS_PWR_DISP", "display"},
                                       {"VSYS_PWR_DISPLAY", "display"},
                                       {"VSYS_PWR_MODEM", "modem"},
                                       {"S1M_VDD_MIF", "memory.interface"},
                                       {"VSYS_PWR_WLAN_BT", "wifi.bt"},
                                       {"L2S_VDD_AOC_RET", "aoc.memory"},
                                       {"S9S_VDD_AOC", "aoc.logic"},
                                       {"S5S_VDDQ_MEM", "ddr.a"},
                                       {"S10S_VDD2L", "ddr.b"},
                                       {"S4S_VDD2H_MEM", "ddr.c"},
                                       {"S2S_VDD_G3D", "gpu"},
                                       {"L9S_GNSS_CORE", "gps"},
                                       {"VSYS_PWR_RFFE", "radio.frontend"}};
  for (size_t i = 0; i < sizeof map / sizeof *map; i++)
    if (strlen(map[i][0]) == n && !memcmp(map[i][0], s, n)) return map[i][1];
  return NULL;
}

/* PowerRails / EntityStateResidency: descriptors (field 1), then data (2). */
typedef st_code (*item_fn)(st_perfetto_importer *im, uint32_t num, const flat *x, uint64_t at,
                           int64_t ts, uint64_t src, st_error *err);

static st_code read_items(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                          int64_t ts, uint64_t src, item_fn item, st_error *err) {
  st_pb_reader d;
  st_pb_field f;
  int k;
  flat x;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if ((f.num != 1 && f.num != 2) || f.wire != ST_PB_LEN) continue;
    if (read_flat(&d, &f, &x, err) != ST_OK) return err->code;
    st_code c = item(im, f.num, &x, f.offset, ts, src, err);
    if (c != ST_OK) return c;
  }
  if (k < 0) return ST_ERR_PROTO;
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

static st_code rail_item(st_perfetto_importer *im, uint32_t num, const flat *x, uint64_t at,
                         int64_t ts, uint64_t src, st_error *err) {
  if (!x->has[1] || x->v[1] > MAX_RAIL) {
    st_stats_warn(im->stats, "perfetto_power_rail_bad_index", at);
    return ST_OK;
  }
  if (num == 1) { /* a rail's descriptor: 2 rail_name */
    char tmp[200];
    size_t nl = x->sl[2];
    const char *fr = rail_friendly(x->s[2], nl);
    int n = fr ? snprintf(tmp, sizeof tmp, "power.rails.%s", fr)
               : snprintf(tmp, sizeof tmp, "power.%.*s_uws", (int)(nl > 160 ? 160 : nl),
                          x->s[2] ? (const char *)x->s[2] : "");
    uint32_t bt = n > 0 ? power_counter(im, tmp, (size_t)n, KEY_RAIL) : UINT32_MAX;
    if (bt != UINT32_MAX && !st_u64map_put(&im->rail_map, &im->alloc, x->v[1], bt))
      return pf_nomem(im, at, err);
    return ST_OK;
  }
  uint32_t bt = st_u64map_get(&im->rail_map, x->v[1]); /* energy: 2 timestamp_ms, 3 energy */
  if (bt == ST_U64MAP_NONE) {
    st_stats_warn(im->stats, "perfetto_power_rail_unknown_index", at);
    return ST_OK;
  }
  int64_t t = ts;
  if (x->has[2]) { /* ms since boot */
    if (x->v[2] > (uint64_t)INT64_MAX / 1000000u) {
      st_stats_warn(im->stats, "perfetto_power_rail_bad_time", at);
      return ST_OK;
    }
    if (!pf_to_trace(im, ST_CLOCK_BOOTTIME, (int64_t)x->v[2] * 1000000, at, &t)) return ST_OK;
  }
  pf_counter(im, bt, t, (double)x->v[3], src);
  return ST_OK;
}

/* ==== EntityStateResidency ================================================ */

static st_code entity_item(st_perfetto_importer *im, uint32_t num, const flat *x, uint64_t at,
                           int64_t ts, uint64_t src, st_error *err) {
  uint64_t key = (uint64_t)(uint32_t)x->v[1] << 32 | (uint32_t)x->v[2];
  if (num == 1) { /* 3 entity_name, 4 state_name */
    if (!x->has[1] || !x->has[2]) {
      st_stats_warn(im->stats, "perfetto_entity_state_without_index", at);
      return ST_OK;
    }
    char tmp[300];
    int n = snprintf(tmp, sizeof tmp, "Entity residency: %.*s is %.*s",
                     (int)(x->sl[3] > 128 ? 128 : x->sl[3]), x->s[3] ? (const char *)x->s[3] : "",
                     (int)(x->sl[4] > 128 ? 128 : x->sl[4]), x->s[4] ? (const char *)x->s[4] : "");
    uint32_t bt = n > 0 ? power_counter(im, tmp, (size_t)n, KEY_ENTITY) : UINT32_MAX;
    if (bt != UINT32_MAX && !st_u64map_put(&im->entity_map, &im->alloc, key, bt))
      return pf_nomem(im, at, err);
    return ST_OK;
  }
  uint32_t bt = st_u64map_get(&im->entity_map, key); /* 3 total_time_in_state_ms */
  if (bt == ST_U64MAP_NONE) {
    st_stats_warn(im->stats, "perfetto_entity_state_unknown", at);
    return ST_OK;
  }
  pf_counter(im, bt, ts, (double)x->v[3], src);
  return ST_OK;
}

/* ==== StatsdAtom =========================================================== */

/* Names of well-known statsd atoms by id (the Atom field number; atom ids
 * never change), as trace_processor shows them from atoms.proto: the
 * atoms of Android's generated StatsLog constants, lower-cased. */
static const char *atom_name(uint32_t id) {
  static const struct {
    uint32_t id;
    const char *name;
  } k[] = {
      {2, "ble_scan_state_changed"},
      {4, "ble_scan_result_received"},
      {5, "sensor_state_changed"},
      {6, "gps_scan_state_changed"},
      {7, "sync_state_changed"},
      {8, "scheduled_job_state_changed"},
      {9, "screen_brightness_changed"},
      {10, "wakelock_state_changed"},
      {11, "long_partial_wakelock_state_changed"},
      {12, "mobile_radio_power_state_changed"},
      {13, "wifi_radio_power_state_changed"},
      {20, "battery_saver_mode_state_changed"},
      {21, "device_idle_mode_state_changed"},
      {22, "device_idling_mode_state_changed"},
      {23, "audio_state_changed"},
      {24, "media_codec_state_changed"},
      {25, "camera_state_changed"},
      {26, "flashlight_state_changed"},
      {27, "uid_process_state_changed"},
      {28, "process_life_cycle_state_changed"},
      {29, "screen_state_changed"},
      {30, "battery_level_changed"},
      {31, "charging_state_changed"},
      {32, "plugged_state_changed"},
      {35, "wakeup_alarm_occurred"},
      {36, "kernel_wakeup_reported"},
      {37, "wifi_lock_state_changed"},
      {38, "wifi_signal_strength_changed"},
      {39, "wifi_scan_state_changed"},
      {40, "phone_signal_strength_changed"},
      {41, "setting_changed"},
      {42, "activity_foreground_state_changed"},
      {43, "isolated_uid_changed"},
      {44, "packet_wakeup_occurred"},
      {46, "anomaly_detected"},
      {47, "app_breadcrumb_reported"},
      {48, "app_start_occurred"},
      {49, "app_start_canceled"},
      {50, "app_start_fully_drawn"},
      {51, "lmk_kill_occurred"},
      {52, "picture_in_picture_state_changed"},
      {53, "wifi_multicast_lock_state_changed"},
      {54, "lmk_state_changed"},
      {55, "app_start_memory_state_captured"},
      {56, "shutdown_sequence_reported"},
      {57, "boot_sequence_reported"},
      {58, "davey_occurred"},
      {59, "overlay_state_changed"},
      {60, "foreground_service_state_changed"},
      {61, "call_state_changed"},
      {62, "keyguard_state_changed"},
      {63, "keyguard_bouncer_state_changed"},
      {64, "keyguard_bouncer_password_entered"},
      {65, "app_died"},
      {66, "resource_configuration_changed"},
      {67, "bluetooth_enabled_state_changed"},
      {68, "bluetooth_connection_state_changed"},
      {70, "usb_connector_state_changed"},
      {71, "speaker_impedance_reported"},
      {72, "hardware_failed"},
      {73, "physical_drop_detected"},
      {74, "charge_cycles_reported"},
      {75, "mobile_connection_state_changed"},
      {76, "mobile_radio_technology_changed"},
      {77, "usb_device_attached"},
      {78, "app_crash_occurred"},
      {79, "anr_occurred"},
      {80, "wtf_occurred"},
      {81, "low_mem_reported"},
      {166, "bluetooth_classic_pairing_event_reported"},
      {10000, "wifi_bytes_transfer"},
      {10001, "wifi_bytes_transfer_by_fg_bg"},
      {10002, "mobile_bytes_transfer"},
      {10003, "mobile_bytes_transfer_by_fg_bg"},
      {10004, "kernel_wakelock"},
      {10005, "subsystem_sleep_state"},
      {10006, "bluetooth_bytes_transfer"},
      {10007, "bluetooth_activity_info"},
      {10008, "cpu_time_per_freq"},
      {10009, "cpu_time_per_uid"},
      {10010, "cpu_time_per_uid_freq"},
      {10011, "wifi_activity_info"},
      {10012, "modem_activity_info"},
      {10013, "process_memory_state"},
      {10014, "system_elapsed_realtime"},
      {10015, "system_uptime"},
      {10016, "cpu_active_time"},
      {10017, "cpu_cluster_time"},
      {10018, "disk_space"},
      {10019, "remaining_battery_capacity"},
      {10020, "full_battery_capacity"},
      {10021, "temperature"},
  };
  for (size_t i = 0; i < sizeof k / sizeof *k && k[i].id <= id; i++) /* ascending ids */
    if (k[i].id == id) return k[i].name;
  return NULL;
}

static st_code read_statsd(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                           int64_t ts, uint64_t src, st_error *err) {
  st_pb_reader d, a, tsr;
  st_pb_field f, g, tf;
  int k, j, has_tsf = 0, tk = 0;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  /* timestamps: repeated int64, one per atom (unpacked or packed) */
  st_pb_reader d0 = d, dts = d;
  uint32_t p = pf_section(im, PF_SYS_PID);
  uint32_t bt = p == UINT32_MAX ? UINT32_MAX
                                : st_builder_track(im->b, p, ST_TRACK_SLICES, KEY_STATSD,
                                                   pf_intern(im, "Statsd Atoms", 12));
  if (bt == UINT32_MAX) return pf_nomem(im, df->offset, err);
  /* args on selection decode each atom from the record's bytes */
  int precise = im->args && !im->in_compressed;
  if (precise &&
      st_argsrc_perfetto_bundle(im->args, df->offset,
                                st_pb_offset(r, df->data) + df->len - df->offset) != ST_OK)
    return pf_nomem(im, df->offset, err);
  while ((k = st_pb_next(&d0, &f, err)) > 0) {
    if (f.num != 1 || f.wire != ST_PB_LEN) continue;
    /* this atom's timestamp: the next element of field 2 */
    int64_t t = ts;
    int have = 0;
    for (;;) {
      if (has_tsf) { /* the rest of a packed run */
        uint64_t x;
        int q = st_pb_packed_next(&tsr, ST_PB_VARINT, &x, err);
        if (q < 0) return ST_ERR_PROTO;
        if (q > 0) {
          t = st_pb_i64(x), have = 1;
          break;
        }
        has_tsf = 0;
      }
      while ((tk = st_pb_next(&dts, &tf, err)) > 0 && tf.num != 2) {
      }
      if (tk < 0) return ST_ERR_PROTO;
      if (tk == 0) break;
      if (tf.wire == ST_PB_VARINT) {
        t = st_pb_i64(tf.u), have = 1;
        break;
      }
      if (tf.wire == ST_PB_LEN) {
        if (st_pb_packed_init(&dts, &tf, &tsr, err) != ST_OK) return err->code;
        has_tsf = 1;
      }
    }
    if (!have) st_stats_warn(im->stats, "perfetto_statsd_atom_without_timestamp", f.offset);
    /* the atom's kind: its (first) field's number */
    if (st_pb_enter(&d0, &f, &a, err) != ST_OK) return err->code;
    uint32_t id = 0;
    if ((j = st_pb_next(&a, &g, err)) > 0) id = g.num;
    if (j < 0) return ST_ERR_PROTO;
    char tmp[24];
    const char *known = atom_name(id);
    int n = known ? (int)strlen(known) : snprintf(tmp, sizeof tmp, "atom_%u", (unsigned)id);
    im->stats->instants++;
    st_stats_time(im->stats, t, t);
    pf_emit(im, bt, t, 0, pf_intern(im, known ? known : tmp, (size_t)n), ST_STR_EMPTY,
            precise ? f.offset : src, ST_EV_INSTANT);
  }
  if (k < 0) return ST_ERR_PROTO;
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* ==== network packets ====================================================== */

typedef struct netctx {
  uint32_t iface, uid;
  uint8_t dir;
} netctx;

/* NetworkPacketEvent: 1 direction, 2 network_interface, 4 uid */
static st_code read_ctx(st_perfetto_importer *im, const st_pb_reader *r, const st_pb_field *cf,
                        netctx *c, st_error *err) {
  flat x;
  if (read_flat(r, cf, &x, err) != ST_OK) return err->code;
  c->dir = x.v[1] == 1 ? 1 : x.v[1] == 2 ? 2 : 0;
  c->uid = (uint32_t)x.v[4];
  c->iface = pf_intern(im, x.s[2], x.sl[2]);
  return ST_OK;
}

static uint64_t ctx_key(uint64_t seq, uint64_t iid) {
  uint64_t h = seq * 0x9E3779B97F4A7C15ull ^ iid;
  h ^= h >> 29;
  return h * 0xBF58476D1CE4E5B9ull;
}

st_code pf_read_net_context(st_perfetto_importer *im, uint64_t seq, st_pb_reader *r,
                            const st_pb_field *df, st_error *err) {
  st_pb_reader d;
  st_pb_field f;
  int k, has_ctx = 0;
  uint64_t iid = 0;
  netctx c = {ST_STR_EMPTY, 0, 0};
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num == 1 && f.wire == ST_PB_VARINT) iid = f.u;
    if (f.num == 2 && f.wire == ST_PB_LEN) {
      if (read_ctx(im, &d, &f, &c, err) != ST_OK) return err->code;
      has_ctx = 1;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  if (!has_ctx) return ST_OK;
  uint64_t key = ctx_key(seq, iid);
  uint32_t i = st_u64map_get(&im->netctx_map, key);
  if (i == ST_U64MAP_NONE || im->netctx[i].seq != seq || im->netctx[i].iid != iid) {
    if (im->nnetctx == im->cap_netctx) {
      void *p = im->netctx;
      if (!st_grow32(&im->alloc, &p, &im->cap_netctx, im->nnetctx + 1, sizeof *im->netctx, 16))
        return pf_nomem(im, df->offset, err);
      im->netctx = p;
    }
    i = im->nnetctx++;
    if (!st_u64map_put(&im->netctx_map, &im->alloc, key, i)) return pf_nomem(im, df->offset, err);
  }
  im->netctx[i] = (pnetctx){seq, iid, c.iface, c.uid, c.dir};
  return ST_OK;
}

/* The Network section's track of (interface, direction). */
static uint32_t net_track(st_perfetto_importer *im, const netctx *c) {
  static const char *const dirs[] = {"DIR_UNKNOWN", "Received", "Transmitted"};
  uint32_t p = pf_section(im, PF_NET_PID);
  if (p == UINT32_MAX) return p;
  size_t il;
  const char *ifs = st_strtab_get(im->strs, c->iface, &il);
  char tmp[200];
  int n = snprintf(tmp, sizeof tmp, "%.*s %s", (int)(il > 128 ? 128 : il), ifs, dirs[c->dir]);
  int64_t key = -1 - ((int64_t)c->iface * 4 + c->dir);
  uint32_t bt =
      st_builder_track(im->b, p, ST_TRACK_ASYNC, key, pf_intern(im, tmp, n > 0 ? (size_t)n : 0));
  if (bt == UINT32_MAX) im->nomem = 1;
  return bt;
}

/* A packet (dur 0) or an aggregated bundle, kept until the end: its name
 * needs the packages_list, which may come later. */
static void net_slice(st_perfetto_importer *im, uint32_t bt, const netctx *c, int64_t ts,
                      int64_t dur, uint64_t src) {
  if (im->nnets == im->cap_nets) {
    void *p = im->nets;
    if (!st_grow_from(&im->alloc, &p, &im->cap_nets, im->nnets + 1, sizeof *im->nets, 256)) {
      im->nomem = 1;
      return;
    }
    im->nets = p;
  }
  im->nets[im->nnets++] = (pnet){ts, dur, src, bt, c->uid};
}

/* PackagesList (47) {1 packages {1 name, 2 uid}}: the first package of a uid names it. */
static st_code read_packages(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                             st_error *err) {
  st_pb_reader d;
  st_pb_field f;
  int k;
  flat x;
  if (!im->pkg_lists++) im->pkg_src = df->offset;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num != 1 || f.wire != ST_PB_LEN) continue;
    if (read_flat(&d, &f, &x, err) != ST_OK) return err->code;
    if (!x.has[2] || !x.sl[1] || st_u64map_get(&im->pkg_map, x.v[2]) != ST_U64MAP_NONE) continue;
    if (!st_u64map_put(&im->pkg_map, &im->alloc, x.v[2], pf_intern(im, x.s[1], x.sl[1])))
      return pf_nomem(im, f.offset, err);
  }
  if (k < 0) return ST_ERR_PROTO;
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

void pf_android_finish(st_perfetto_importer *im) {
  if (!im->nnets) { /* nothing used the package names */
    for (uint64_t i = 0; i < im->pkg_lists; i++) pf_not_shown(im, 47, im->pkg_src);
  }
  /* a packet's name: its app's package (uid % 100000: Android's per-user
   * range), else "uid=<uid>", as trace_processor names them */
  for (size_t i = 0; i < im->nnets; i++) {
    const pnet *e = &im->nets[i];
    uint32_t name = e->uid ? st_u64map_get(&im->pkg_map, e->uid % 100000u) : ST_U64MAP_NONE;
    if (name == ST_U64MAP_NONE) {
      char tmp[24];
      int n = snprintf(tmp, sizeof tmp, "uid=%u", (unsigned)e->uid);
      name = pf_intern(im, tmp, (size_t)n);
    }
    st_stats_time(im->stats, e->ts,
                  e->dur > 0 && e->ts <= INT64_MAX - e->dur ? e->ts + e->dur : e->ts);
    if (e->dur > 0) {
      im->stats->async_slices++;
      pf_emit(im, e->bt, e->ts, e->dur, name, ST_STR_EMPTY, e->src, 0);
    } else {
      im->stats->instants++;
      pf_emit(im, e->bt, e->ts, 0, name, ST_STR_EMPTY, e->src, ST_EV_INSTANT);
    }
  }
  st_free(&im->alloc, im->nets);
  im->nets = NULL;
  im->nnets = im->cap_nets = 0;
}

static st_code read_net_bundle(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                               int64_t ts, uint64_t src, st_error *err) {
  st_pb_reader d, tsr;
  st_pb_field f;
  int k, has_iid = 0, has_total = 0, has_ts = 0;
  uint64_t iid = 0, total_dur = 0;
  netctx c = {ST_STR_EMPTY, 0, 0};
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num == 1 && f.wire == ST_PB_VARINT) iid = f.u, has_iid = 1;
    if (f.num == 2 && f.wire == ST_PB_LEN && read_ctx(im, &d, &f, &c, err) != ST_OK)
      return err->code;
    if (f.num == 3 && f.wire == ST_PB_LEN) {
      if (st_pb_packed_init(&d, &f, &tsr, err) != ST_OK) return err->code;
      has_ts = 1;
    }
    if (f.num == 6 && f.wire == ST_PB_VARINT) total_dur = f.u;
    if (f.num == 7 && f.wire == ST_PB_VARINT) has_total = 1;
  }
  if (k < 0) return ST_ERR_PROTO;
  if (has_iid) {
    uint32_t i = st_u64map_get(&im->netctx_map, ctx_key(im->cur_seq, iid));
    if (i != ST_U64MAP_NONE && im->netctx[i].seq == im->cur_seq && im->netctx[i].iid == iid)
      c = (netctx){im->netctx[i].iface, im->netctx[i].uid, im->netctx[i].dir};
    else
      st_stats_warn(im->stats, "perfetto_network_context_unknown", df->offset);
  }
  uint32_t bt = net_track(im, &c);
  if (bt == UINT32_MAX) return pf_nomem(im, df->offset, err);
  if (has_total) { /* aggregated: one slice over the bundle's duration */
    net_slice(im, bt, &c, ts, total_dur > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)total_dur,
              src);
  } else if (has_ts) { /* a packet per timestamp, ns after the packet's */
    uint64_t dt;
    int q;
    while ((q = st_pb_packed_next(&tsr, ST_PB_VARINT, &dt, err)) > 0) {
      if (dt > (uint64_t)INT64_MAX || ts > INT64_MAX - (int64_t)dt) {
        st_stats_warn(im->stats, "perfetto_network_packet_bad_time", df->offset);
        continue;
      }
      net_slice(im, bt, &c, ts + (int64_t)dt, 0, src);
    }
    if (q < 0) return ST_ERR_PROTO;
  }
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* ==== dispatch =============================================================== */

st_code pf_read_android(st_perfetto_importer *im, uint32_t field, st_pb_reader *r,
                        const st_pb_field *f, int64_t ts, uint64_t src, st_error *err) {
  switch (field) {
  case 38: return read_battery(im, r, f, ts, src, err);
  case 40: return read_items(im, r, f, ts, src, rail_item, err);
  case 91: return read_items(im, r, f, ts, src, entity_item, err);
  case 84: return read_statsd(im, r, f, ts, src, err);
  case 92: return read_net_bundle(im, r, f, ts, src, err);
  case 47: return read_packages(im, r, f, err);
  case 88: {
    netctx c = {ST_STR_EMPTY, 0, 0};
    if (read_ctx(im, r, f, &c, err) != ST_OK) return err->code;
    uint32_t bt = net_track(im, &c);
    if (bt == UINT32_MAX) return pf_nomem(im, f->offset, err);
    net_slice(im, bt, &c, ts, 0, src);
    return im->nomem ? pf_nomem(im, f->offset, err) : ST_OK;
  }
  default: return ST_OK;
  }
}
