/* chrome_samples.h: CPU samples in Chrome trace JSON -> sample events on
 * thread sample tracks (trace.h "samples") and the frame table (frames.h).
 * Part of the JSON importer's semantics (chrome_semantics.h calls in).
 *
 * What is read (FORMATS.md §1.1, §1.4 "P — sample"):
 *   - V8 CPU profiles: a `P` event named "Profile" (id, args.data.startTime
 *     in us) starts a profile on its thread; "ProfileChunk" events of the
 *     same pid and id carry args.data.cpuProfile.nodes ({id, parent,
 *     callFrame.functionName}, or the older `children` lists) and
 *     cpuProfile.samples (node ids) with args.data.timeDeltas (us, may be
 *     negative): sample i lies at startTime + the sum of deltas 0..i, on
 *     the Profile event's thread (the chunks are written by the profiler's
 *     own thread). Node ids are per (pid, profile id) and may refer to
 *     nodes of earlier chunks. A chunk without a Profile starts one at its
 *     own ts on its own thread ("profile_chunk_without_profile").
 *   - The older whole-profile event "CpuProfile" (ph P, or I as Chrome
 *     wrote it before M66): args.data.cpuProfile {nodes (children lists),
 *     samples, timeDeltas, startTime}: a profile of its own on its thread.
 *   - Other `P` events: one sample on the event's thread at ts, leaf frame
 *     `sf` (into the top-level stackFrames) or else the event's name.
 *   - Top-level `samples` [{pid, tid, ts, name, sf, weight, cpu}]: the same
 *     (weight is not kept: every sample counts once).
 *   - Top-level `stackFrames` {id: {name, category, parent}}: frames for
 *     `sf`. It may come before or after the samples that use it, so
 *     samples with `sf` are resolved at the end of input. Ids compare by
 *     value: "12" and 12 are the same frame.
 * Function names: callFrame.functionName, "(anonymous)" if empty.
 * Warnings: profile_chunk_without_profile, sample_unknown_node,
 * sample_unknown_frame, stack_frame_unknown_parent, samples_without_time.
 *
 * Nothing is allocated for a trace without samples.
 */
#ifndef STRATA_CHROME_SAMPLES_H
#define STRATA_CHROME_SAMPLES_H

#include "chrome_semantics.h"

/* A `P` event of process pi (the semantics has counted it), or an
 * instant named "CpuProfile". */
void st_chrome_samples_event(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi);
/* One element of the top-level `samples` array (an object parsed like an
 * event). */
void st_chrome_samples_global(st_chrome_sem *sem, const st_chrome_ev *e);
/* One member of the top-level `stackFrames` object: key, value [v, vend). */
void st_chrome_samples_frame(st_chrome_sem *sem, st_json_str key, const char *v, const char *vend);
/* End of input: resolves and adds the samples that name stackFrames. */
void st_chrome_samples_close(st_chrome_sem *sem);
void st_chrome_samples_free(st_chrome_sem *sem);

#endif
