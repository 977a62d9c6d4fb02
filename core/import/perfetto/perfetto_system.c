/* perfetto_system.c: processes and threads of a Perfetto trace, whatever
 * source names them, and the system-wide packets that are not scheduling:
 *
 *   - Names: threads and processes are registered (perfetto_common.c) by
 *     every source with a priority; at the end a process without a name
 *     takes its main thread's.
 *   - ProcessTree (TracePacket 2): Process {1 pid, 3 cmdline[0] = name},
 *     Thread {1 tid, 2 name, 3 tgid}.
 *   - ProcessStats (9): per process {1 pid, 2 vm_size_kb, 3 vm_rss_kb,
 *     4 rss_anon_kb, 5 rss_file_kb, 6 rss_shmem_kb, 7 vm_swap_kb,
 *     8 vm_locked_kb, 9 vm_hwm_kb, 10 oom_score_adj}: counters "mem.virt",
 *     "mem.rss", ... (bytes) in the process's section, as ui.perfetto.dev
 *     names them.
 *     smaps_rollup (16..20, 23) as "mem.smaps.*", run times (21, 22) as
 *     "runtime.user_ns" / "runtime.kernel_ns"; threads (11) join the
 *     process; fds (15) and other fields are counted as not shown.
 *   - SysStats (7): meminfo {1 key, 2 value kB} as "mem.total", ... (bytes),
 *     vmstat per key, irq/softirq/fork counts, devfreq, psi, thermal zones,
 *     cpuidle states, gpufreq in a "System" section; cpu_stat and
 *     cpufreq_khz per CPU in the CPUs section (see pf_read_sys_stats).
 *   - FrameTimelineEvent (76): expected / actual display (1, 2) and surface
 *     (3, 4) frame starts {1 cookie, 2 token, pid 3 (display) / 4
 *     (surface)} until FrameEnd (5) {1 cookie}: slices named by token on the
 *     process's "Expected Timeline" / "Actual Timeline" tracks.
 *   - At the end (pf_system_finish): thread tracks are labelled "name tid"
 *     (state tracks "name tid state"), sections named, and ordered as
 *     ui.perfetto.dev lists them: CPUs, System, then processes by (name,
 *     pid), and in each process its own tracks, then threads by (name, tid).
 */
#include "merge_sort.h"
#include "perfetto_internal.h"

#include <stdio.h>
#include <string.h>

#define THREAD_SORT_BASE (1 << 24)

/* ==== ProcessTree ======================================================== */

