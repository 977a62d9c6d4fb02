/* perfetto_internal.h: what the pieces of the Perfetto importer share
 * (private to import_perfetto.c, perfetto_track_event.c, perfetto_system.c,
 * perfetto_ftrace.c, perfetto_sched.c, perfetto_android.c and
 * perfetto_common.c; nothing else includes it).
 *
 *   import_perfetto.c       packets, sequences, clocks, compressed packets,
 *                           what is not shown, the public API
 *   perfetto_track_event.c  TrackDescriptor tracks and TrackEvent slices,
 *                           counters, flows, interning, packet defaults
 *   perfetto_system.c       ProcessTree, ProcessStats / SysStats counters,
 *                           FrameTimeline; at the end thread and process
 *                           names and section order
 *   perfetto_ftrace.c       FtraceEventBundle (FtraceEvent list and
 *                           compact_sched) -> staged scheduling records
 *   perfetto_sched.c        at the end: staged records in time order ->
 *                           CPU tracks, thread states, atrace slices
 *   perfetto_android.c      Android system packets: battery counters,
 *                           power rails, entity state residency, statsd
 *                           atoms, network packets
 *   perfetto_common.c       what all of them use: errors, interning, the
 *                           "not shown" count, the thread and process
 *                           registry, counters (the per-event helpers, the
 *                           trace clock and slices, are inline below)
 *
 * Call order: a file calls only the files below it, never one above.
 *
 *   import_perfetto.c -> perfetto_track_event.c, perfetto_system.c,
 *                        perfetto_ftrace.c, perfetto_sched.c,
 *                        perfetto_android.c
 *   perfetto_track_event.c -> perfetto_android.c (InternedData's network
 *                        packet contexts)
 *   perfetto_ftrace.c -> perfetto_sched.c (a bundle's staged run)
 *   every file        -> perfetto_common.c (and perfetto_clock.c,
 *                        perfetto_states.c, which call nothing here)
 *
 * A helper that two parts need goes into perfetto_common.c, not into the
 * part that needed it first.
 */
#ifndef STRATA_PERFETTO_INTERNAL_H
#define STRATA_PERFETTO_INTERNAL_H

#include "argsrc.h"
#include "import_perfetto.h"
#include "pb_stream.h"
#include "pb_wire.h"
#include "perfetto_clock.h"
#include "seen.h"
#include "u64map.h"

/* ---- TrackEvent state ------------------------------------------------------ */
enum { TK_UNKNOWN = 0, TK_PROCESS, TK_THREAD, TK_COUNTER, TK_CUSTOM };

typedef struct open_slice {
  int64_t ts;
  uint64_t src;
  uint32_t name, cat;
} open_slice;

typedef struct pend_ev { /* an event on a track whose descriptor has not come yet */
  int64_t ts, dur;
  uint64_t src, end_src; /* end_src: UINT64_MAX if none */
  double value;          /* counter: the raw value */
  uint32_t name, cat;
  uint8_t flags, counter;
} pend_ev;

typedef struct ptrack {
  uint64_t uuid, parent;
  uint8_t kind, has_parent, incremental, child_order; /* child_ordering of its children */
  int64_t pid, tid;
  uint32_t name;
  uint32_t unit;    /* a counter's unit (CounterDescriptor): "ns", "B", unit_name; "" if none */
  uint32_t order;   /* descriptor order */
  int32_t rank;     /* sibling_order_rank */
  int64_t first_ts; /* first event's time (CHRONOLOGICAL ordering) */
  uint8_t has_first;
  uint32_t btrack; /* builder track, UINT32_MAX until used */
  double mult, acc;
  open_slice *stack;
  uint32_t depth, cap;
  pend_ev *pend; /* events held until the descriptor says where they go */
  uint32_t npend, cap_pend;
} ptrack;

typedef struct pseq {
  uint8_t valid; /* incremental state usable */
  st_u64map names, cats;
  uint8_t has_def_track, has_def_clock;
  uint64_t def_track;
  uint32_t def_clock;
  uint64_t *def_extra; /* extra counter track uuids: ints then doubles */
  uint32_t ndef_int, ndef_dbl, cap_def;
  uint32_t legacy_track; /* ptrack of a legacy ThreadDescriptor, UINT32_MAX */
} pseq;

