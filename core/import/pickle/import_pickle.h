/* import_pickle.h: PyTorch memory snapshots (the pickle
 * torch.cuda.memory._dump_snapshot writes) as a trace (issue 34), read
 * with the restricted reader pickle.h (nothing is executed; a pickle that
 * is not plain data is refused with its byte offset).
 *
 * The snapshot is {"segments": [{"device", "address", "total_size",
 * "blocks": [{"address", "size", "state", "frames"}], ...}],
 * "device_traces": [[{"action", "addr", "size", "stream", "time_us",
 * "frames": [{"filename", "line", "name"}]}], ...]} (one trace list per
 * device, its index the device). Per device with entries, a process "GPU
 * <d> (memory snapshot)" (pid d) holds:
 *   - "Active memory (GPU d)": a counter, the bytes of the blocks active
 *     after each entry (memory_viz's Active Memory Timeline's total);
 *   - "Reserved memory (GPU d)": the segments' bytes (segment_alloc /
 *     segment_map add, segment_free / segment_unmap subtract; the segments
 *     listed at the snapshot's end give the level before the trace);
 *   - "Active blocks (GPU d)": each block a slice from its `alloc` to its
 *     `free_completed` (or the trace's end), named after its top frame
 *     ("name (file:line)", the first of its frames; "" without frames) so
 *     blocks of one place share a colour, its category the whole stack,
 *     packed into lanes (the first lane free at its start). A block freed
 *     in the trace but never allocated in it, and a block active in the
 *     segments at the end that the trace did not allocate, existed before
 *     the trace: from its first entry's time. A memory blocks track
 *     (trace.h st_track.block_span, st_block): memory_viz's Active Memory
 *     Timeline stacked by address, each block drawn at its place in the
 *     device's address space laid end to end (the address ranges known,
 *     sorted and merged where they overlap or touch, one after the other
 *     without the gaps between them: the segments listed at the end, those
 *     the trace allocates (segment_alloc / segment_map) and any block
 *     outside them), as high as its bytes;
 *   - "Allocation stacks (GPU d)": a sample at each allocation whose stack
 *     is the block's frames (the details pane's call stack, flame graphs).
 * Every block is also a memory event (trace.h st_mem_event, op = its top
 * frame; pre-existing blocks allocated at the first entry's time), so
 * core/analysis/memory.h gives the peak of the active bytes, the blocks live
 * at it by top frame and those never freed, as for a profile.
 * Times: time_us is the allocator's clock (microseconds since the Unix
 * epoch, as Kineto's), so a snapshot and a profile of the same run line up
 * by their clocks; entries without time_us are placed 1 us apart in order
 * (a warning). src of every event: the index of its entry in its device's
 * list (a block listed in the segments at the end: bit 39 set and its
 * place among them; the model keeps no byte offsets of a pickle; it has
 * no args). */
#ifndef STRATA_IMPORT_PICKLE_H
#define STRATA_IMPORT_PICKLE_H

#include "base.h"
#include "stats.h"
#include "trace.h"

typedef struct st_pickle_imp st_pickle_imp;

st_pickle_imp *st_pickle_imp_create(const st_alloc *a, st_builder *b, st_stats *stats);
void st_pickle_imp_destroy(st_pickle_imp *im);
/* The bytes are kept until finish (a pickle is read whole). */
st_code st_pickle_imp_push(st_pickle_imp *im, const uint8_t *data, size_t len, st_error *err);
st_code st_pickle_imp_finish(st_pickle_imp *im, st_error *err);
int st_pickle_imp_has_trace(const st_pickle_imp *im);
const char *st_pickle_imp_metadata_json(const st_pickle_imp *im);
void st_pickle_imp_release(st_pickle_imp *im);

#endif
