#!/usr/bin/env node
// tools/benchmarks/bench_multi_page.mjs: the page side of tools/bench_multi (issue 13
// item 6): do N files opened together in the page cost what they cost one by
// one, and do they fit the 4 GB wasm heap?
//
//   node tools/benchmarks/bench_multi_page.mjs [--reps N] FILE...
//   (tools/bench_multi --page runs it on the rank traces it generates)
//
// One repetition, interleaved so machine noise hits both sides alike:
//   many:    a fresh page; every FILE chosen at once in the real
//            <input type=file multiple>; the page reads and imports them one
//            after another, each into its own model, and shows them merged;
//   singles: a fresh page per FILE, chosen alone.
// Recorded per page: stats().load_ms (C clock: load begin -> the end of the
// first frame's GL submission; a batch: the first file's begin -> the merged
// view's first frame), the same interval from JS (the change event ->
// strata:loaded), the wasm memory size after the load (heap_bytes: memory only
// grows, so this is the peak), performance.memory.usedJSHeapSize, and the CPU
// time (user + sys) the browser's processes spent from the choice to
// strata:loaded (on a shared machine the wall times swing with other jobs;
// the CPU time much less).
// Prints a markdown table of medians (stdout) and the raw runs as JSON
// (build/bench-multi-page-results.json). Environment as tools/benchmarks/bench_page.mjs
// (STRATA_DIST, CHROMIUM).
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { startServer, launchBrowser, newApp, distExists, DIST } from '../../tests/browser/harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = path.join(ROOT, 'build', 'bench-multi-page-results.json');
const args = process.argv.slice(2);
let reps = 3;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--reps') reps = Math.max(1, Number(args[++i]) | 0);
  else if (args[i] === '-h' || args[i] === '--help') {
    console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 24).join('\n'));
    process.exit(0);
  } else files.push(path.resolve(args[i]));
}
if (!files.length) {
  console.error('bench_multi_page: no files (see --help)');
  process.exit(2);
}
const log = (...m) => console.error('[bench_multi_page]', ...m);
const median = (v) => {
  const s = v.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// CPU time (user + sys, ms) of this process's descendants now alive (the
// browser's processes: renderer, GPU, utility); read around one load, so
// other jobs on the machine do not count, as the native side's CPU figure.
const TICK_MS = 1000 / 100; // USER_HZ
function treeCpuMs() {
  const kids = new Map(); // ppid -> [pid]
  const cpu = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let st;
    try { st = fs.readFileSync(`/proc/${d}/stat`, 'utf8'); } catch { continue; }
    const f = st.slice(st.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
    const ppid = Number(f[1]);
    if (!kids.has(ppid)) kids.set(ppid, []);
    kids.get(ppid).push(Number(d));
    cpu.set(Number(d), (Number(f[11]) + Number(f[12])) * TICK_MS); // utime, stime
  }
  let sum = 0;
  const stack = [...(kids.get(process.pid) || [])];
  while (stack.length) {
    const p = stack.pop();
    sum += cpu.get(p) || 0;
    stack.push(...(kids.get(p) || []));
  }
  return sum;
}

const HANDOFF = () => {
  window.addEventListener('change', (e) => {
    if (e.target && e.target.id === 'file-input') window.__ppHandoff = performance.now();
  }, true);
};

// One fresh page opening `list` through the file input; its numbers.
async function pageRun(browser, server, list) {
  const bytes = list.reduce((a, f) => a + fs.statSync(f).size, 0);
  const timeout = 60_000 + (bytes / 10e6) * 1000; // generous: 1 s per 10 MB
  const app = await newApp(browser, server, { viewport: { width: 1280, height: 720 } });
  try {
    await app.page.addInitScript(HANDOFF);
    await app.goto();
    await app.ready();
    await app.demoLoaded();
    app.page.setDefaultTimeout(timeout);
    const n = await app.eventCount();
    const cpu0 = treeCpuMs();
    await app.page.setInputFiles('#file-input', list);
    const ev = await app.nextOutcome(n, { timeout });
    const cpu_ms = treeCpuMs() - cpu0;
    if (ev.type !== 'strata:loaded') throw new Error(`page could not open ${list.map((f) => path.basename(f)).join(', ')}: ${ev.detail}`);
    const more = await app.page.evaluate(() => ({
      handoff: window.__ppHandoff,
      js_heap: performance.memory ? performance.memory.usedJSHeapSize : null,
      traces: window.strata.traces().length,
      banner: document.getElementById('error')?.hidden === false ? document.getElementById('error').textContent : '',
    }));
    if (more.traces !== list.length) throw new Error(`${more.traces} of ${list.length} files shown: ${more.banner}`);
    return {
      load_ms: ev.detail.load_ms,
      js_ms: ev.t - more.handoff,
      cpu_ms,
      heap_bytes: ev.detail.heap_bytes,
      js_heap_bytes: more.js_heap,
      events: ev.detail.events,
      bytes_in: ev.detail.bytes_in,
    };
  } finally {
    await app.close();
  }
}

async function main() {
  if (!distExists()) throw new Error(`no site at ${DIST} (run tools/build, or set STRATA_DIST)`);
  const server = await startServer({ root: DIST });
  const browser = await launchBrowser();
  const runs = [];
  try {
    for (let r = 1; r <= reps; r++) {
      log(`repetition ${r}/${reps}: ${files.length} files together`);
      const many = await pageRun(browser, server, files);
      log(`  together: ${many.load_ms.toFixed(0)} ms, heap ${(many.heap_bytes / 1e6).toFixed(0)} MB`);
      const singles = [];
      for (const f of files) {
        singles.push(await pageRun(browser, server, [f]));
        log(`  ${path.basename(f)} alone: ${singles.at(-1).load_ms.toFixed(0)} ms`);
      }
      const sum = (k) => singles.reduce((a, s) => a + s[k], 0);
      runs.push({ rep: r, many, singles, sum_load_ms: sum('load_ms'), sum_js_ms: sum('js_ms'), sum_cpu_ms: sum('cpu_ms'),
        r_load: many.load_ms / sum('load_ms'), r_js: many.js_ms / sum('js_ms'), r_cpu: many.cpu_ms / sum('cpu_ms') });
      log(`  ratios: time to first frame ${runs.at(-1).r_load.toFixed(3)}, CPU ${runs.at(-1).r_cpu.toFixed(3)}`);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const med = (f) => median(runs.map(f));
  const m = {
    many_load_ms: med((r) => r.many.load_ms), many_js_ms: med((r) => r.many.js_ms),
    sum_load_ms: med((r) => r.sum_load_ms), sum_js_ms: med((r) => r.sum_js_ms),
    many_cpu_ms: med((r) => r.many.cpu_ms), sum_cpu_ms: med((r) => r.sum_cpu_ms),
    r_load: med((r) => r.r_load), r_js: med((r) => r.r_js), r_cpu: med((r) => r.r_cpu),
    heap: med((r) => r.many.heap_bytes), js_heap: med((r) => r.many.js_heap_bytes),
    single_heap_max: med((r) => Math.max(...r.singles.map((s) => s.heap_bytes))),
  };
  const ev = runs[0].many.events;
  const bytes = runs[0].many.bytes_in;
  const range = (k) => `${Math.min(...runs.map((r) => r[k])).toFixed(3)}-${Math.max(...runs.map((r) => r[k])).toFixed(3)}`;
  const yes = (v, t) => (v <= t ? 'yes' : '**no**');
  console.log(`Page: ${files.length} files (${ev.toLocaleString('en-US')} events, ${(bytes / 1e9).toFixed(2)} GB), medians of ${reps} ` +
    `interleaved runs, ${new Date().toISOString().slice(0, 10)}, headless Chromium, ${os.cpus().length} cores\n`);
  console.log('| measure | together | sum of the files alone | ratio (median of the runs\'; target <= 1.1) | runs\' range |');
  console.log('|---|---|---|---|---|');
  console.log(`| time to first frame, stats().load_ms | ${(m.many_load_ms / 1e3).toFixed(1)} s | ${(m.sum_load_ms / 1e3).toFixed(1)} s | ${m.r_load.toFixed(3)} (${yes(m.r_load, 1.1)}) | ${range('r_load')} |`);
  console.log(`| the same from JS (change -> strata:loaded) | ${(m.many_js_ms / 1e3).toFixed(1)} s | ${(m.sum_js_ms / 1e3).toFixed(1)} s | ${m.r_js.toFixed(3)} (${yes(m.r_js, 1.1)}) | ${range('r_js')} |`);
  console.log(`| CPU time of the browser's processes (user + sys) | ${(m.many_cpu_ms / 1e3).toFixed(1)} s | ${(m.sum_cpu_ms / 1e3).toFixed(1)} s | ${m.r_cpu.toFixed(3)} (${yes(m.r_cpu, 1.1)}) | ${range('r_cpu')} |`);
  console.log(`\nwasm memory after the ${files.length} files together: ${(m.heap / 2 ** 20).toFixed(0)} MiB of 4096 MiB ` +
    `(${(m.heap / ev).toFixed(1)} bytes per event); one file alone: ${(m.single_heap_max / 2 ** 20).toFixed(0)} MiB; ` +
    `JS heap (performance.memory.usedJSHeapSize): ${(m.js_heap / 1e6).toFixed(0)} MB`);
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify({ date: new Date().toISOString(), files, reps, medians: m, runs }, null, 1));
  log(`raw runs: ${path.relative(process.cwd(), OUT)}`);
}

main().catch((e) => {
  console.error(`bench_multi_page: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