typedef struct pflow {
  uint64_t id;
  uint8_t terminating;
} pflow;

/* ---- system data ----------------------------------------------------------- */
/* A staged scheduling / atrace record (perfetto_ftrace.c stages, perfetto_sched.c
 * replays them in time order at the end: per-CPU bundles overlap in time, so
 * a thread's events from two CPUs arrive out of order, as trace_processor's
 * sorter also handles). */
enum {
  FEV_SWITCH = 1,    /* cpu: prev tid `a` leaves (state `b`), `tid` (comm str) runs */
  FEV_WAKING,        /* tid (comm str) becomes runnable (target cpu in cpu) */
  FEV_NEWTASK,       /* tid (comm str) created by thread `a`; b = 1: same process */
  FEV_RENAME,        /* tid renamed to str */
  FEV_SLICE_BEGIN,   /* atrace B: thread tid of process a, name str */
  FEV_SLICE_END,     /* atrace E: thread tid (of process a, or 0) */
  FEV_ASYNC_BEGIN,   /* atrace S: process a, name str, cookie tid */
  FEV_ASYNC_END,     /* atrace F: process a, name str, cookie tid */
  FEV_TRACK_INSTANT, /* atrace N: process a, track str, name back */
  FEV_TRACK_BEGIN,   /* atrace G: process a, track str, name back, cookie tid;
                        b = 1: the System section's track (suspend_resume) */
  FEV_TRACK_END      /* atrace H: process a, track str, cookie tid (b = 1: name back) */
};

typedef struct fev {
  int64_t ts;
  uint64_t src; /* switch: the next thread's (next_pid); others: the event's */
  int32_t tid, a;
  uint32_t str;
  uint32_t back; /* switch: src - back = the previous thread's (prev_state); 0: none;
                    track events: the slice name */
  uint16_t cpu;
  uint8_t kind, b;
} fev;
_Static_assert(sizeof(fev) == 32 + 8, "fev is 40 bytes");

#include "perfetto_states.h"

/* name priorities: a later name replaces an earlier one of lower or equal priority */
enum { NAME_NONE = 0, NAME_FTRACE = 1, NAME_PROCESS_TREE = 2, NAME_DESCRIPTOR = 3 };

typedef struct frun { /* the staged records of one bundle, sorted by time */
  size_t start, end;
  int64_t first, last;
  uint32_t cpu;
} frun;

typedef struct pthr { /* a thread (tid) known from any source */
  int64_t tid, tgid;  /* tgid: -1 until known */
  uint32_t name;
  uint8_t name_prio;
  uint8_t state;    /* replay: current state (TS_*) */
  int64_t state_ts; /* replay: since when */
  uint64_t state_src;
  uint32_t cpu_name, cpu_name_of; /* "comm tid" for CPU slices, and the comm it was made of */
  open_slice *stack;              /* atrace B/E */
  uint32_t depth, cap;
  uint32_t slice_bt, state_bt; /* builder tracks, UINT32_MAX until made */
} pthr;

typedef struct pproc { /* a process (pid) known from any source */
  int64_t pid;
  uint32_t name;
  uint8_t name_prio;
  uint32_t bproc; /* builder process, UINT32_MAX until made */
} pproc;

typedef struct pframe { /* an open FrameTimeline frame (until its FrameEnd) */
  int64_t cookie, pid, ts;
  uint64_t src;
  uint32_t name;
  uint8_t actual;
} pframe;

typedef struct pcpu { /* replay: what runs on one CPU */
  int64_t tid;        /* -1: unknown */
  int64_t start;
  uint64_t src;
  uint32_t name;
  uint8_t open;
} pcpu;

typedef struct pasync { /* an open atrace async slice (S, or G on a named track) */
  int64_t pid;
  uint32_t name;
  int32_t cookie;
  int64_t ts;
  uint64_t src;
  uint32_t track; /* G: the track's name; S: UINT32_MAX */
  uint8_t sys;    /* on the System section's track (suspend_resume) */
} pasync;

