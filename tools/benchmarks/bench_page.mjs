#!/usr/bin/env node
// tools/benchmarks/bench_page.mjs: the page-side benchmarks (issue 3 item 7, issue 4
// item 6) in one command. Prints a markdown table of medians and ratios
// against the targets (for tools/benchmarks/LOG.md) and writes every raw run to
// build/bench-page-results.json.
//
//   node tools/benchmarks/bench_page.mjs              1e5, 1e6 lean (the "90 MB, 1e6-event"
//                                          reference), 1e6 (300 MB) and its .gz; N=5
//   node tools/benchmarks/bench_page.mjs --big        also the ~10 GB trace and its .gz (1 run each)
//   node tools/benchmarks/bench_page.mjs --only-big   the 10 GB pair alone
//   options: --reps N  --regen
//   node tools/benchmarks/bench_page.mjs --cpu-prof   only one profiled page load of the lean
//            1e6 trace -> build/bench-page-lean1e6.cpuprofile (Chrome DevTools
//            format; build the wasm with -DCMAKE_EXE_LINKER_FLAGS=--profiling-funcs
//            for function names) and its top self-time functions;
//            --prof-trace K profiles trace K instead (t1e5, t1e6, ...); --prof-workers N
//            loads it with ?workers=N (the page's thread while parse workers run)
//   node tools/benchmarks/bench_page.mjs --workers    only the import split across workers (issue 21):
//            page loads with the default workers (navigator.hardwareConcurrency - 1, at most 8)
//            and with ?workers=1 (the one-thread path), interleaved, of t1e5, lean1e6, t1e6
//            and lean1e7 (905 MB, 1e7 events; generated once); medians of --reps, the ratio
//            default / one worker (targets: <= 0.6 for 1e7, within noise below), the peak
//            memory per event while loading: the import's peak of the app's heap
//            (stats().import_peak_bytes) + the parse workers' (stats().worker_heap_bytes),
//            over the events (target <= 48 B), the page's memory after the load, and the
//            machine's CPU time during each load (Linux /proc: all processes, and per kind)
//            with the bound it puts on any load on these cores;
//            --workers-list 1,2,4 times those counts instead (the scaling; 'default' for
//            the page's own choice)
//   node tools/benchmarks/bench_page.mjs --overview   only the overview panel on the lean 1e6
//            trace (issue 18, "a 1e6 trace's panel within a frame or two"): per run a
//            fresh page opens the file, waits 1 s (a user's reaction), then times `o`
//            (keydown -> panel filled, synchronous; and -> the next animation frame),
//            then window.strata.analyze() alone (the wasm call + its JSON.parse), the
//            panel's own call analyze({gaps: 1000}) (not kept: analysed anew), and
//            `strata analyze FILE --json`'s analyze_ms natively; medians of --reps
//
// Environment (defaults in brackets):
//   STRATA_DIST  the built site to serve          [<repo>/dist]   (tools/build)
//   STRATA_CLI   the native CLI                   [<repo>/build/native/strata]
//   STRATA_GEN   the generator                    [strata-gen next to STRATA_CLI]
//   CHROMIUM     the browser                      [/usr/bin/chromium]
//
// What one page run is: a fresh page (so the wasm heap starts small) is served
// dist/ by the browser tests' server (127.0.0.1) and opened in headless
// Chromium (SwiftShader WebGL2); the file is chosen through the real
// <input type=file>; the page reads it in Blob.slice() chunks into the wasm
// loader and fires strata:loaded after the first frame of the new trace.
// Recorded: the page's own stats().load_ms (C clock: load begin -> the end of
// the first frame's GL submission), the same interval seen from JS (the file
// input's change event -> strata:loaded), and heap_bytes (the wasm memory
// size after the load: memory only grows, so this is the peak).
// A native run is `strata stats FILE --json --threads 1` (load_ms = import, heap_bytes =
// the loader's peak heap) and `strata bench FILE --json --threads 1` (import + lod build),
// interleaved with the page runs so machine noise hits both sides alike.
// Frame benchmarks: window.strata.bench() (the `strata bench` navigation
// script drawn for real, glFinish per frame: SwiftShader is software, so
// these numbers are for regressions only) and frameStats().
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, DIST, CLI, startServer, launchBrowser, newApp, distExists } from '../../tests/browser/harness.mjs';
import { cpuNow, cpuSince } from './cpu_time.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const DATA = path.join(ROOT, 'build', 'bench-data');
const OUT = path.join(ROOT, 'build', 'bench-page-results.json');
const GEN = path.resolve(process.env.STRATA_GEN || path.join(path.dirname(CLI), 'strata-gen'));

