// tools/benchmarks/bench_stream.mjs: streaming mode in the page (issue 20),
// measured in headless Chromium on a local file:
//   - open: file chosen -> strata:loaded (the pass; its summary drawn), ms
//     and MB/s of the file;
//   - memory: the wasm heap (stats().heap_bytes, the memory's size: it never
//     shrinks, so it is the peak) after the pass and after the windows;
//   - zoom: for N windows of --window-ms (default 10 ms) at evenly spread
//     places, setView -> the window's events shown (strata.settle()), ms:
//     median and max;
//   - with --resident, the same file opened resident (?stream=0) in the same
//     run first, for the ratio (skip it for files the resident page cannot
//     hold);
//   - with --index FILE.stx (`strata index`), opened with its index (no pass);
//   - an unsorted or protobuf trace: its re-ordered copy (the second pass into
//     the browser's storage), from the open's end to the copy made, ms and
//     MB/s of the file, before the windows (--no-copy: none, ?copy=0). The
//     streamed page runs in a browser with a profile on disk, as a user's
//     (an off-the-record context keeps its storage in memory).
//
//   node tools/benchmarks/bench_stream.mjs FILE [--windows 9] [--window-ms 10]
//        [--budget-mb 2048] [--window-mb 256] [--resident] [--index FILE.stx]
//        [--no-copy] [--preview-ms N] [--json]
import path from 'node:path';
import fs from 'node:fs';
import { startServer, launchBrowser, newApp, newPersistentApp } from '../../tests/browser/harness.mjs';

const args = process.argv.slice(2);
const opt = (k, d) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : d;
};
const file = args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--') && !['--resident', '--json', '--no-copy'].includes(args[i - 1])));
const index = opt('--index', null);
if (!file || !fs.existsSync(file)) {
  console.error('usage: bench_stream.mjs FILE [--windows N] [--window-ms MS] [--budget-mb MB] [--window-mb MB] [--resident] [--json]');
  process.exit(2);
}
const nWin = Number(opt('--windows', 9));
const winMs = Number(opt('--window-ms', 10));
const pv = opt('--preview-ms', null); // ?preview_ms= (1000000: no previews while the pass runs)
const q = `?stream=1&budget_mb=${Number(opt('--budget-mb', 2048))}&window_mb=${Number(opt('--window-mb', 256))}${args.includes('--no-copy') ? '&copy=0' : ''}${pv ? `&preview_ms=${Number(pv)}` : ''}`;
const size = fs.statSync(file).size;
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

const server = await startServer();
const browser = await launchBrowser();
const result = { file: path.basename(file), bytes: size };
try {
  if (args.includes('--resident')) {
    const app = await newApp(browser, server, { viewport: { width: 1400, height: 850 } });
    await app.goto('?stream=0');
    await app.ready();
    const t0 = Date.now();
    const out = await app.openViaInput(file, { timeout: 3_600_000 });
    result.resident = { outcome: out.type, open_ms: Date.now() - t0, heap_bytes: out.detail.heap_bytes, events: out.detail.events };
    await app.close();
  }
  // the streamed page in a browser with a profile on disk (as a user's): the
  // re-ordered copy goes to its Origin Private File System
  const app = await newPersistentApp(server, { viewport: { width: 1400, height: 850 } });
  await app.goto(q);
  await app.ready();
  const t0 = Date.now();
  const out = await app.openViaInput(index ? [file, index] : file, { timeout: 3_600_000 });
  const openMs = Date.now() - t0;
  if (out.type !== 'strata:loaded') throw new Error(`the streamed open failed: ${JSON.stringify(out.detail)}`);
  const s = out.detail;
  const heapOpen = await app.page.evaluate(() => window.strata.stats().heap_bytes);
  // the re-ordered copy, if the trace wants one: from the open's end to made
  const c0 = Date.now();
  let st0 = await app.page.evaluate(() => window.strata.streaming());
  if (st0 && st0.files.some((f) => f.copy_wanted || f.copy === 'running') && !args.includes('--no-copy')) {
    for (;;) {
      st0 = await app.page.evaluate(() => window.strata.streaming());
      if (!st0.copy_reading && !st0.files.some((f) => f.copy === 'running')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const f0 = st0.files[0];
    result.copy = { ms: Date.now() - c0, made: f0.copy === 'done', bytes: f0.copy_bytes, note: st0.copy_note };
    result.copy.mb_s = +(size / 1e3 / result.copy.ms).toFixed(1);
    result.copy.T = await app.page.evaluate(() => globalThis.__copyT);
  }
  const lat = [];
  let shown = 0;
  for (let k = 0; k < nWin; k++) {
    const a = s.ts_min_us + ((s.ts_max_us - s.ts_min_us) * (k + 0.5)) / nWin;
    const w0 = Date.now();
    await app.page.evaluate(([a, b]) => window.strata.setView({ start_us: a, end_us: b }), [a, a + winMs * 1000]);
    const st = await app.page.evaluate(() => window.strata.settle());
    lat.push(Date.now() - w0);
    if (st && st.files.every((f) => f.window_ns)) shown++;
  }
  const heapEnd = await app.page.evaluate(() => window.strata.stats().heap_bytes);
  Object.assign(result, {
    events: s.events,
    open_ms: openMs,
    open_mb_s: +(size / 1e3 / openMs).toFixed(1),
    heap_after_open: heapOpen,
    heap_after_windows: heapEnd,
    summary: s.streaming && s.streaming.files[0],
    previews: s.streaming ? s.streaming.previews : 0, // summaries drawn while the pass ran
    from_index: !!(s.streaming && s.streaming.from_index),
    windows: nWin,
    windows_shown: shown,
    window_ms: winMs,
    zoom_ms_median: median(lat),
    zoom_ms_max: Math.max(...lat),
    zoom_ms_all: lat,
  });
  if (result.resident) result.open_ratio = +(openMs / result.resident.open_ms).toFixed(2);
  await app.close();
} finally {
  await browser.close();
  await server.close();
}
if (args.includes('--json')) console.log(JSON.stringify(result));
else {
  const mb = (b) => (b / 1048576).toFixed(0) + ' MiB';
  console.log(`${result.file}: ${(size / 1e9).toFixed(2)} GB, ${result.events} events`);
  if (result.resident) console.log(`  resident open: ${result.resident.open_ms} ms, heap ${mb(result.resident.heap_bytes)}`);
  console.log(`  streamed open${result.from_index ? ' (with its index)' : ''}: ${result.open_ms} ms (${result.open_mb_s} MB/s, ${result.previews} previews), heap ${mb(result.heap_after_open)} after the pass, ${mb(result.heap_after_windows)} after the windows`);
  if (result.copy) console.log(`  re-ordered copy: ${result.copy.made ? 'made' : 'NOT made: ' + result.copy.note} in ${result.copy.ms} ms (${result.copy.mb_s} MB/s of the file), ${mb(result.copy.bytes)}`);
  console.log(`  ${winMs} ms windows: ${result.windows_shown}/${nWin} shown, median ${result.zoom_ms_median} ms, max ${result.zoom_ms_max} ms`);
}