typedef struct pnet { /* a network packet (or bundle), named at the end */
  int64_t ts, dur;
  uint64_t src;
  uint32_t bt, uid;
} pnet;

typedef struct pnetctx { /* an interned NetworkPacketContext (InternedData 30) */
  uint64_t seq, iid;
  uint32_t iface, uid;
  uint8_t dir;
} pnetctx;

typedef struct skipped {
  uint32_t field;
  uint64_t count;
} skipped;

#define MAX_SKIPPED 64
#define ST_PERFETTO_MAX_CPUS 1024

struct st_perfetto_importer {
  st_alloc alloc;
  st_builder *b;
  st_stats *stats;
  st_strtab *strs;
  st_pb_stream *stream;
  st_argsrc *args;  /* interned annotation names for args on selection, or NULL */
  uint64_t cur_seq; /* trusted_packet_sequence_id of the packet being read */
  uint64_t pkt_src; /* offset of the packet being read (its blob's inside compressed_packets) */
  /* TrackEvent */
  ptrack *tracks;
  uint32_t ntracks, cap_tracks;
  /* the builder process gathering the tracks without a descriptor (+1; 0:
   * none yet) and how many it holds */
  uint32_t undescribed_proc1, undescribed;
  st_u64map track_map; /* uuid -> index */
  pseq *seqs;
  uint32_t nseqs, cap_seqs;
  st_u64map seq_map; /* sequence id -> index */
  pflow *fids;       /* flow ids of the event being read */
  uint32_t nfids, cap_fids;
  st_seen track_seen, proc_seen; /* builder tracks / processes counted */
  uint8_t resolve_all; /* the end: tracks still without descriptor are placed as they are */
  /* clocks */
  st_pclock *clocks;
  uint64_t trace_clock; /* clock every timestamp is converted to */
  uint8_t clock_used;   /* a timestamp was converted: the trace clock is fixed */
  /* system data */
  fev *fevs;
  size_t nfevs, cap_fevs;
  frun *runs; /* one per bundle: each CPU's runs follow each other in time */
  size_t nruns, cap_runs;
  fev *run_tmp; /* scratch for sorting one bundle's records */
  size_t cap_run_tmp;
  struct pf_replay *replay; /* the replay's state (perfetto_sched.c) */
  uint64_t staging_limit;   /* st_perfetto_set_staging_limit (0: all staged until the end) */
  uint64_t staging_next;    /* the staged records at which the next flush is tried */
  int64_t *cpu_last;        /* with a limit, per CPU: the latest time staged so far */
  uint32_t ncpu_last;
  pthr *thr;
  uint32_t nthr, cap_thr;
  st_u64map thr_map; /* tid -> index */
  pproc *procs;
  uint32_t nprocs, cap_procs;
  st_u64map proc_map; /* pid -> index */
  uint32_t max_cpu;   /* highest CPU seen + 1 */
  pframe *frames;
  uint32_t nframes, cap_frames;
  /* Android system packets (perfetto_android.c) */
  st_u64map rail_map;   /* PowerRails descriptor index -> builder counter track */
  st_u64map entity_map; /* (entity_index << 32 | state_index) -> builder counter track */
  pnetctx *netctx;      /* interned network packet contexts */
  uint32_t nnetctx, cap_netctx;
  st_u64map netctx_map; /* (sequence, iid) hash -> index */
  pnet *nets;           /* network packets, named at the end by their uid's package */
  size_t nnets, cap_nets;
  st_u64map pkg_map;  /* packages_list: uid -> package name (string id) */
  uint64_t pkg_lists; /* packages_list packets (not shown if no network packet uses them) */
  uint64_t pkg_src;   /* the first one's offset */
  /* what is not shown */
  skipped skips[MAX_SKIPPED];
  uint32_t nskips;
  uint64_t skipped_total;
  uint64_t ftrace_other; /* ftrace events of kinds not shown */
  uint64_t shown;        /* events drawn (slices, counter samples, states) */
  /* compressed packets */
  uint8_t *zbuf;
  size_t zcap;
  int in_compressed;
  char *meta_json;
  int has_trace, nomem;
  st_pb_status status; /* the first error, kept */
};

