// tools/benchmarks/cpu_time.mjs: the machine's CPU time around a measured
// interval, for the page benchmarks (bench_page.mjs --workers,
// bench_file_read.mjs): a page load's work is spread over the browser's
// processes, so the time the page itself reports does not show it.
import fs from 'node:fs';
import path from 'node:path';

// The machine's busy CPU time (all processes, Linux /proc/stat) and, per kind
// of process (the browser, its GPU process, renderers, utilities, node), the
// CPU time of each (/proc/PID/stat): sampled around a load to say how many
// cores it kept busy. null where /proc is missing.
export function cpuNow() {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const perKind = new Map();
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        const v = st.slice(st.lastIndexOf(')') + 2).split(' ');
        const kind = (cmd.match(/--type=([a-z-]+)/) || [])[1] || path.basename(cmd.split('\0')[0]) || '?';
        perKind.set(pid, [kind, (Number(v[11]) + Number(v[12])) / 100]);
      } catch { /* gone */ }
    }
    return { busy: (f.reduce((a, b) => a + b, 0) - f[3] - f[4]) / 100, perKind };
  } catch {
    return null;
  }
}
export function cpuSince(c0) {
  const c1 = cpuNow();
  if (!c0 || !c1) return null;
  const kinds = {};
  for (const [pid, [kind, t]] of c1.perKind) {
    const d = t - (c0.perKind.has(pid) ? c0.perKind.get(pid)[1] : 0);
    if (d > 0) kinds[kind] = (kinds[kind] || 0) + d;
  }
  return { cpu_s: c1.busy - c0.busy, kinds };
}
