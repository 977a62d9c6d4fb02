#!/usr/bin/env python3
"""gen_big_memory.py OUT.json N [--memory-share F] [--rename]
A Kineto-like trace of about N events for the load-time bound of issue 34
item 4: one thread's cpu_op slices (parent + child) with `[memory]`
instants inside them (F of all events, default 0.1: an alloc then its free
on one of two devices). --rename writes the same bytes with the instants
named "[memorx]" (plain instants): the load-time difference is what the
memory tracks cost."""
import sys

out, n = sys.argv[1], int(sys.argv[2])
share = float(sys.argv[sys.argv.index("--memory-share") + 1]) if "--memory-share" in sys.argv else 0.1
name = "[memorx]" if "--rename" in sys.argv else "[memory]"
with open(out, "w") as f:
    f.write('{"traceEvents":[\n{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"python"}}')
    t, i, total = 1700000000000000, 0, [0, 0]
    per_group = 2 + (2 if share > 0 else 0)
    groups = n // per_group
    mem_every = max(1, int(round(2 / (share * per_group)))) if share > 0 else 0
    for g in range(groups):
        f.write(f',\n{{"ph":"X","cat":"cpu_op","name":"aten::op{g % 50}","pid":1,"tid":1,"ts":{t},"dur":10}}')
        f.write(f',\n{{"ph":"X","cat":"cpu_op","name":"aten::k{g % 20}","pid":1,"tid":1,"ts":{t + 2},"dur":5}}')
        if mem_every and g % mem_every == 0:
            d = g % 2
            size = 512 * (1 + g % 64)
            addr = 0x7F0000000000 + (g % 4096) * 65536
            for sgn, dt in ((1, 3), (-1, 6)):
                total[d] += sgn * size
                f.write(f',\n{{"ph":"i","cat":"cpu_instant_event","s":"t","name":"{name}","pid":1,"tid":1,"ts":{t + dt},'
                        f'"args":{{"Total Reserved":{1 << 30},"Total Allocated":{total[d]},"Bytes":{sgn * size},"Addr":{addr},"Device Type":1,"Device Id":{d}}}}}')
        t += 12
    f.write("\n]}\n")