/* ---- import_perfetto.c ---- */
/* The global id of clock id as used on sequence seq. */
uint64_t pf_clock_id(uint64_t seq, uint32_t id);

/* ---- perfetto_track_event.c ---- */
uint32_t pf_track_get(st_perfetto_importer *im, uint64_t uuid, int create);
st_code pf_read_track_descriptor(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                                 st_error *err);
st_code pf_read_pt_desc(st_pb_reader *r, const st_pb_field *f, int64_t *pid, int64_t *tid,
                        const uint8_t **name, size_t *nlen, int thread, st_error *err);
st_code pf_read_interned(st_perfetto_importer *im, pseq *s, st_pb_reader *r, const st_pb_field *df,
                         st_error *err);
st_code pf_read_defaults(st_perfetto_importer *im, pseq *s, st_pb_reader *r, const st_pb_field *df,
                         st_error *err);
st_code pf_read_track_event(st_perfetto_importer *im, pseq *s, st_pb_reader *r,
                            const st_pb_field *ef, int has_ts, int64_t ts, uint64_t src,
                            st_error *err);
void pf_close_track_events(st_perfetto_importer *im);
/* Places the held events of tracks that never got a descriptor (the end). */
void pf_flush_pending(st_perfetto_importer *im);
void pf_order_tracks(st_perfetto_importer *im);
void pf_name_unnamed_tracks(st_perfetto_importer *im);
void pf_name_undescribed(st_perfetto_importer *im);
void pf_seq_clear(pseq *s);

/* ---- perfetto_ftrace.c ---- */
st_code pf_read_ftrace_bundle(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *bf,
                              uint64_t seq, st_error *err);

/* ---- perfetto_sched.c ---- */
/* Sorts the records staged since `start` (one bundle of CPU cpu) by time
 * and records them as a run. */
void pf_sched_close_run(st_perfetto_importer *im, uint32_t cpu, size_t start);
/* Replays the staged records: CPU slices, thread states, atrace slices. */
void pf_sched_finish(st_perfetto_importer *im);
/* A run of CPU cpu closed, its latest record at `last`: with a staging
 * limit, the records no CPU can still precede are replayed once the
 * staged ones reach it. */
void pf_sched_note_run(st_perfetto_importer *im, uint32_t cpu, int64_t last);
/* Frees the staged records and the replay's state. */
void pf_sched_free(st_perfetto_importer *im);

/* ---- perfetto_android.c ---- */
/* TracePacket 38 battery, 40 power_rails, 91 entity_state_residency,
 * 84 statsd_atom, 88 network_packet, 92 network_packet_bundle, 47
 * packages_list (ts: the packet's time in the trace clock). */
st_code pf_read_android(st_perfetto_importer *im, uint32_t field, st_pb_reader *r,
                        const st_pb_field *f, int64_t ts, uint64_t src, st_error *err);
/* At the end: network packets named (package or uid), an unused
 * packages_list counted as not shown. */
void pf_android_finish(st_perfetto_importer *im);
/* InternedData.packet_context (30) of sequence seq. */
st_code pf_read_net_context(st_perfetto_importer *im, uint64_t seq, st_pb_reader *r,
                            const st_pb_field *f, st_error *err);

/* ---- perfetto_system.c ---- */
st_code pf_read_process_tree(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *f,
                             st_error *err);
st_code pf_read_process_stats(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *f,
                              int64_t ts, uint64_t src, st_error *err);
st_code pf_read_sys_stats(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *f,
                          int64_t ts, uint64_t src, st_error *err);
st_code pf_read_frame_timeline(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *f,
                               int64_t ts, uint64_t src, st_error *err);
/* Names threads' and processes' tracks and orders sections (at the end). */
void pf_system_finish(st_perfetto_importer *im);

/* ---- perfetto_common.c ---- */
uint32_t pf_intern(st_perfetto_importer *im, const void *s, size_t n);
st_code pf_nomem(st_perfetto_importer *im, uint64_t at, st_error *err);
int32_t pf_clamp32(int64_t v);
/* Counts a packet (TracePacket field number) or a part of one (PF_PART_*)
 * in the "not shown" line (import_perfetto.c names them). */
