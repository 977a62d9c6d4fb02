// Issue 20 in the page: streaming mode (web/stream.js, core/import/stream).
// A trace opened as a summary and an index (?stream=1, or automatically when
// its resident model would pass ?budget_mb=) shows its summary zoomed out;
// zoomed in, the view's window of events is read again from the local file
// and shown in place of the summary, with view().pending counting the bytes
// still being read; zoomed out past ?window_mb= the summary comes back.
// What the user reads off a window (the summary table of the visible window,
// search counts) equals what a full resident load of the same file shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, newApp, CAPTURE_MODULE, serveRanges as serve } from './harness.mjs';

const ctx = useBrowser({ before, after });
let dir;
let file;
let t0us;
let spanUs;
before(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-stream-'));
  file = path.join(dir, 'big.trace.json');
  // ~12 MB, sorted by time: X events on 6 threads, B/E pairs that cross
  // blocks, instants and counters; 1 event per us
  const ev = [];
  const n = 120_000;
  t0us = 5000;
  for (let i = 0; i < n; i++) {
    const tid = 1 + (i % 6);
    const ts = t0us + i;
    if (i % 5000 === 0) ev.push(`{"ph":"B","pid":1,"tid":9,"ts":${ts},"name":"phase${(i / 5000) % 4}","cat":"p"}`);
    if (i % 5000 === 4999) ev.push(`{"ph":"E","pid":1,"tid":9,"ts":${ts}}`);
    if (i % 97 === 0) ev.push(`{"ph":"C","pid":1,"ts":${ts},"name":"mem","args":{"bytes":${(i * 7919) % 100000}}}`);
    if (i % 211 === 0) ev.push(`{"ph":"i","pid":1,"tid":${tid},"ts":${ts},"name":"mark","s":"t"}`);
    ev.push(`{"ph":"X","pid":1,"tid":${tid},"ts":${ts},"dur":${1 + (i % 4)},"name":"op${i % 13}","cat":"k","args":{"i":${i}}}`);
  }
  ev.push('{"ph":"M","pid":1,"tid":9,"name":"thread_name","args":{"name":"phases"}}');
  fs.writeFileSync(file, `{"traceEvents":[\n${ev.join(',\n')}\n]}\n`);
  spanUs = n;
});
after(async () => { if (dir) await fsp.rm(dir, { recursive: true, force: true }); });

const settle = (app) => app.page.evaluate(() => window.strata.settle());
const setView = (app, a, b) => app.page.evaluate(([s, e]) => window.strata.setView({ start_us: s, end_us: e }), [a, b]);
const status = (app) => app.page.evaluate(() => document.getElementById('status').textContent);
const summarize = (app) => app.page.evaluate(() => {
  const s = window.strata.summarizeWindow();
  return s && { events: s.events, rows: s.rows.map((r) => [r.name, r.count, r.total_ns]).sort() };
});

