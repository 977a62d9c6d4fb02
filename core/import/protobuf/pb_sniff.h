/* pb_sniff.h: tells a Perfetto trace from an XSpace when the decoded input
 * starts with 0x0A (both do: Trace.packet and XSpace.planes are field 1,
 * LEN). The loader asks only when the file name gives no hint.
 *
 * Rule, looking inside the first field-1 message (as far as the sniffed
 * bytes go):
 *   - its first field is 1 with wire type VARINT (XPlane.id; TracePacket
 *     field 1 is ftrace_events, a message), or
 *   - a field 2 (LEN) whose text starts with "/device:", "/host:",
 *     "/custom:" or "Task Environment" (an XPlane name; TracePacket field 2
 *     is process_tree, a message that starts with 0x0A)
 *   -> XSpace. Everything else -> Perfetto (TracePacket field numbers such
 *   as 8/10/11/12/13/41/58/59/60/87 are the usual first fields).
 */
#ifndef STRATA_PB_SNIFF_H
#define STRATA_PB_SNIFF_H

#include "base.h"

typedef enum st_pb_kind { ST_PB_PERFETTO = 0, ST_PB_XSPACE = 1 } st_pb_kind;

st_pb_kind st_pb_sniff(const uint8_t *data, size_t len);

#endif