st_code pf_read_process_tree(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                             st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if ((f.num != 1 && f.num != 2) || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
    int64_t id = -1, tgid = -1;
    const uint8_t *name = NULL;
    size_t nlen = 0;
    int have_name = 0;
    while ((j = st_pb_next(&e, &g, err)) > 0) {
      if (g.num == 1 && g.wire == ST_PB_VARINT) id = (int64_t)(int32_t)(uint32_t)g.u;
      if (f.num == 2 && g.num == 3 && g.wire == ST_PB_VARINT)
        tgid = (int64_t)(int32_t)(uint32_t)g.u;
      /* a process's name is its first cmdline word (3); a thread's, field 2 */
      if (g.wire == ST_PB_LEN && g.num == (f.num == 1 ? 3u : 2u) && !have_name)
        name = g.data, nlen = g.len, have_name = 1;
    }
    if (j < 0) return ST_ERR_PROTO;
    if (id < 0) continue;
    if (f.num == 1) {
      pf_thread_tgid(im, id, id);
      if (nlen) pf_process_name(im, id, pf_intern(im, name, nlen), NAME_PROCESS_TREE);
    } else {
      if (tgid >= 0) pf_thread_tgid(im, id, tgid);
      if (nlen) pf_thread_name(im, id, pf_intern(im, name, nlen), NAME_PROCESS_TREE);
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* ==== ProcessStats / SysStats ============================================ */

static const char *const k_proc_mem[] = {NULL,
                                         NULL,
                                         "mem.virt",
                                         "mem.rss",
                                         "mem.rss.anon",
                                         "mem.rss.file",
                                         "mem.rss.shmem",
                                         "mem.swap",
                                         "mem.locked",
                                         "mem.rss.watermark",
                                         "oom_score_adj"};

/* ProcessStats.Process fields 16..23 beyond the above, as trace_processor
 * names them: smaps_rollup (kB -> bytes) and /proc/pid/stat run times (ns). */
static const char *proc_extra_name(uint32_t num) {
  switch (num) {
  case 16: return "mem.smaps.rss";
  case 17: return "mem.smaps.pss";
  case 18: return "mem.smaps.pss.anon";
  case 19: return "mem.smaps.pss.file";
  case 20: return "mem.smaps.pss.smem";
  case 23: return "mem.smaps.swap.pss";
  case 21: return "runtime.user_ns";
  case 22: return "runtime.kernel_ns";
  default: return NULL;
  }
}

st_code pf_read_process_stats(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                              int64_t ts, uint64_t src, st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j, fds = 0, other = 0;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num != 1 || f.wire != ST_PB_LEN) continue; /* 2: collection_end_timestamp */
    if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
    int64_t pid = -1;
    st_pb_reader e0 = e;
    while ((j = st_pb_next(&e, &g, err)) > 0)
      if (g.num == 1 && g.wire == ST_PB_VARINT) pid = (int64_t)(int32_t)(uint32_t)g.u;
    if (j < 0) return ST_ERR_PROTO;
    if (pid < 0) continue;
    while ((j = st_pb_next(&e0, &g, err)) > 0) {
      if (g.num == 1 || g.num == 12) continue;  /* pid; is_peak_rss_resettable: a flag */
      if (g.num == 11 && g.wire == ST_PB_LEN) { /* threads {1 tid}: the thread's process */
        st_pb_reader t;
        st_pb_field h;
        int q;
        if (st_pb_enter(&e0, &g, &t, err) != ST_OK) return err->code;
        while ((q = st_pb_next(&t, &h, err)) > 0)
          if (h.num == 1 && h.wire == ST_PB_VARINT)
            pf_thread_tgid(im, (int64_t)(int32_t)(uint32_t)h.u, pid);
        if (q < 0) return ST_ERR_PROTO;
        continue;
      }
      if (g.num == 15) {
        fds = 1;
        continue;
      }
      const char *name = g.num >= 2 && g.num <= 10 ? k_proc_mem[g.num] : proc_extra_name(g.num);
      if (g.wire != ST_PB_VARINT || !name) {
        other = 1; /* chrome_* footprints (13, 14) and fields not known */
        continue;
      }
      double v = g.num == 10                  ? (double)(int32_t)(uint32_t)g.u
                 : g.num == 21 || g.num == 22 ? (double)g.u
                                              : (double)g.u * 1024.0;
      uint32_t bt = pf_counter_track(im, pid, name, strlen(name), -0x200000000LL - g.num);
      if (bt != UINT32_MAX) st_builder_track_sort(im->b, bt, (int32_t)g.num - 32);
      pf_counter(im, bt, ts, v, src);
    }
    if (j < 0) return ST_ERR_PROTO;
  }
  if (k < 0) return ST_ERR_PROTO;
  if (fds) pf_not_shown(im, PF_PART_PROC_FDS, src);
  if (other) pf_not_shown(im, PF_PART_PROC_OTHER, src);
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* MeminfoCounters (sys_stats_counters.proto), named as trace_processor does:
 * the enum name without MEMINFO_, lower case, '_' -> '.'. */
static const char *const k_meminfo[] = {NULL,
                                        "mem.total",
                                        "mem.free",
                                        "mem.available",
                                        "buffers",
                                        "cached",
                                        "swap.cached",
                                        "active",
                                        "inactive",
                                        "active.anon",
                                        "inactive.anon",
                                        "active.file",
                                        "inactive.file",
                                        "unevictable",
                                        "mlocked",
                                        "swap.total",
                                        "swap.free",
                                        "dirty",
                                        "writeback",
                                        "anon.pages",
                                        "mapped",
                                        "shmem",
                                        "slab",
                                        "slab.reclaimable",
                                        "slab.unreclaimable",
                                        "kernel.stack",
                                        "page.tables",
                                        "commit.limit",
                                        "commited.as",
                                        "vmalloc.total",
                                        "vmalloc.used",
                                        "vmalloc.chunk",
                                        "cma.total",
                                        "cma.free",
                                        "gpu",
                                        "zram",
                                        "misc",
                                        "ion.heap",
                                        "ion.heap.pool"};

/* VmstatCounters (sys_stats_counters.proto): the /proc/vmstat key, as
 * trace_processor names the track (the enum name without VMSTAT_, lower
 * case). */
static const char *const k_vmstat[] = {NULL,
                                       "nr_free_pages",
                                       "nr_alloc_batch",
                                       "nr_inactive_anon",
                                       "nr_active_anon",
                                       "nr_inactive_file",
                                       "nr_active_file",
                                       "nr_unevictable",
                                       "nr_mlock",
                                       "nr_anon_pages",
                                       "nr_mapped",
                                       "nr_file_pages",
                                       "nr_dirty",
                                       "nr_writeback",
                                       "nr_slab_reclaimable",
                                       "nr_slab_unreclaimable",
                                       "nr_page_table_pages",
                                       "nr_kernel_stack",
                                       "nr_overhead",
                                       "nr_unstable",
                                       "nr_bounce",
                                       "nr_vmscan_write",
                                       "nr_vmscan_immediate_reclaim",
                                       "nr_writeback_temp",
                                       "nr_isolated_anon",
                                       "nr_isolated_file",
                                       "nr_shmem",
                                       "nr_dirtied",
                                       "nr_written",
                                       "nr_pages_scanned",
                                       "workingset_refault",
                                       "workingset_activate",
                                       "workingset_nodereclaim",
                                       "nr_anon_transparent_hugepages",
                                       "nr_free_cma",
                                       "nr_swapcache",
                                       "nr_dirty_threshold",
                                       "nr_dirty_background_threshold",
                                       "pgpgin",
                                       "pgpgout",
                                       "pgpgoutclean",
                                       "pswpin",
                                       "pswpout",
                                       "pgalloc_dma",
                                       "pgalloc_normal",
                                       "pgalloc_movable",
                                       "pgfree",
                                       "pgactivate",
                                       "pgdeactivate",
                                       "pgfault",
                                       "pgmajfault",
                                       "pgrefill_dma",
                                       "pgrefill_normal",
                                       "pgrefill_movable",
                                       "pgsteal_kswapd_dma",
                                       "pgsteal_kswapd_normal",
                                       "pgsteal_kswapd_movable",
                                       "pgsteal_direct_dma",
                                       "pgsteal_direct_normal",
                                       "pgsteal_direct_movable",
                                       "pgscan_kswapd_dma",
                                       "pgscan_kswapd_normal",
                                       "pgscan_kswapd_movable",
                                       "pgscan_direct_dma",
                                       "pgscan_direct_normal",
                                       "pgscan_direct_movable",
                                       "pgscan_direct_throttle",
                                       "pginodesteal",
                                       "slabs_scanned",
                                       "kswapd_inodesteal",
                                       "kswapd_low_wmark_hit_quickly",
                                       "kswapd_high_wmark_hit_quickly",
                                       "pageoutrun",
                                       "allocstall",
                                       "pgrotated",
                                       "drop_pagecache",
                                       "drop_slab",
                                       "pgmigrate_success",
                                       "pgmigrate_fail",
                                       "compact_migrate_scanned",
                                       "compact_free_scanned",
                                       "compact_isolated",
                                       "compact_stall",
                                       "compact_fail",
                                       "compact_success",
                                       "compact_daemon_wake",
                                       "unevictable_pgs_culled",
                                       "unevictable_pgs_scanned",
                                       "unevictable_pgs_rescued",
                                       "unevictable_pgs_mlocked",
                                       "unevictable_pgs_munlocked",
                                       "unevictable_pgs_cleared",
                                       "unevictable_pgs_stranded",
                                       "nr_zspages",
                                       "nr_ion_heap",
                                       "nr_gpu_heap",
                                       "allocstall_dma",
                                       "allocstall_movable",
                                       "allocstall_normal",
                                       "compact_daemon_free_scanned",
                                       "compact_daemon_migrate_scanned",
                                       "nr_fastrpc",
                                       "nr_indirectly_reclaimable",
                                       "nr_ion_heap_pool",
                                       "nr_kernel_misc_reclaimable",
                                       "nr_shadow_call_stack_bytes",
                                       "nr_shmem_hugepages",
                                       "nr_shmem_pmdmapped",
                                       "nr_unreclaimable_pages",
                                       "nr_zone_active_anon",
                                       "nr_zone_active_file",
                                       "nr_zone_inactive_anon",
                                       "nr_zone_inactive_file",
                                       "nr_zone_unevictable",
                                       "nr_zone_write_pending",
                                       "oom_kill",
                                       "pglazyfree",
                                       "pglazyfreed",
                                       "pgrefill",
                                       "pgscan_direct",
                                       "pgscan_kswapd",
                                       "pgskip_dma",
                                       "pgskip_movable",
                                       "pgskip_normal",
                                       "pgsteal_direct",
                                       "pgsteal_kswapd",
                                       "swap_ra",
                                       "swap_ra_hit",
                                       "workingset_restore",
                                       "allocstall_device",
                                       "allocstall_dma32",
                                       "balloon_deflate",
                                       "balloon_inflate",
                                       "balloon_migrate",
                                       "cma_alloc_fail",
                                       "cma_alloc_success",
                                       "nr_file_hugepages",
                                       "nr_file_pmdmapped",
                                       "nr_foll_pin_acquired",
                                       "nr_foll_pin_released",
                                       "nr_sec_page_table_pages",
                                       "nr_shadow_call_stack",
                                       "nr_swapcached",
                                       "nr_throttled_written",
                                       "pgalloc_device",
                                       "pgalloc_dma32",
                                       "pgdemote_direct",
                                       "pgdemote_kswapd",
                                       "pgreuse",
                                       "pgscan_anon",
                                       "pgscan_file",
                                       "pgskip_device",
                                       "pgskip_dma32",
                                       "pgsteal_anon",
                                       "pgsteal_file",
                                       "thp_collapse_alloc",
                                       "thp_collapse_alloc_failed",
                                       "thp_deferred_split_page",
                                       "thp_fault_alloc",
                                       "thp_fault_fallback",
                                       "thp_fault_fallback_charge",
                                       "thp_file_alloc",
                                       "thp_file_fallback",
                                       "thp_file_fallback_charge",
                                       "thp_file_mapped",
                                       "thp_migration_fail",
                                       "thp_migration_split",
                                       "thp_migration_success",
                                       "thp_scan_exceed_none_pte",
                                       "thp_scan_exceed_share_pte",
                                       "thp_scan_exceed_swap_pte",
                                       "thp_split_page",
                                       "thp_split_page_failed",
                                       "thp_split_pmd",
                                       "thp_swpout",
                                       "thp_swpout_fallback",
                                       "thp_zero_page_alloc",
                                       "thp_zero_page_alloc_failed",
                                       "vma_lock_abort",
                                       "vma_lock_miss",
                                       "vma_lock_retry",
                                       "vma_lock_success",
                                       "workingset_activate_anon",
                                       "workingset_activate_file",
                                       "workingset_nodes",
                                       "workingset_refault_anon",
                                       "workingset_refault_file",
                                       "workingset_restore_anon",
                                       "workingset_restore_file"};

/* CpuTimes fields 2..9, as trace_processor names them ("cpu.times.<key>"). */
static const char *const k_cpu_times[] = {
    NULL,      NULL,         "user_ns", "user_nice_ns", "system_mode_ns",
    "idle_ns", "io_wait_ns", "irq_ns",  "softirq_ns",   "steal_ns"};

/* PsiSample.resource, as trace_processor names it ("psi.<resource>"). */
static const char *const k_psi[] = {
    "resource.unspecified", "cpu.some", "cpu.full", "io.some", "io.full", "mem.some", "mem.full"};

/* Keys of the System section's counter tracks, one range per kind (the
 * track's sort index is the same, so meminfo, then vmstat, ... as listed). */
#define SYS_KEY_MEMINFO 0x0000000
#define SYS_KEY_VMSTAT 0x1000000
#define SYS_KEY_SCALAR 0x2000000 /* num_forks 4, num_irq_total 5, num_softirq_total 7 */
#define SYS_KEY_IRQ 0x3000000    /* + irq number; softirqs at 0x4000000 */
#define SYS_KEY_SOFTIRQ 0x4000000
#define SYS_KEY_PSI 0x5000000
#define SYS_KEY_NAMED 0x6000000 /* + the interned name: devfreq, thermal, cpuidle */
#define SYS_KEY_GPUFREQ 0x7000000

/* A counter sample on the System section's track `name` (key as above). */
static void sys_counter(st_perfetto_importer *im, const char *name, size_t n, int64_t key,
                        int64_t ts, double v, uint64_t src) {
  uint32_t bt = pf_counter_track(im, PF_SYS_PID, name, n, key);
  if (bt != UINT32_MAX) st_builder_track_sort(im->b, bt, (int32_t)(key & 0x7FFFFFFF));
  pf_counter(im, bt, ts, v, src);
}

/* A {1 key, 2 value} entry (MeminfoValue, VmstatValue, InterruptCount,
 * DevfreqValue, ThermalZone's name/temp/type): its varints and strings. */
typedef struct kv {
  uint64_t u[4]; /* varint fields 1..3 */
  const uint8_t *s[4];
  size_t sl[4];   /* string fields 1..3 */
  uint8_t has[4]; /* 1: varint, 2: string */
} kv;

static st_code read_kv(st_pb_reader *d, const st_pb_field *f, kv *x, st_error *err) {
  st_pb_reader e;
  st_pb_field g;
  int j;
  memset(x, 0, sizeof *x);
  if (st_pb_enter(d, f, &e, err) != ST_OK) return err->code;
  while ((j = st_pb_next(&e, &g, err)) > 0) {
    if (g.num < 1 || g.num > 3) continue;
    if (g.wire == ST_PB_VARINT) x->u[g.num] = g.u, x->has[g.num] = 1;
    if (g.wire == ST_PB_LEN) x->s[g.num] = g.data, x->sl[g.num] = g.len, x->has[g.num] = 2;
  }
  return j < 0 ? ST_ERR_PROTO : ST_OK;
}

/* CpuTimes {1 cpu_id, 2..9 times in ns}: "CPU <n> cpu.times.<key>" in the
 * CPUs section, after that CPU's frequency and idle tracks. */
static st_code read_cpu_times(st_perfetto_importer *im, st_pb_reader *d, const st_pb_field *f,
                              int64_t ts, uint64_t src, st_error *err) {
  st_pb_reader e, e0;
  st_pb_field g;
  int j;
  uint64_t cpu = 0;
  int has_cpu = 0;
  if (st_pb_enter(d, f, &e, err) != ST_OK) return err->code;
  e0 = e;
  while ((j = st_pb_next(&e, &g, err)) > 0)
    if (g.num == 1 && g.wire == ST_PB_VARINT) cpu = g.u, has_cpu = 1;
  if (j < 0) return ST_ERR_PROTO;
  if (!has_cpu || cpu >= ST_PERFETTO_MAX_CPUS) {
    st_stats_warn(im->stats, "perfetto_cpu_times_without_cpu", src);
    return ST_OK;
  }
  while ((j = st_pb_next(&e0, &g, err)) > 0) {
    if (g.wire != ST_PB_VARINT || g.num < 2 || g.num > 9) continue;
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, "CPU %u cpu.times.%s", (unsigned)cpu, k_cpu_times[g.num]);
    int64_t key = ((int64_t)3 << 20) + (int64_t)cpu * 16 + g.num;
    uint32_t bt = pf_counter_track(im, PF_CPU_PID, tmp, (size_t)n, key);
    if (bt != UINT32_MAX) st_builder_track_sort(im->b, bt, (int32_t)key);
    pf_counter(im, bt, ts, (double)g.u, src);
  }
  return j < 0 ? ST_ERR_PROTO : ST_OK;
}

/* CpuIdleState {1 cpu_id, 2 entries {1 state name, 2 duration_us}}:
 * "cpuidle<cpu>.<state>" (us) in the System section. */
static st_code read_cpuidle(st_perfetto_importer *im, st_pb_reader *d, const st_pb_field *f,
                            int64_t ts, uint64_t src, st_error *err) {
  st_pb_reader e, e0;
  st_pb_field g;
  int j;
  uint64_t cpu = 0;
  if (st_pb_enter(d, f, &e, err) != ST_OK) return err->code;
  e0 = e;
  while ((j = st_pb_next(&e, &g, err)) > 0)
    if (g.num == 1 && g.wire == ST_PB_VARINT) cpu = g.u;
  if (j < 0) return ST_ERR_PROTO;
  while ((j = st_pb_next(&e0, &g, err)) > 0) {
    if (g.num != 2 || g.wire != ST_PB_LEN) continue;
    kv x;
    if (read_kv(&e0, &g, &x, err) != ST_OK) return err->code;
    char tmp[96];
    int n = snprintf(tmp, sizeof tmp, "cpuidle%u.%.*s", (unsigned)(uint32_t)cpu,
                     (int)(x.sl[1] < 64 ? x.sl[1] : 64), x.has[1] == 2 ? (const char *)x.s[1] : "");
    uint32_t id = pf_intern(im, tmp, (size_t)n);
    sys_counter(im, tmp, (size_t)n, SYS_KEY_NAMED + (int64_t)id, ts, (double)x.u[2], src);
  }
  return j < 0 ? ST_ERR_PROTO : ST_OK;
}

/* SysStats (sys_stats.proto), shown as trace_processor's tracks: meminfo
 * (kB -> bytes) and vmstat per key, num_forks, num_irq_total,
 * num_softirq_total, per-irq and per-softirq counts ("num_irq (id: N)"),
 * devfreq (kHz, by device), psi ("psi.cpu.some", ns), thermal zones (by
 * type), cpuidle states and gpufreq in the System section; cpu_stat
 * ("CPU n cpu.times.user_ns", ...) and cpufreq_khz ("CPU n frequency") in
 * the CPUs section. buddy_info (needs the page size) and disk_stat (rates
 * between samples) are counted as not shown, like fields this importer does
 * not know; collection_end_timestamp (9) is when sampling ended, not data. */
st_code pf_read_sys_stats(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                          int64_t ts, uint64_t src, st_error *err) {
  st_pb_reader d;
  st_pb_field f;
  int k;
  uint32_t cpufreq_cpu = 0;
  int buddy = 0, disk = 0, other = 0;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    kv x;
    char tmp[96];
    const char *name = NULL;
    switch (f.num) {
    case 1: /* meminfo */
    case 2: /* vmstat */
      if (f.wire != ST_PB_LEN) break;
      if (read_kv(&d, &f, &x, err) != ST_OK) return err->code;
      if (x.has[2] != 1 || x.u[1] == 0) break;
      if (f.num == 1)
        name = x.u[1] < sizeof k_meminfo / sizeof *k_meminfo ? k_meminfo[x.u[1]] : NULL;
      else
        name = x.u[1] < sizeof k_vmstat / sizeof *k_vmstat ? k_vmstat[x.u[1]] : NULL;
      if (!name) {
        snprintf(tmp, sizeof tmp, "%s.%llu", f.num == 1 ? "meminfo" : "vmstat",
                 (unsigned long long)x.u[1]);
        name = tmp;
      }
      sys_counter(im, name, strlen(name),
                  (f.num == 1 ? SYS_KEY_MEMINFO : SYS_KEY_VMSTAT) + (int64_t)(x.u[1] & 0xFFFFFF),
                  ts, (double)x.u[2] * (f.num == 1 ? 1024.0 : 1.0), src);
      break;
    case 3: /* cpu_stat */
      if (f.wire != ST_PB_LEN) break;
      if (read_cpu_times(im, &d, &f, ts, src, err) != ST_OK) return err->code;
      break;
    case 4:
    case 5:
    case 7: /* num_forks, num_irq_total, num_softirq_total */
      if (f.wire != ST_PB_VARINT) break;
      name = f.num == 4 ? "num_forks" : f.num == 5 ? "num_irq_total" : "num_softirq_total";
      sys_counter(im, name, strlen(name), SYS_KEY_SCALAR + f.num, ts, (double)f.u, src);
      break;
    case 6:
    case 8: { /* num_irq, num_softirq: InterruptCount {1 irq, 2 count} */
      if (f.wire != ST_PB_LEN) break;
      if (read_kv(&d, &f, &x, err) != ST_OK) return err->code;
      int32_t irq = (int32_t)(uint32_t)x.u[1];
      int n = snprintf(tmp, sizeof tmp, "%s (id: %d)", f.num == 6 ? "num_irq" : "num_softirq",
                       (int)irq);
      sys_counter(im, tmp, (size_t)n,
                  (f.num == 6 ? SYS_KEY_IRQ : SYS_KEY_SOFTIRQ) +
                      (int64_t)((uint32_t)irq & 0xFFFFFF),
                  ts, (double)x.u[2], src);
      break;
    }
    case 10:   /* devfreq {1 key, 2 value kHz} */
    case 15: { /* thermal_zone {1 name, 2 temp, 3 type}: named by type */
      if (f.wire != ST_PB_LEN) break;
      if (read_kv(&d, &f, &x, err) != ST_OK) return err->code;
      int si = f.num == 10 ? 1 : x.has[3] == 2 ? 3 : 1;
      size_t n = x.has[si] == 2 ? x.sl[si] : 0;
      if (n > 64) n = 64;
      if (!n) break; /* unnamed: nothing to put it on */
      uint32_t id = pf_intern(im, x.s[si], n);
      sys_counter(im, (const char *)x.s[si], n, SYS_KEY_NAMED + (int64_t)id, ts, (double)x.u[2],
                  src);
      break;
    }
    case 11: /* cpufreq_khz: one per CPU, in order (plain or packed) */
      if (f.wire == ST_PB_VARINT) {
        pf_cpu_counter(im, cpufreq_cpu++, 0, ts, (double)(uint32_t)f.u, src);
      } else if (f.wire == ST_PB_LEN) {
        size_t at = 0;
        while (at < f.len) {
          uint64_t v = 0;
          int shift = 0, done = 0;
          while (at < f.len && shift < 64) {
            uint8_t b = f.data[at++];
            v |= (uint64_t)(b & 0x7F) << shift;
            shift += 7;
            if (!(b & 0x80)) {
              done = 1;
              break;
            }
          }
          if (!done) {
            st_stats_warn(im->stats, "perfetto_packed_truncated", src);
            break;
          }
          pf_cpu_counter(im, cpufreq_cpu++, 0, ts, (double)(uint32_t)v, src);
        }
      }
      break;
    case 12: buddy = 1; break;
    case 13: disk = 1; break;
    case 14: { /* psi {1 resource, 2 total_ns} */
      if (f.wire != ST_PB_LEN) break;
      if (read_kv(&d, &f, &x, err) != ST_OK) return err->code;
      if (x.u[1] >= sizeof k_psi / sizeof *k_psi) {
        snprintf(tmp, sizeof tmp, "psi.%llu", (unsigned long long)x.u[1]);
        name = tmp;
      } else {
        snprintf(tmp, sizeof tmp, "psi.%s", k_psi[x.u[1]]);
        name = tmp;
      }
      sys_counter(im, name, strlen(name), SYS_KEY_PSI + (int64_t)(x.u[1] & 0xFFFFFF), ts,
                  (double)x.u[2], src);
      break;
    }
    case 16: /* cpuidle_state */
      if (f.wire != ST_PB_LEN) break;
      if (read_cpuidle(im, &d, &f, ts, src, err) != ST_OK) return err->code;
      break;
    case 17: /* gpufreq_mhz (plain; packed: each value) */
      if (f.wire == ST_PB_VARINT)
        sys_counter(im, "gpufreq", 7, SYS_KEY_GPUFREQ, ts, (double)f.u, src);
      else
        other = 1;
      break;
    case 9: break; /* collection_end_timestamp: when sampling ended */
    default: other = 1; break;
    }
    if (im->nomem) break;
  }
  if (k < 0) return ST_ERR_PROTO;
  if (buddy) pf_not_shown(im, PF_PART_SYS_BUDDY_INFO, src);
  if (disk) pf_not_shown(im, PF_PART_SYS_DISK_STAT, src);
  if (other) pf_not_shown(im, PF_PART_SYS_OTHER, src);
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* ==== FrameTimeline ====================================================== */

static void frame_emit(st_perfetto_importer *im, const pframe *fr, int64_t end, uint8_t flags) {
  const char *tn = fr->actual ? "Actual Timeline" : "Expected Timeline";
  uint32_t p = pf_builder_process(im, fr->pid);
  if (p == UINT32_MAX) return;
  uint32_t bt = st_builder_track(im->b, p, ST_TRACK_ASYNC, -0x300000000LL - fr->actual,
                                 pf_intern(im, tn, strlen(tn)));
  if (bt == UINT32_MAX) {
    im->nomem = 1;
    return;
  }
  st_builder_track_sort(im->b, bt, -8 + fr->actual);
  if (end < fr->ts) st_stats_warn(im->stats, "negative_duration", fr->src);
  st_stats_time(im->stats, fr->ts, end < fr->ts ? fr->ts : end);
  im->stats->async_slices++;
  pf_emit(im, bt, fr->ts, end - fr->ts, fr->name, ST_STR_EMPTY, fr->src, flags);
}

st_code pf_read_frame_timeline(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                               int64_t ts, uint64_t src, st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num < 1 || f.num > 5 || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
    int64_t cookie = 0, token = 0, pid = -1;
    uint32_t pid_field = f.num <= 2 ? 3u : 4u;
    while ((j = st_pb_next(&e, &g, err)) > 0) {
      if (g.wire != ST_PB_VARINT) continue;
      if (g.num == 1) cookie = st_pb_i64(g.u);
      if (g.num == 2) token = st_pb_i64(g.u);
      if (g.num == pid_field) pid = (int64_t)(int32_t)(uint32_t)g.u;
    }
    if (j < 0) return ST_ERR_PROTO;
    if (f.num == 5) { /* FrameEnd: the frame with this cookie ends */
      uint32_t i = im->nframes;
      while (i > 0 && im->frames[i - 1].cookie != cookie) i--;
      if (!i) {
        st_stats_warn(im->stats, "perfetto_frame_end_without_start", src);
        continue;
      }
      pframe fr = im->frames[i - 1];
      im->frames[i - 1] = im->frames[--im->nframes];
      frame_emit(im, &fr, ts, 0);
      continue;
    }
    if (pid < 0) {
      st_stats_warn(im->stats, "perfetto_frame_without_pid", src);
      continue;
    }
    if (im->nframes == im->cap_frames) {
      if (im->cap_frames > 65536 / 2) { /* frames that never end: keep the importer bounded */
        st_stats_warn(im->stats, "perfetto_frames_never_ended", src);
        continue;
      }
      void *p = im->frames;
      if (!st_grow32(&im->alloc, &p, &im->cap_frames, im->nframes + 1, sizeof *im->frames, 16))
        return pf_nomem(im, src, err);
      im->frames = p;
    }
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)token);
    im->frames[im->nframes++] =
        (pframe){cookie, pid, ts, src, pf_intern(im, tmp, (size_t)n), (uint8_t)(f.num % 2 == 0)};
  }
  if (k < 0) return ST_ERR_PROTO;
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* ==== the end: names and order =========================================== */