test('a streamed trace shows its summary, reads a zoomed-in window from the file, and the window equals a full load', async () => {
  const full = await ctx.app({ query: '?stream=0' });
  const fst = await full.openViaInput(file);
  assert.equal(fst.type, 'strata:loaded', JSON.stringify(fst.detail));
  assert.equal(await full.page.evaluate(() => window.strata.streaming()), null, 'a resident load does not stream');

  const app = await ctx.app({ query: '?stream=1&window_mb=4' });
  const out = await app.openViaInput(file);
  assert.equal(out.type, 'strata:loaded', JSON.stringify(out.detail));
  const stats = out.detail;
  assert.equal(stats.events, fst.detail.events, 'the pass reads every event of the file');
  assert.equal(stats.slices, fst.detail.slices);
  const st0 = await app.page.evaluate(() => window.strata.streaming());
  assert.equal(st0.files.length, 1);
  assert.equal(st0.files[0].windows, true);
  assert.ok(st0.files[0].blocks > 2, `the file is indexed in blocks: ${JSON.stringify(st0)}`);
  // zoomed out over the whole trace (12 MB > window_mb 4): the summary
  await settle(app);
  let st = await app.page.evaluate(() => window.strata.streaming());
  assert.equal(st.files[0].window_ns, null, 'zoomed out: the summary is shown');
  assert.match(await status(app), /streaming: summary/);
  assert.ok(stats.streaming && stats.streaming.files.length === 1, 'stats() says the file streams');

  // zoom in to 0.2 % of the trace: its window is read from the file
  const a = t0us + spanUs * 0.4;
  const b = a + spanUs * 0.002;
  await setView(app, a, b);
  await setView(full, a, b);
  st = await settle(app);
  assert.ok(st.files[0].window_ns, `zoomed in: a window is shown: ${JSON.stringify(st)}`);
  const v = await app.page.evaluate(() => window.strata.view());
  assert.equal(v.pending, 0, 'view().pending: nothing left to read');
  assert.ok(Math.abs(v.start_us - a) < 1e-3 && Math.abs(v.end_us - b) < 1e-3, `the view stays where it was: ${JSON.stringify(v)}`);
  assert.match(await status(app), /streaming: events of this window/);
  // what the window shows equals the full load's
  const sw = await summarize(app);
  const sf = await summarize(full);
  assert.ok(sf.events > 100, `the window holds events: ${sf.events}`);
  assert.deepEqual(sw, sf, 'the summary table of the visible window: streamed = resident');
  const found = await app.page.evaluate(() => window.strata.search('op7'));
  const foundFull = await full.page.evaluate(() => window.strata.search('op7'));
  assert.ok(found.matches > 0);
  assert.ok(found.matches <= foundFull.matches, 'search runs over the window read');

  // another window, far away
  const c = t0us + spanUs * 0.85;
  await setView(app, c, c + spanUs * 0.001);
  await setView(full, c, c + spanUs * 0.001);
  st = await settle(app);
  assert.ok(st.files[0].window_ns[0] <= (c - t0us) * 1000, 'the new window covers the view');
  assert.deepEqual(await summarize(app), await summarize(full));

  // zoomed back out: the summary comes back
  await app.page.evaluate(() => window.strata.setView({ start_us: 0, end_us: 1e12 }));
  await app.page.evaluate(() => window.strata.stats()); // (no-op: the view event schedules the swap)
  st = await settle(app);
  assert.equal(st.files[0].window_ns, null, 'zoomed out again: the summary');
  assert.deepEqual(app.pageErrors, []);
  assert.deepEqual(app.consoleErrors, []);
});

test('streaming starts by itself when the resident model would pass the heap budget', async () => {
  const small = await ctx.app({ query: '?budget_mb=2' });
  const out = await small.openViaInput(file);
  assert.equal(out.type, 'strata:loaded', JSON.stringify(out.detail));
  assert.ok(out.detail.streaming, 'a 12 MB trace under a 2 MiB budget streams');
  const roomy = await ctx.app({ query: '?budget_mb=512' });
  const out2 = await roomy.openViaInput(file);
  assert.equal(out2.detail.streaming, undefined, 'under a 512 MiB budget it loads resident, as before');
});