const args = process.argv.slice(2);
const opt = { reps: 5, big: false, onlyBig: false, regen: false, cpuProf: false, profTrace: 'lean1e6', overview: false, workers: null };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--reps') opt.reps = Math.max(1, Number(args[++i]) | 0);
  else if (a === '--big') opt.big = true;
  else if (a === '--only-big') opt.big = opt.onlyBig = true;
  else if (a === '--regen') opt.regen = true;
  else if (a === '--cpu-prof') opt.cpuProf = true;
  else if (a === '--overview') opt.overview = true;
  else if (a === '--workers') opt.workers = opt.workers || ['', 1];
  else if (a === '--workers-list') {
    opt.workers = [...new Set([1, ...args[++i].split(',').map((x) => (x === 'default' ? '' : Math.max(1, Number(x) | 0)))])];
  }
  else if (a === '--prof-trace') opt.cpuProf = true, opt.profTrace = args[++i];
  else if (a === '--prof-workers') opt.cpuProf = true, opt.profWorkers = Number(args[++i]);
  else if (a === '-h' || a === '--help') {
    console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 50).join('\n'));
    process.exit(0);
  } else {
    console.error(`bench_page: unknown argument '${a}'`);
    process.exit(2);
  }
}

const log = (...m) => console.error('[bench_page]', ...m);
const median = (v) => {
  const s = v.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const MB = 1e6;
const fmt = (x, d = 0) => (x == null ? 'n/a' : x.toFixed(d));

// ---- traces (generated once, cached in build/bench-data/) -----------------------
// big: ~3.56e7 events of the default (args-heavy, ~300 bytes/event) kind:
// 10.8 GB (10.0 GiB) of JSON.
const TRACES = {
  t1e5: { file: 't1e5.json', gen: ['-n', '1e5'], frames: true },
  lean1e6: { file: 'lean1e6.json', gen: ['-n', '1e6', '--lean'], target: true },
  lean1e7: { file: 'lean1e7.json', gen: ['-n', '1e7', '--lean'], workersOnly: true },
  t1e6: { file: 't1e6.json', gen: ['-n', '1e6'], frames: true },
  t1e6gz: { file: 't1e6.json.gz', gen: ['-n', '1e6', '--gz'] },
  big: { file: 'big10g.json', gen: ['-n', '3.56e7'], big: true },
  biggz: { file: 'big10g.json.gz', gen: ['-n', '3.56e7', '--gz'], big: true },
};

function ensureTrace(t) {
  const f = path.join(DATA, t.file);
  if (!opt.regen && fs.existsSync(f) && fs.statSync(f).size > 0) return f;
  fs.mkdirSync(DATA, { recursive: true });
  if (t.big) {
    const free = fs.statfsSync(DATA);
    const gb = (free.bavail * free.bsize) / 1e9;
    if (gb < 25) throw new Error(`only ${gb.toFixed(0)} GB free in ${DATA}: the 10 GB traces need ~25 GB`);
  }
  log(`generating ${f} (${t.gen.join(' ')})`);
  execFileSync(GEN, [...t.gen, '-o', f + '.tmp'], { stdio: 'inherit' });
  fs.renameSync(f + '.tmp', f);
  return f;
}

// ---- native ------------------------------------------------------------------------
// On one thread (--threads 1), as the page reads a file by default on a 2-core
// machine: the ratio is the wasm page against native code doing the same work
// (the CLI's threads are measured by tools/bench --threads-only).
function native(cmd, file) {
  const r = spawnSync(CLI, [cmd, file, '--json', '--threads', '1'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${CLI} ${cmd} ${file}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

// ---- page ---------------------------------------------------------------------------
const HANDOFF = () => {
  // capture phase on window: runs before the page's own change listener
  window.addEventListener('change', (e) => {
    if (e.target && e.target.id === 'file-input') window.__ppHandoff = performance.now();
  }, true);
};

async function pageRun(browser, server, file, { frames = false, timeoutMs, cpuProfile = null, query = '' } = {}) {
  const app = await newApp(browser, server, { viewport: { width: 1280, height: 720 } });
  try {
    await app.page.addInitScript(HANDOFF);
    await app.goto(query);
    await app.ready();
    await app.demoLoaded();
    let cdp = null;
    if (cpuProfile) {
      cdp = await app.context.newCDPSession(app.page);
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    app.page.setDefaultTimeout(timeoutMs);
    const c0 = cpuNow();
    const w0 = performance.now();
    const ev = await app.openViaInput(file, { timeout: timeoutMs });
    const wall = performance.now() - w0;
    const cpu = cpuSince(c0);
    if (cdp) {
      const { profile } = await cdp.send('Profiler.stop');
      fs.writeFileSync(cpuProfile, JSON.stringify(profile));
      log(`cpu profile: ${path.relative(ROOT, cpuProfile)}`);
    }
    if (ev.type !== 'strata:loaded') throw new Error(`page could not open ${file}: ${ev.detail}\n${app.diagnostics()}`);
    const handoff = await app.page.evaluate(() => window.__ppHandoff);
    const out = {
      load_ms: ev.detail.load_ms,
      js_handoff_to_loaded_ms: ev.t - handoff,
      heap_bytes: ev.detail.heap_bytes,
      events: ev.detail.events,
      bytes_in: ev.detail.bytes_in,
      bytes_decoded: ev.detail.bytes_decoded,
      workers: ev.detail.workers ?? 1,
      worker_heap_bytes: ev.detail.worker_heap_bytes ?? 0,
      import_peak_bytes: ev.detail.import_peak_bytes ?? 0,
      wall_ms: wall,
      cpu_s: cpu ? cpu.cpu_s : null,
      cpu_kinds: cpu ? cpu.kinds : null,
    };
    if (frames) {
      out.bench = await app.page.evaluate(() => window.strata.bench());
      out.frameStats = await app.frameStats();
    }
    return out;
  } finally {
    await app.close();
  }
}

// The overview panel's latency on one fresh page (see --overview).
async function overviewRun(browser, server, file, timeoutMs) {
  const app = await newApp(browser, server, { viewport: { width: 1280, height: 720 } });
  try {
    await app.goto();
    await app.ready();
    await app.demoLoaded();
    app.page.setDefaultTimeout(timeoutMs);
    const ev = await app.openViaInput(file, { timeout: timeoutMs });
    if (ev.type !== 'strata:loaded') throw new Error(`page could not open ${file}: ${ev.detail}`);
    await app.page.waitForTimeout(1000);
    return await app.page.evaluate(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
      await frame();
      const t0 = performance.now();
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'o', bubbles: true }));
      const t1 = performance.now();
      const rows = document.querySelectorAll('#overview-devices tbody tr').length;
      const ops = document.querySelectorAll('#overview-kernels tbody tr').length;
      const t2 = await frame();
      // analyze() alone, its JSON.parse timed apart (the rest: the wasm call + UTF-8 -> string)
      const parse = JSON.parse;
      let parseMs = 0, chars = 0;
      JSON.parse = (text, ...rest) => {
        const a = performance.now();
        const v = parse(text, ...rest);
        parseMs += performance.now() - a;
        chars += text.length;
        return v;
      };
      let t3, t4;
      try {
        t3 = performance.now();
        window.strata.analyze();
        t4 = performance.now();
      } finally {
        JSON.parse = parse;
      }
      // the panel's own call (more idle gaps than the default)
      const t5 = performance.now();
      window.strata.analyze({ gaps: 1000 });
      const t6 = performance.now();
      return { panel_sync_ms: t1 - t0, panel_frame_ms: t2 - t0, rows, ops, analyze_ms: t4 - t3,
        analyze_parse_ms: parseMs, analyze_wasm_ms: t4 - t3 - parseMs, analyze_json_chars: chars,
        analyze_gaps1000_ms: t6 - t5 };
    });
  } finally {
    await app.close();
  }
}

async function overviewMain(server, browser) {
  const f = ensureTrace(TRACES.lean1e6);
  const runs = [];
  for (let r = 1; r <= opt.reps; r++) {
    log(`overview repetition ${r}/${opt.reps}`);
    const page = await overviewRun(browser, server, f, 60_000);
    const cli = spawnSync(CLI, ['analyze', f, '--json'], { encoding: 'utf8', maxBuffer: 256 << 20 });
    if (cli.status !== 0) throw new Error(`strata analyze: exit ${cli.status}: ${cli.stderr}`);
    page.native_analyze_ms = JSON.parse(cli.stdout).analyze_ms;
    runs.push(page);
    log(JSON.stringify(page));
  }
  const m = (k) => median(runs.map((x) => x[k]));
  console.log(`Overview panel, ${TRACES.lean1e6.file} (1e6 events), medians of ${opt.reps}:\n` +
    `| figure | median ms |\n|---|---|\n` +
    `| o -> panel filled (synchronous) | ${fmt(m('panel_sync_ms'), 1)} |\n` +
    `| o -> next animation frame | ${fmt(m('panel_frame_ms'), 1)} |\n` +
    `| window.strata.analyze() | ${fmt(m('analyze_ms'), 1)} |\n` +
    `| of which JSON.parse (${fmt(m('analyze_json_chars') / 1e3)} kchars) | ${fmt(m('analyze_parse_ms'), 1)} |\n` +
    `| of which the wasm call | ${fmt(m('analyze_wasm_ms'), 1)} |\n` +
    `| window.strata.analyze({gaps: 1000}) (the panel's call) | ${fmt(m('analyze_gaps1000_ms'), 1)} |\n` +
    `| native strata analyze analyze_ms | ${fmt(m('native_analyze_ms'), 1)} |`);
}

// The import split across workers (see --workers): every count of opt.workers
// ('' = the page's default) in turn, repetition by repetition, so machine noise
// hits them alike.
async function workersMain(server, browser, files) {
  const runs = [];
  const label = (w) => (w === '' ? 'default' : `workers=${w}`);
  for (const [k, f] of Object.entries(files)) {
    const size = fs.statSync(f).size;
    const timeoutMs = 20_000 + (size / 10e6) * 1000;
    for (let r = 1; r <= opt.reps; r++) {
      for (const w of opt.workers) {
        const out = await pageRun(browser, server, f, { timeoutMs, query: w === '' ? '' : `?workers=${w}` });
        runs.push({ trace: k, w: label(w), rep: r, out });
        log(`${k} ${label(w)} ${r}/${opt.reps}: ${out.load_ms.toFixed(0)} ms, ${out.workers} worker(s), ` +
          `heap ${(out.heap_bytes / MB).toFixed(0)} + ${(out.worker_heap_bytes / MB).toFixed(0)} MB, import peak ` +
          `${(out.import_peak_bytes / MB).toFixed(0)} MB` + (out.cpu_s === null ? '' : `, CPU ${out.cpu_s.toFixed(2)} s in ` +
          `${(out.wall_ms / 1000).toFixed(2)} s (${Object.entries(out.cpu_kinds).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')})`));
      }
    }
  }
  const rows = [];
  const summary = {};
  const base = label(1); // in opt.workers (the argument parsing adds it)
  const cores = os.cpus().length;
  for (const k of Object.keys(files)) {
    const events = runs.find((x) => x.trace === k).out.events;
    const bytes = fs.statSync(files[k]).size;
    summary[k] = { file: TRACES[k].file, bytes, events };
    const m1 = median(runs.filter((x) => x.trace === k && x.w === base).map((x) => x.out.load_ms));
    for (const w of opt.workers) {
      const sel = runs.filter((x) => x.trace === k && x.w === label(w)).map((x) => x.out);
      const ms = median(sel.map((o) => o.load_ms));
      // while loading: the import's peak of the app's heap + the parse
      // workers' memories (the CLI's peak heap compares with it); after: the
      // page's wasm memory (model, level-of-detail index, UI) + the workers'
      const perEvent = median(sel.map((o) => (o.import_peak_bytes + o.worker_heap_bytes) / events));
      const afterPerEvent = median(sel.map((o) => (o.heap_bytes + o.worker_heap_bytes) / events));
      const used = median(sel.map((o) => o.workers));
      const hasCpu = sel.every((o) => o.cpu_s !== null);
      const cpuS = hasCpu ? median(sel.map((o) => o.cpu_s)) : null;
      const wallMs = median(sel.map((o) => o.wall_ms));
      // the least any load on these cores could take, split or not, if it
      // needs the CPU time this one did (reading the file, parsing it,
      // drawing): cpu / cores, over this setting's wall time
      const bound = hasCpu ? (cpuS * 1000) / cores / wallMs : null;
      summary[k][label(w)] = { load_ms: ms, runs_ms: sel.map((o) => o.load_ms), workers: used, heap_per_event: perEvent,
        after_load_heap_per_event: afterPerEvent, import_peak_bytes: median(sel.map((o) => o.import_peak_bytes)),
        heap_bytes: median(sel.map((o) => o.heap_bytes)), worker_heap_bytes: median(sel.map((o) => o.worker_heap_bytes)),
        wall_ms: wallMs, cpu_s: cpuS, cores_busy: hasCpu ? (cpuS * 1000) / wallMs : null, bound_on_these_cores: bound,
        cpu_kinds: hasCpu ? Object.fromEntries([...new Set(sel.flatMap((o) => Object.keys(o.cpu_kinds)))].map((kk) =>
          [kk, median(sel.map((o) => o.cpu_kinds[kk] || 0))])) : null };
      const ratio = ms / m1;
      const big = k === 'lean1e7';
      rows.push([`${TRACES[k].file} (${fmt(bytes / MB)} MB, ${events.toLocaleString('en-US')} events), ${label(w)} (${used} used)`,
        `${fmt(ms)} ms (${sel.map((o) => fmt(o.load_ms)).join(', ')})`,
        label(w) === base ? '' : `${fmt(ratio, 2)}${big ? (ratio <= 0.6 ? ' (<= 0.6: yes)' : ' (<= 0.6: **no**)') : ''}`,
        `${fmt(perEvent, 1)} B${perEvent <= 48 ? '' : ' (**> 48**)'}`, `${fmt(afterPerEvent, 1)} B`,
        hasCpu ? `${fmt(cpuS, 2)} s in ${fmt(wallMs / 1000, 2)} s = ${fmt((cpuS * 1000) / wallMs, 2)} cores` +
          (label(w) === base ? `; any load >= ${fmt(bound, 2)} x this on ${cores} cores` : '') : '']);
    }
  }
  const cpu = os.cpus()[0]?.model || os.arch();
  const head = `Page loads split across parse workers: medians of ${opt.reps} interleaved runs, ${new Date().toISOString().slice(0, 10)}, ` +
    `headless Chromium, ${os.cpus().length} cores (${cpu}); time = file input -> first frame (stats().load_ms); ` +
    `memory while loading = the import's peak of the app's heap (stats().import_peak_bytes) + the workers' memories, per event; ` +
    `after = the page's wasm memory (model, level-of-detail index, UI) + the workers'; CPU = the machine's busy time from the file ` +
    `input to strata:loaded (/proc/stat) over that wall time; "any load >=": the one-thread load's CPU spread over every core, ` +
    `the least a split needing the same work could take, as a fraction of the one-thread load.`;
  console.log(head + '\n\n' + ['| trace, workers | median (runs) | / ' + base + ' | memory per event while loading | after | CPU |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n'));
  const out = path.join(ROOT, 'build', 'bench-page-workers.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), reps: opt.reps, workers: opt.workers, summary, runs }, null, 1));
  log(`raw runs: ${path.relative(process.cwd(), out)}`);
}

// The functions with the most self time in a CPU profile (stderr).
function topSelf(profile, n = 25) {
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const self = new Map();
  const dt = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url ? path.basename(f.url) : ''}`;
    self.set(key, (self.get(key) || 0) + (dt[i] || 0) / 1000);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    log(`${v.toFixed(1).padStart(8)} ms ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  }
}