static int name_less(const st_perfetto_importer *im, uint32_t a, int64_t ka, uint32_t b,
                     int64_t kb) {
  size_t na, nb;
  const char *sa = st_strtab_get(im->strs, a, &na), *sb = st_strtab_get(im->strs, b, &nb);
  if (!na != !nb) return na != 0; /* named first */
  int c = memcmp(sa, sb, na < nb ? na : nb);
  if (c) return c < 0;
  if (na != nb) return na < nb;
  return ka < kb;
}

typedef struct rank_key {
  uint32_t name;
  int64_t key;
  uint32_t index;
} rank_key;

/* n keys by (name, key), stable */
static int key_less(const st_perfetto_importer *im, const rank_key *a, const rank_key *b) {
  return name_less(im, a->name, a->key, b->name, b->key);
}
ST_DEFINE_MERGE_SORT_CTX(sort_keys, rank_key, const st_perfetto_importer *, key_less)

static uint32_t thread_label(st_perfetto_importer *im, const pthr *t, int states) {
  size_t n;
  const char *s = st_strtab_get(im->strs, t->name, &n);
  char tmp[320];
  int m = n ? snprintf(tmp, sizeof tmp, "%.*s %lld%s", (int)(n > 256 ? 256 : n), s,
                       (long long)t->tid, states ? " state" : "")
            : snprintf(tmp, sizeof tmp, "Thread %lld%s", (long long)t->tid, states ? " state" : "");
  return m > 0 ? pf_intern(im, tmp, (size_t)m < sizeof tmp ? (size_t)m : sizeof tmp - 1)
               : ST_STR_EMPTY;
}