test('a trace opened by URL streams its windows through HTTP Range; a server that ignores Range is told apart', async () => {
  const srv = await serve(dir);
  const noRange = await serve(dir, ['--no-range']);
  try {
    const app = await ctx.app({ server: { url: srv.url }, query: `?url=${srv.data}big.trace.json&stream=1&window_mb=4` });
    // loaded: the pass over, the file streaming (not only its preview drawn)
    await app.page.waitForFunction(() => window.strata.streaming()?.files.length > 0, null, { timeout: 120_000 });
    // zoomed out, the whole trace's events (64 B each, ~7.8 MB) pass window_mb=4: the summary
    const st0 = await settle(app);
    assert.equal(st0.files[0].window_ns, null, `zoomed out: the summary: ${JSON.stringify(st0)}`);
    // the file's requests that carry a Range header, as the browser sent them
    const ranged = [];
    app.page.context().on('request', (r) => {
      if (r.url().includes('big.trace.json') && r.headers().range) ranged.push(r.headers().range);
    });
    const a = t0us + spanUs * 0.3;
    await setView(app, a, a + spanUs * 0.002);
    const st = await settle(app);
    assert.ok(st.files[0].window_ns, `a window read by ranges: ${JSON.stringify(st)}`);
    // request events reach the test asynchronously: wait for them (a state, not a time)
    for (let i = 0; i < 600 && !ranged.length; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(ranged.length > 0, 'the window was read with requests of its own (Range)');
    assert.ok(ranged.every((h) => /^bytes=\d+-\d+$/.test(h)), `ranges asked: ${ranged.join(', ')}`);
    assert.deepEqual(app.pageErrors, []);

    const bad = await ctx.app({ server: { url: noRange.url }, query: `?url=${noRange.data}big.trace.json&stream=1&window_mb=4` });
    await bad.page.waitForFunction(() => window.strata.streaming()?.files.length > 0, null, { timeout: 120_000 });
    await setView(bad, a, a + spanUs * 0.002);
    const st2 = await settle(bad);
    assert.equal(st2.files[0].window_ns, null, 'no window without Range: the summary stays');
    const err = await bad.page.evaluate(() => document.getElementById('error').textContent);
    assert.match(err, /ignores HTTP Range requests/, err);
    assert.equal(await bad.page.evaluate(() => window.strata.view().pending), 0, 'nothing left hanging');
  } finally {
    srv.close();
    noRange.close();
  }
});

test('a profile of several files streams each: every file in view reads its window', async () => {
  const copy = path.join(dir, 'rank1.trace.json');
  fs.copyFileSync(file, copy);
  const app = await ctx.app({ query: '?stream=1&window_mb=4' });
  const out = await app.openViaInput([file, copy]);
  assert.equal(out.type, 'strata:loaded', JSON.stringify(out.detail));
  let st = await app.page.evaluate(() => window.strata.streaming());
  assert.equal(st.files.length, 2, 'both files stream');
  const v = await app.page.evaluate(() => window.strata.view());
  const a = v.start_us + (v.end_us - v.start_us) * 0.5;
  await setView(app, a, a + spanUs * 0.002);
  st = await settle(app);
  assert.ok(st.files.every((f) => f.window_ns), `each file shows its window: ${JSON.stringify(st)}`);
  const sum = await summarize(app);
  const one = sum.rows.reduce((n, r) => n + r[1], 0);
  assert.ok(one > 100, 'the windows hold events');
  assert.deepEqual(app.pageErrors, []);
});

test('while the pass runs, its summary so far is drawn (the first frame before the pass ends)', async () => {
  const app = await ctx.app({ query: '?stream=1&preview_ms=0' });
  // frames drawn before strata:loaded, counted by the page itself
  await app.page.evaluate(() => {
    window.__framesBeforeLoaded = -1;
    window.addEventListener('strata:loaded', () => { window.__framesBeforeLoaded = window.strata.frameStats().frames; }, { once: true });
  });
  const framesAtStart = await app.page.evaluate(() => window.strata.frameStats().frames);
  const out = await app.openViaInput(file);
  assert.equal(out.type, 'strata:loaded', JSON.stringify(out.detail));
  const st = await app.page.evaluate(() => window.strata.streaming());
  assert.ok(st.previews >= 2, `summaries drawn while the pass ran: ${st.previews}`);
  assert.ok(st.preview_events > 0 && st.preview_events < st.files[0].summary_events * 2, JSON.stringify(st));
  const before = await app.page.evaluate(() => window.__framesBeforeLoaded);
  assert.ok(before - framesAtStart >= 2, `frames drawn before the load ended: ${before - framesAtStart}`);
  assert.deepEqual(app.pageErrors, []);
});

// The heap hook (wasm/api.c st_wasm_test_heap_budget): the app's allocations
// refused past what it holds now plus `more` bytes, as when memory is full.
const heapBudget = (app, more) => app.page.evaluate((m) => window.__strataModule._st_wasm_test_heap_budget(m, 0), more);
// a page whose wasm module the test may reach (the heap hook)
async function hookedApp(query) {
  const app = await newApp(ctx.browser, ctx.server, { allRequests: ctx.requests });
  ctx.apps.push(app);
  await app.page.addInitScript(CAPTURE_MODULE);
  await app.goto(query);
  await app.ready();
  return app;
}

test('under a heap budget several times smaller than the resident model: sorted and unsorted traces, plain and gzip, stream; their windows equal a full load', async () => {
  // ~75 MB, 800,000 X events on 8 threads (and counters), in time order;
  // and the same lines shuffled (every 4 MiB block then spans all the time)
  const n = 800_000;
  const lines = [];
  for (let i = 0; i < n; i++) {
    lines.push(`{"ph":"X","pid":1,"tid":${1 + (i % 8)},"ts":${t0us + i / 8},"dur":0.1,"name":"k${i % 17}","cat":"c"}`);
    if (i % 101 === 0) lines.push(`{"ph":"C","pid":1,"ts":${t0us + i / 8},"name":"q","args":{"v":${i % 977}}}`);
  }
  const sorted = path.join(dir, 'sorted800k.trace.json');
  fs.writeFileSync(sorted, `{"traceEvents":[\n${lines.join(',\n')}\n]}\n`);
  let r = 12345;
  for (let i = lines.length - 1; i > 0; i--) {
    r = (r * 1103515245 + 12345) & 0x7fffffff;
    const j = r % (i + 1);
    [lines[i], lines[j]] = [lines[j], lines[i]];
  }
  const shuffled = path.join(dir, 'shuffled800k.trace.json');
  fs.writeFileSync(shuffled, `{"traceEvents":[\n${lines.join(',\n')}\n]}\n`);
  // and both gzip'd: windows inflated from restart points; the shuffled
  // one's copy made from the compressed file
  const zlib = await import('node:zlib');
  for (const f of [sorted, shuffled]) fs.writeFileSync(`${f}.gz`, zlib.gzipSync(fs.readFileSync(f), { level: 1 }));
  const MB = 1 << 20;
  const span = n / 8;
  for (const f of [sorted, shuffled, `${sorted}.gz`, `${shuffled}.gz`]) {
    const name = path.basename(f);
    // the resident model alone is ~3x the budget
    const full = await ctx.app({ query: '?stream=0' });
    const of = await full.openViaInput(f);
    assert.equal(of.type, 'strata:loaded');
    const res = await hookedApp('?stream=0');
    await heapBudget(res, 16 * MB);
    const o1 = await res.openViaInput(f);
    assert.equal(o1.type, 'strata:error', `${name}: resident, the model passes 16 MiB: ${JSON.stringify(o1).slice(0, 300)}`);
    // streamed under the same budget: opens, and windows are read
    const app = await hookedApp('?stream=1&budget_mb=16');
    await heapBudget(app, 16 * MB);
    const o2 = await app.openViaInput(f);
    assert.equal(o2.type, 'strata:loaded', `${name}: ${JSON.stringify(o2.detail).slice(0, 300)}`);
    for (const at of [0.23, 0.61]) {
      const a = t0us + span * at;
      const b = a + span * 0.0005;
      await setView(app, a, b);
      await setView(full, a, b);
      const st = await settle(app);
      assert.ok(st.files[0].window_ns, `${name}: a window within the budget: ${JSON.stringify(st)}`);
      const sw = await summarize(app);
      assert.ok(sw.events > 50, `${name}: the window holds events`);
      assert.deepEqual(sw, await summarize(full), `${name}: the window's summary table: streamed = resident`);
      // the shuffled trace's windows come from its re-ordered copy (in the
      // browser's own storage), the sorted one's from the file
      const shuffledOne = f.startsWith(shuffled);
      assert.equal(st.files[0].unsorted, shuffledOne, `${name}: unsorted`);
      assert.equal(st.files[0].copy, shuffledOne ? "done" : null, `${name}: ${JSON.stringify(st.files[0])} ${st.copy_note}`);
      assert.equal((await status(app)).includes('from the re-ordered copy'), shuffledOne, await status(app));
      if (shuffledOne) assert.ok(st.files[0].copy_bytes === 48 * (n + Math.ceil(n / 101)), `${name}: one 48-byte record per event: ${st.files[0].copy_bytes}`);
      const shown = await app.page.evaluate(() => { const e = document.getElementById('error'); return e && !e.hidden ? e.textContent : ''; });
      assert.equal(shown, '', `${name}: no error or warning shown`);
    }
    assert.deepEqual(app.pageErrors, []);
    await full.close();
    await res.close();
    await app.close();
  }
});

test('opened with its index file (strata index): no pass; a stale index is refused and the trace read instead; by URL with ?index= or a sibling .stx', async () => {
  const { execFileSync } = await import('node:child_process');
  const { CLI } = await import('./harness.mjs');
  const stx = `${file}.stx`;
  execFileSync(CLI, ['index', file, '-o', stx]);
  const full = await ctx.app({ query: '?stream=0' });
  const fst = await full.openViaInput(file);
  // the trace and its index chosen together
  const app = await ctx.app({ query: '?window_mb=4' });
  const out = await app.openViaInput([file, stx]);
  assert.equal(out.type, 'strata:loaded', JSON.stringify(out.detail));
  assert.equal(out.detail.streaming && out.detail.streaming.from_index, true, 'opened from the index');
  assert.equal(out.detail.events, fst.detail.events, 'the index keeps the pass\'s figures');
  assert.equal(out.detail.streaming.previews, 0, 'no pass ran');
  const a = t0us + spanUs * 0.52;
  await setView(app, a, a + spanUs * 0.002);
  await setView(full, a, a + spanUs * 0.002);
  const st = await settle(app);
  assert.ok(st.files[0].window_ns, 'a window read');
  assert.deepEqual(await summarize(app), await summarize(full), 'the window equals a resident load');
  // a stale index: the file changed after indexing
  const changed = path.join(dir, 'changed.trace.json');
  fs.writeFileSync(changed, fs.readFileSync(file, 'utf8').replace('"name":"op5"', '"name":"OP5"'));
  fs.copyFileSync(stx, `${changed}.stx`);
  const app2 = await ctx.app({ query: '?window_mb=4' });
  const out2 = await app2.openViaInput([changed, `${changed}.stx`]);
  assert.equal(out2.type, 'strata:loaded', JSON.stringify(out2.detail));
  assert.ok(!out2.detail.streaming || !out2.detail.streaming.from_index, 'the stale index was not used');
  const warn = await app2.page.evaluate(() => document.getElementById('error').textContent);
  assert.match(warn, /index does not match changed\.trace\.json.*reading the whole trace instead/, warn);
  // by URL: ?index= and a sibling <url>.stx (streamed traces look for one)
  const srv = await serve(dir);
  try {
    for (const q of [`?url=${srv.data}big.trace.json&index=${srv.data}big.trace.json.stx&window_mb=4`, `?url=${srv.data}big.trace.json&stream=1&window_mb=4`]) {
      const u = await ctx.app({ server: { url: srv.url }, query: q });
      await u.page.waitForFunction(() => window.strata.stats() && window.strata.stats().events > 0, null, { timeout: 120_000 });
      const s = await u.page.evaluate(() => window.strata.stats());
      assert.equal(s.streaming && s.streaming.files.length, 1, q);
      const state = await u.page.evaluate(() => window.__strataEvents.find((e) => e.type === 'strata:loaded').detail.streaming);
      assert.equal(state.from_index, true, `${q}: opened from the index`);
      await setView(u, a, a + spanUs * 0.002);
      const w = await settle(u);
      assert.ok(w.files[0].window_ns, `${q}: a window read by Range`);
      assert.deepEqual(await summarize(u), await summarize(full), `${q}: the window equals a resident load`);
    }
  } finally {
    srv.close();
  }
});

test('a gzip trace streams too: windows inflated from the pass\'s restart points, and from its index', async () => {
  const zlib = await import('node:zlib');
  const { execFileSync } = await import('node:child_process');
  const { CLI } = await import('./harness.mjs');
  const gz = path.join(dir, 'big.trace.json.gz');
  fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(file), { level: 6 }));
  execFileSync(CLI, ['index', gz, '-o', `${gz}.stx`]);
  const full = await ctx.app({ query: '?stream=0' });
  await full.openViaInput(file);
  const a = t0us + spanUs * 0.77;
  await setView(full, a, a + spanUs * 0.002);
  const want = await summarize(full);
  for (const pick of [[gz], [gz, `${gz}.stx`]]) {
    const app = await ctx.app({ query: '?stream=1&window_mb=4' });
    const out = await app.openViaInput(pick);
    assert.equal(out.type, 'strata:loaded', JSON.stringify(out.detail));
    assert.equal(out.detail.compressed, true);
    assert.equal(!!out.detail.streaming.from_index, pick.length === 2);
    await setView(app, a, a + spanUs * 0.002);
    const st = await settle(app);
    assert.ok(st.files[0].window_ns, `a window of the gzip trace: ${JSON.stringify(st)}`);
    assert.deepEqual(await summarize(app), want, `${pick.map((p) => path.basename(p)).join(' + ')}: the window equals a resident load`);
    assert.deepEqual(app.pageErrors, []);
  }
});