#define PF_PART_SYS_BUDDY_INFO 1012u /* SysStats.buddy_info: needs the page size */
#define PF_PART_SYS_DISK_STAT 1013u  /* SysStats.disk_stat: rates between samples */
#define PF_PART_SYS_OTHER 1099u      /* SysStats fields this importer does not know */
#define PF_PART_PROC_FDS 1115u       /* ProcessStats.Process.fds: open files, no counter */
#define PF_PART_PROC_OTHER 1199u     /* ProcessStats.Process fields not known */
void pf_not_shown(st_perfetto_importer *im, uint32_t field, uint64_t at);

pthr *pf_thread(st_perfetto_importer *im, int64_t tid); /* find or create; NULL: no memory */
pproc *pf_process(st_perfetto_importer *im, int64_t pid);
void pf_thread_name(st_perfetto_importer *im, int64_t tid, uint32_t name, uint8_t prio);
void pf_thread_tgid(st_perfetto_importer *im, int64_t tid, int64_t tgid);
void pf_process_name(st_perfetto_importer *im, int64_t pid, uint32_t name, uint8_t prio);
/* The builder process of pid, made on first use. */
uint32_t pf_builder_process(st_perfetto_importer *im, int64_t pid);
/* The builder track of thread tid's slices / states, in its process. */
uint32_t pf_thread_track(st_perfetto_importer *im, pthr *t, int states);

/* pids of the CPU and System sections (synthetic, negative keys: not shown) */
#define PF_CPU_PID ((int64_t)-0x1000000000000000LL)
#define PF_SYS_PID ((int64_t)-0x1000000000000001LL)
#define PF_POWER_PID ((int64_t)-0x1000000000000002LL) /* "Power": battery, rails, residency */
#define PF_NET_PID ((int64_t)-0x1000000000000003LL)   /* "Network": packets per interface */
/* The builder process of a synthetic section (PF_*_PID), named and placed
 * first (CPUs, System, Power, Network); UINT32_MAX: no memory. */
uint32_t pf_section(st_perfetto_importer *im, int64_t pid);
/* A counter track of the process (pid >= 0) or of a synthetic section. */
uint32_t pf_counter_track(st_perfetto_importer *im, int64_t pid, const char *name, size_t n,
                          int64_t key);
void pf_counter(st_perfetto_importer *im, uint32_t bt, int64_t ts, double v, uint64_t src);
/* A counter of the CPUs section: "CPU <cpu> frequency" (kHz) or "idle". */
void pf_cpu_counter(st_perfetto_importer *im, uint32_t cpu, int idle, int64_t ts, double v,
                    uint64_t src);

/* ---- hot helpers of every part, inline (a call per event; no LTO) ---- */

/* A timestamp in clock id (global) -> trace clock ns; 0 (and a counted
 * warning) if it cannot be converted: the caller drops the event. */
static inline int pf_to_trace(st_perfetto_importer *im, uint64_t clock, int64_t raw, uint64_t at,
                              int64_t *out) {
  im->clock_used = 1;
  if (clock == im->trace_clock) {
    *out = raw;
    return 1;
  }
  int64_t ns;
  if (st_pclock_to_ns(im->clocks, clock, raw, &ns) &&
      st_pclock_convert(im->clocks, clock, ns, im->trace_clock, out))
    return 1;
  st_stats_warn(im->stats, "perfetto_clock_not_converted", at);
  return 0;
}

/* A slice on builder track bt (UINT32_MAX: none, nothing happens). */
static inline void pf_emit(st_perfetto_importer *im, uint32_t bt, int64_t ts, int64_t dur,
                           uint32_t name, uint32_t cat, uint64_t src, uint8_t flags) {
  if (bt == UINT32_MAX) return;
  st_code c = st_builder_slice(im->b, bt, ts, dur, name, cat, src, flags);
  if (c == ST_ERR_NOMEM)
    im->nomem = 1;
  else if (c != ST_OK)
    st_stats_warn(im->stats, "track_event_limit", src);
  else
    im->shown++;
}

#endif