void pf_system_finish(st_perfetto_importer *im) {
  /* frames that never ended run to the trace end */
  for (uint32_t i = 0; i < im->nframes; i++)
    frame_emit(im, &im->frames[i], im->frames[i].ts, ST_EV_UNFINISHED);
  im->nframes = 0;
  size_t n = im->nprocs > im->nthr ? im->nprocs : im->nthr;
  if (!n) return;
  rank_key *keys = st_malloc(&im->alloc, n * sizeof *keys);
  rank_key *tmp = st_malloc(&im->alloc, n * sizeof *tmp);
  if (!keys || !tmp) {
    im->nomem = 1;
    st_free(&im->alloc, keys);
    st_free(&im->alloc, tmp);
    return;
  }
  /* processes: name (else the main thread's), then order by (name, pid) */
  size_t k = 0;
  for (uint32_t i = 0; i < im->nprocs; i++) {
    pproc *p = &im->procs[i];
    if (p->bproc == UINT32_MAX) continue;
    if (p->name == ST_STR_EMPTY) {
      uint32_t ti = st_u64map_get(&im->thr_map, (uint64_t)p->pid);
      if (ti != ST_U64MAP_NONE) p->name = im->thr[ti].name;
    }
    if (p->name != ST_STR_EMPTY) st_builder_process_name(im->b, p->bproc, p->name);
    keys[k++] = (rank_key){p->name, p->pid, i};
  }
  sort_keys(im, keys, tmp, k);
  for (size_t r = 0; r < k; r++)
    st_builder_process_sort(im->b, im->procs[keys[r].index].bproc, pf_clamp32((int64_t)r + 1));
  /* threads: labels, then order by (name, tid) within their process */
  k = 0;
  for (uint32_t i = 0; i < im->nthr; i++) {
    pthr *t = &im->thr[i];
    if (t->slice_bt == UINT32_MAX && t->state_bt == UINT32_MAX) continue;
    if (t->slice_bt != UINT32_MAX)
      st_builder_track_name(im->b, t->slice_bt, thread_label(im, t, 0));
    t = &im->thr[i];
    if (t->state_bt != UINT32_MAX)
      st_builder_track_name(im->b, t->state_bt, thread_label(im, t, 1));
    t = &im->thr[i];
    keys[k++] = (rank_key){t->name, t->tid, i};
  }
  sort_keys(im, keys, tmp, k);
  for (size_t r = 0; r < k; r++) {
    const pthr *t = &im->thr[keys[r].index];
    int64_t base = THREAD_SORT_BASE + 2 * (int64_t)r;
    if (t->state_bt != UINT32_MAX) st_builder_track_sort(im->b, t->state_bt, pf_clamp32(base));
    if (t->slice_bt != UINT32_MAX) st_builder_track_sort(im->b, t->slice_bt, pf_clamp32(base + 1));
  }
  st_free(&im->alloc, keys);
  st_free(&im->alloc, tmp);
  /* args on selection: who each thread is (CPU slices show it) */
  if (im->args)
    for (uint32_t i = 0; i < im->nthr; i++) {
      const pthr *t = &im->thr[i];
      int64_t pid = t->tgid >= 0 ? t->tgid : t->tid;
      uint32_t pi = st_u64map_get(&im->proc_map, (uint64_t)pid);
      uint32_t pname = pi != ST_U64MAP_NONE ? im->procs[pi].name : ST_STR_EMPTY;
      size_t tl, pl;
      const char *ts = st_strtab_get(im->strs, t->name, &tl);
      const char *ps = st_strtab_get(im->strs, pname, &pl);
      if (st_argsrc_perfetto_thread(im->args, t->tid, pid, (const uint8_t *)ts, tl,
                                    (const uint8_t *)ps, pl) != ST_OK)
        im->nomem = 1;
    }
}