// the Origin Private File System's re-ordered copies (web/stream.js)
const opfsCopies = (app) => app.page.evaluate(async () => {
  const root = await navigator.storage.getDirectory();
  const names = [];
  for await (const [name] of root.entries()) if (name.startsWith('strata-copy-')) names.push(name);
  return names;
});

test('a Perfetto protobuf trace streams as a summary, then its re-ordered copy gives windows equal to a full load; the copy goes when the trace closes', async () => {
  const { execFileSync } = await import('node:child_process');
  const { CLI } = await import('./harness.mjs');
  const GEN = path.join(path.dirname(CLI), 'strata-gen');
  const pb = path.join(dir, 'system.pftrace');
  execFileSync(GEN, ['--perfetto', '-n', '300000', '--cpus', '4', '-o', pb]);
  const full = await ctx.app({ query: '?stream=0' });
  assert.equal((await full.openViaInput(pb)).type, 'strata:loaded');
  const info = await full.page.evaluate(() => window.strata.view());
  // under a heap budget several times smaller than the resident load needs:
  // resident is refused, streamed opens (its ftrace staging bounded too)
  const MB = 1 << 20;
  const res = await hookedApp('?stream=0');
  await heapBudget(res, 16 * MB);
  const o1 = await res.openViaInput(pb);
  assert.equal(o1.type, 'strata:error', `resident, past 16 MiB: ${JSON.stringify(o1).slice(0, 300)}`);
  await res.close();
  const app = await hookedApp('?stream=1&budget_mb=16');
  await heapBudget(app, 16 * MB);
  const o = await app.openViaInput(pb);
  assert.equal(o.type, 'strata:loaded', JSON.stringify(o.detail).slice(0, 300));
  const st = await settle(app);
  assert.equal(st.files[0].copy, 'done', JSON.stringify(st));
  assert.ok(st.files[0].windows, 'windows once the copy is made');
  assert.equal((await opfsCopies(app)).length, 1, 'the copy is in the browser\'s storage');
  const span = info.end_us - info.start_us;
  for (const at of [0.2, 0.7]) {
    const a = info.start_us + span * at;
    const b = a + span * 0.002;
    await setView(app, a, b);
    await setView(full, a, b);
    const s2 = await settle(app);
    assert.ok(s2.files[0].window_ns, `a window: ${JSON.stringify(s2)}`);
    const sw = await summarize(app);
    assert.ok(sw.events > 100, `the window holds events: ${sw.events}`);
    assert.deepEqual(sw, await summarize(full), 'the window\'s summary table: streamed (from the copy) = resident');
  }
  assert.ok((await status(app)).includes('from the re-ordered copy'), await status(app));
  // another trace replaces it (the budget lifted: both are held while it loads): its copy is removed
  await heapBudget(app, 512 * MB);
  assert.equal((await app.openViaInput(file)).type, 'strata:loaded');
  let left = [];
  for (const end = Date.now() + 120_000; Date.now() < end;) { // removed in the background: polled, generously
    left = await opfsCopies(app);
    if (!left.length) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(left, [], 'the closed trace\'s copy is removed');
  assert.deepEqual(app.pageErrors, []);
  await full.close();
  await app.close();
});

test('when the browser\'s storage refuses the re-ordered copy, the page says so and keeps reading windows from the file', async () => {
  // a shuffled trace of ~47 MB (11 blocks: a copy is wanted), 700,000 X events
  const lines = [];
  for (let i = 0; i < 700_000; i++) lines.push(`{"ph":"X","pid":1,"tid":${1 + (i % 4)},"ts":${t0us + i / 4},"dur":0.1,"name":"k${i % 11}"}`);
  let r = 777;
  for (let i = lines.length - 1; i > 0; i--) {
    r = (r * 48271) % 2147483647;
    const j = r % (i + 1);
    [lines[i], lines[j]] = [lines[j], lines[i]];
  }
  const f = path.join(dir, "shuffled700k.trace.json");
  fs.writeFileSync(f, `{"traceEvents":[\n${lines.join(',\n')}\n]}\n`);
  const full = await ctx.app({ query: '?stream=0' });
  assert.equal((await full.openViaInput(f)).type, 'strata:loaded');
  const app = await newApp(ctx.browser, ctx.server, { allRequests: ctx.requests });
  ctx.apps.push(app);
  // the storage fills up after a few writes (as an incognito window's does)
  await app.page.addInitScript(() => {
    let n = 0;
    const write = FileSystemWritableFileStream.prototype.write;
    FileSystemWritableFileStream.prototype.write = function (...a) {
      if (++n > 1) return Promise.reject(new DOMException('quota exceeded (test)', 'QuotaExceededError'));
      return write.apply(this, a);
    };
  });
  await app.goto('?stream=1&budget_mb=64');
  await app.ready();
  assert.equal((await app.openViaInput(f)).type, 'strata:loaded');
  const st = await settle(app);
  assert.equal(st.files[0].copy, null, JSON.stringify(st));
  assert.match(st.copy_note || "", /storage refused the copy/, JSON.stringify(st));
  const shown = await app.page.evaluate(() => document.getElementById('error').textContent);
  assert.match(shown, /streaming: no re-ordered copy: the browser's storage refused the copy/);
  assert.deepEqual(await opfsCopies(app), [], 'what was written is removed');
  const span = 700_000 / 4;
  const a = t0us + span * 0.4;
  const b = a + span * 0.001;
  await setView(app, a, b);
  await setView(full, a, b);
  const s2 = await settle(app);
  assert.ok(s2.files[0].window_ns, `a window read from the file: ${JSON.stringify(s2)}`);
  const sw = await summarize(app);
  assert.ok(sw.events > 20);
  assert.deepEqual(sw, await summarize(full), 'the window from the file = resident');
  assert.deepEqual(app.pageErrors, []);
  await full.close();
  await app.close();
});