// ---- main ---------------------------------------------------------------------------
async function main() {
  if (!distExists()) throw new Error(`no site at ${DIST} (run tools/build, or set STRATA_DIST)`);
  if (!fs.existsSync(CLI)) throw new Error(`no native CLI at ${CLI} (run tools/build, or set STRATA_CLI)`);
  const names = opt.overview ? [] : opt.workers ? ['t1e5', 'lean1e6', 't1e6', 'lean1e7']
    : Object.keys(TRACES).filter((k) => !TRACES[k].workersOnly && (opt.onlyBig ? TRACES[k].big : opt.big || !TRACES[k].big));
  const files = Object.fromEntries(names.map((k) => [k, ensureTrace(TRACES[k])]));
  const server = await startServer({ root: DIST });
  const browser = await launchBrowser();
  const runs = []; // {what, trace, rep, out}
  const t0 = Date.now();
  try {
    if (opt.overview) {
      await overviewMain(server, browser);
      return;
    }
    if (opt.workers) {
      await workersMain(server, browser, files);
      return;
    }
    if (opt.cpuProf) {
      const pt = TRACES[opt.profTrace];
      if (!pt) throw new Error(`--prof-trace: no trace '${opt.profTrace}' (${Object.keys(TRACES).join(', ')})`);
      const f = ensureTrace(pt);
      const out = path.join(ROOT, 'build', `bench-page-${opt.profTrace}.cpuprofile`);
      const query = opt.profWorkers ? `?workers=${opt.profWorkers}` : '';
      const r = await pageRun(browser, server, f, { timeoutMs: 120_000, cpuProfile: out, query });
      log(`load_ms ${r.load_ms.toFixed(0)} (profiled)`);
      topSelf(JSON.parse(fs.readFileSync(out, 'utf8')));
      return;
    }
    for (const k of names) {
      const t = TRACES[k];
      const reps = t.big ? 1 : opt.reps;
      const size = fs.statSync(files[k]).size;
      // generous: 20 s + 1 s per 10 MB (the 10 GB trace: ~20 min)
      const timeoutMs = 20_000 + (size / 10e6) * 1000;
      for (let r = 1; r <= reps; r++) {
        log(`${k} (${(size / MB).toFixed(0)} MB) repetition ${r}/${reps}: page`);
        runs.push({ what: 'page', trace: k, rep: r, out: await pageRun(browser, server, files[k], { frames: t.frames, timeoutMs }) });
        log(`${k} repetition ${r}/${reps}: native stats${t.big ? '' : ' + bench'}`);
        runs.push({ what: 'native_stats', trace: k, rep: r, out: native('stats', files[k]) });
        if (!t.big) runs.push({ what: 'native_bench', trace: k, rep: r, out: native('bench', files[k]) });
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }

  // ---- summary -------------------------------------------------------------------
  const sel = (what, trace) => runs.filter((r) => r.what === what && r.trace === trace).map((r) => r.out);
  const med = (what, trace, f) => median(sel(what, trace).map(f));
  const summary = {};
  const rows = [];
  const ok = (v, target, le = true) => (v == null ? 'n/a' : (le ? v <= target : v >= target) ? 'yes' : '**no**');
  for (const k of names) {
    const t = TRACES[k];
    const p = sel('page', k);
    if (!p.length) continue;
    const s = {
      file: TRACES[k].file,
      bytes: fs.statSync(files[k]).size,
      events: p[0].events,
      reps: p.length,
      page_load_ms: med('page', k, (o) => o.load_ms),
      page_js_handoff_to_loaded_ms: med('page', k, (o) => o.js_handoff_to_loaded_ms),
      page_heap_bytes: med('page', k, (o) => o.heap_bytes),
      native_import_ms: med('native_stats', k, (o) => o.load_ms),
      native_heap_bytes: med('native_stats', k, (o) => o.heap_bytes),
    };
    if (!t.big) {
      s.native_import_lod_ms = med('native_bench', k, (o) => o.load_ms + o.lod_build_ms);
      s.native_lod_bytes = med('native_bench', k, (o) => o.lod_bytes);
    }
    s.ratio_page_over_native_import = s.page_load_ms / s.native_import_ms;
    if (s.native_import_lod_ms) s.ratio_page_over_native_import_lod = s.page_load_ms / s.native_import_lod_ms;
    if (t.frames) {
      s.page_bench_frame_ms_p50 = med('page', k, (o) => o.bench && o.bench.frame_ms_p50);
      s.page_bench_frame_ms_p99 = med('page', k, (o) => o.bench && o.bench.frame_ms_p99);
      s.page_bench_build_ms_p50 = med('page', k, (o) => o.bench && o.bench.build_ms_p50);
      s.page_bench_build_ms_max = med('page', k, (o) => o.bench && o.bench.build_ms_max);
      s.page_bench_rects_max = med('page', k, (o) => o.bench && o.bench.rects_max);
      s.page_first_frame_ms = med('page', k, (o) => o.frameStats && o.frameStats.last_frame_ms);
      s.native_frame_ms_p99 = med('native_bench', k, (o) => o.frame_ms_p99);
    }
    summary[k] = s;
    const label = `${s.file} (${fmt(s.bytes / MB)} MB, ${s.events.toLocaleString('en-US')} events${s.reps > 1 ? '' : ', 1 run'})`;
    rows.push([`${label}: page time to first frame (JS-side)`, `${fmt(s.page_load_ms)} ms (${fmt(s.page_js_handoff_to_loaded_ms)} ms)`,
      t.target ? '< 600 ms' : '', t.target ? ok(s.page_load_ms, 600 - 1e-9) : '']);
    rows.push([`${label}: native import${s.native_import_lod_ms ? ' (+ lod)' : ''}`,
      `${fmt(s.native_import_ms)} ms${s.native_import_lod_ms ? ` (${fmt(s.native_import_lod_ms)} ms)` : ''}`, '', '']);
    rows.push([`${label}: page / native import${s.native_import_lod_ms ? ' (/ native import + lod)' : ''}`,
      `${fmt(s.ratio_page_over_native_import, 2)}${s.ratio_page_over_native_import_lod ? ` (${fmt(s.ratio_page_over_native_import_lod, 2)})` : ''}`,
      '<= 2.0', ok(s.ratio_page_over_native_import, 2.0)]);
    rows.push([`${label}: peak heap, page (wasm memory) / native (loader peak)`,
      `${fmt(s.page_heap_bytes / MB)} MB / ${fmt(s.native_heap_bytes / MB)} MB`, t.big ? '< 4096 MiB (wasm32)' : '',
      t.big ? ok(s.page_heap_bytes, 4 * 2 ** 30) : '']);
    if (t.frames) {
      rows.push([`${label}: page bench() frame p50 / p99 ms (build p50 / max; native p99)`,
        `${fmt(s.page_bench_frame_ms_p50, 1)} / ${fmt(s.page_bench_frame_ms_p99, 1)} (${fmt(s.page_bench_build_ms_p50, 2)} / ${fmt(s.page_bench_build_ms_max, 2)}; ${fmt(s.native_frame_ms_p99, 2)})`,
        'regressions only (SwiftShader)', '']);
    }
  }
  const cpu = os.cpus()[0]?.model || os.arch();
  const head = `Page benchmarks: medians of ${opt.reps} runs (10 GB traces: 1 run), ${new Date().toISOString().slice(0, 10)}, ` +
    `headless Chromium (SwiftShader), ${os.cpus().length} cores (${cpu}); page = file input -> first frame drawn ` +
    `(stats().load_ms; JS-side: change event -> strata:loaded).`;
  const table = ['| benchmark | median | target | met |', '|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  console.log(head + '\n\n' + table);
  let prev = {};
  try { prev = JSON.parse(fs.readFileSync(OUT, 'utf8')); } catch {}
  // a --big run keeps the other traces' last results, and the reverse
  const merged = { ...(prev.summary || {}), ...summary };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify({
    date: new Date().toISOString(), reps: opt.reps, seconds: (Date.now() - t0) / 1000, dist: DIST, cli: CLI,
    summary: merged, table, runs: [...(prev.runs || []).filter((r) => !names.includes(r.trace)), ...runs],
  }, null, 1));
  log(`raw runs: ${path.relative(process.cwd(), OUT)}`);
}

main().catch((e) => {
  console.error(`bench_page: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
