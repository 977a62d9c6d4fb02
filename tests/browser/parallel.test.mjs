// Issue 21 in the page: a Chrome JSON file split across parse workers
// (web/par_load.js, web/parse_worker.js, the strata_parse module) builds the
// model a one-worker load builds. Each load's model is compared by its
// st_trace_digest (the test-only export _st_wasm_test_digest; the module
// captured as the page creates it) and its stats; workers = 1 is the
// one-thread path of before. Loads through the real file input with
// ?workers=N in the page's address and through strata.open(file, {workers}).
// Traces: a generated one big enough for the core's own split plan (B/E
// pairs, async, flows and counters across the cuts, names that look like
// an event boundary, process/thread names after the events they name), the
// corpus's JSON traces cut small with the hidden ?taskbytes=, a broken and
// a truncated one (the same error / warning line), a parse worker that
// fails to start (its tasks parsed on the main thread), and the standalone
// report (no workers: its CSP) still loading.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { useBrowser, newApp, CORPUS, CLI, DIST, CAPTURE_MODULE } from './harness.mjs';

const ctx = useBrowser({ before, after });
let dir;
const files = {};
before(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-par-'));
  files.gen = path.join(dir, 'gen.trace.json');
  const text = genTrace(300_000);
  fs.writeFileSync(files.gen, text);
  // a syntax error at ~70 % of the file (in a later task than the first):
  // what comes before it is shown, with the error line as a warning
  const bad = text.indexOf('"dur":', Math.floor(text.length * 0.7));
  files.broken = path.join(dir, 'broken.trace.json');
  fs.writeFileSync(files.broken, text.slice(0, bad) + '"dur";' + text.slice(bad + 6));
  // a syntax error in the first event: nothing to show, the load fails
  const bad0 = text.indexOf('"ts":');
  files.broken0 = path.join(dir, 'broken0.trace.json');
  fs.writeFileSync(files.broken0, text.slice(0, bad0) + '"ts"=' + text.slice(bad0 + 5));
  // cut at ~85 %: a file damaged part-way (shown, with a warning)
  files.cut = path.join(dir, 'cut.trace.json');
  fs.writeFileSync(files.cut, text.slice(0, Math.floor(text.length * 0.85)));
  // compressed: whole, its compressed bytes cut at 60 % and damaged at 40 %,
  // and as zlib (a worker inflates, others parse: web/par_load.js)
  const gz = zlib.gzipSync(text, { level: 6 });
  files.gz = path.join(dir, 'gen.trace.json.gz');
  fs.writeFileSync(files.gz, gz);
  files.gzCut = path.join(dir, 'cut.trace.json.gz');
  fs.writeFileSync(files.gzCut, gz.subarray(0, Math.floor(gz.length * 0.6)));
  const dam = Buffer.from(gz);
  dam[Math.floor(dam.length * 0.4)] ^= 0x55;
  files.gzBad = path.join(dir, 'bad.trace.json.gz');
  fs.writeFileSync(files.gzBad, dam);
  files.zlib = path.join(dir, 'gen.trace.json.z');
  fs.writeFileSync(files.zlib, zlib.deflateSync(text));
});
after(async () => { if (dir) await fsp.rm(dir, { recursive: true, force: true }); });

// ~34 MB (above st_range_plan's 24 MiB threshold): n events of varied kinds.
function genTrace(n) {
  const ev = [];
  const open = new Map(); // tid -> B depth
  for (let i = 0; i < n; i++) {
    const tid = 1 + (i % 7);
    const pid = 1 + (i % 3);
    const ts = i * 3;
    switch (i % 13) {
      case 0: // a B whose E comes much later (across tasks)
        ev.push(`{"ph":"B","name":"outer${i % 5}","cat":"c","pid":${pid},"tid":${tid},"ts":${ts},"args":{"i":${i}}}`);
        open.set(`${pid}:${tid}`, (open.get(`${pid}:${tid}`) || 0) + 1);
        break;
      case 6: {
        const k = `${pid}:${tid}`;
        if (open.get(k)) {
          ev.push(`{"ph":"E","pid":${pid},"tid":${tid},"ts":${ts},"args":{"e":${i}}}`);
          open.set(k, open.get(k) - 1);
        } else ev.push(`{"ph":"i","name":"mark","pid":${pid},"tid":${tid},"ts":${ts},"s":"t"}`);
        break;
      }
      case 1: // async begin, its end 39,001 events later
        ev.push(`{"ph":"b","name":"req","cat":"net","id":"0x${i.toString(16)}","pid":${pid},"tid":${tid},"ts":${ts}}`);
        break;
      case 2:
        if (i > 39_001) ev.push(`{"ph":"e","name":"req","cat":"net","id":"0x${(i - 39_001).toString(16)}","pid":${pid},"tid":${tid},"ts":${ts}}`);
        else ev.push(`{"ph":"C","name":"mem","pid":${pid},"ts":${ts},"args":{"used":${i % 1000},"free":${1000 - (i % 1000)}}}`);
        break;
      case 3: // a flow from here to an event 20,008 later
        ev.push(`{"ph":"X","name":"send","cat":"f","pid":${pid},"tid":${tid},"ts":${ts},"dur":2}`);
        ev.push(`{"ph":"s","name":"flow","cat":"f","id":${i},"pid":${pid},"tid":${tid},"ts":${ts}}`);
        break;
      case 4:
        if (i > 20_008) {
          ev.push(`{"ph":"X","name":"recv","cat":"f","pid":${pid},"tid":${tid},"ts":${ts},"dur":2}`);
          ev.push(`{"ph":"f","bp":"e","name":"flow","cat":"f","id":${i - 20_008},"pid":${pid},"tid":${tid},"ts":${ts}}`);
        }
        break;
      case 5: // names and args that look like an element boundary
        ev.push(`{"ph":"X","name":"tricky },{ \\"ph\\":\\"X\\" ${i}","pid":${pid},"tid":${tid},"ts":${ts},"dur":1,"args":{"s":"} , {\\"name\\":\\"no\\"}","n":[1,{"a":"},{"}]}}`);
        break;
      default:
        ev.push(`{"ph":"X","name":"op${i % 17}","cat":"big","pid":${pid},"tid":${tid},"ts":${ts},"dur":${1 + (i % 3)},"args":{"i":${i},"t":"${'x'.repeat(i % 40)}"}}`);
    }
  }
  // metadata after the events it names (the last task's)
  for (let p = 1; p <= 3; p++) {
    ev.push(`{"ph":"M","name":"process_name","pid":${p},"tid":0,"args":{"name":"proc ${p}"}}`);
    for (let t = 1; t <= 7; t++) ev.push(`{"ph":"M","name":"thread_name","pid":${p},"tid":${t},"args":{"name":"thread ${p}.${t}"}}`);
  }
  return `{"displayTimeUnit":"ns","traceEvents":[\n${ev.join(',\n')}\n],"otherData":{"host":"gen"}}\n`;
}

async function page(query = '', setup) {
  const app = await newApp(ctx.browser, ctx.server, { allRequests: ctx.requests });
  ctx.apps.push(app);
  await app.page.addInitScript(CAPTURE_MODULE);
  if (setup) await setup(app);
  await app.goto(query);
  await app.ready();
  await app.demoLoaded();
  return app;
}

// The shown trace's digest (hex) and stats, and the message of the last strata:error / #error.
async function model(app) {
  return app.page.evaluate(() => {
    const M = window.__strataModule;
    const p = M._malloc(65);
    const ok = M._st_wasm_test_digest(window.strata.traces()[0].handle, p);
    const digest = ok ? M.UTF8ToString(p) : null;
    M._free(p);
    const { load_ms, heap_bytes, import_peak_bytes, ...stats } = window.strata.stats();
    const err = document.getElementById('error');
    return { digest, stats, banner: err.hidden ? '' : err.textContent, importPeak: import_peak_bytes };
  });
}

// strata.open(the file, {workers}) through a File chosen in an input of the test's own.
async function openFile(app, file, workers) {
  await app.page.evaluate(() => {
    if (document.getElementById('t-input')) return;
    const i = document.createElement('input');
    i.type = 'file';
    i.id = 't-input';
    i.hidden = true;
    document.body.append(i);
  });
  await app.page.setInputFiles('#t-input', file);
  return app.page.evaluate(async (w) => {
    try {
      const s = await window.strata.open(document.getElementById('t-input').files[0], w ? { workers: w } : undefined);
      return { ok: true, workers: s.workers };
    } catch (e) {
      return { ok: false, message: String(e.message) };
    }
  }, workers);
}

const omitWorkers = ({ workers, worker_heap_bytes, ...rest }) => rest;

test('a generated 34 MB trace: ?workers=1, 2, 3 in the address (file input) build the same model', async () => {
  let one = null;
  for (const w of [1, 2, 3]) {
    const app = await page(`?workers=${w}`);
    const ev = await app.openViaInput(files.gen, { timeout: 120_000 });
    assert.equal(ev.type, 'strata:loaded', `workers=${w}: ${JSON.stringify(ev.detail)}\n${app.diagnostics()}`);
    const m = await model(app);
    assert.match(m.digest, /^[0-9a-f]{64}$/);
    if (w === 1) {
      assert.equal(m.stats.workers, undefined, 'one worker: the one-thread path (no workers in stats)');
      assert.equal(ev.detail.workers, undefined);
      assert.equal(m.stats.events > 300_000, true, `${m.stats.events} events`);
      // the import's peak heap (wasm/heap_budget.h) against the CLI's peak
      // heap for the same file on one thread (the same core code, counted
      // by another allocator on a 64-bit machine). The importer's window
      // grows to hold a push: the page pushes 4 MiB pieces, the CLI 1 MiB,
      // so the page's window is up to 8 MiB where the CLI's is 2
      const cli = JSON.parse(execFileSync(CLI, ['stats', files.gen, '--json', '--threads', '1'], { encoding: 'utf8' }));
      assert.ok(m.importPeak > 0.95 * cli.heap_bytes && m.importPeak < cli.heap_bytes + (8 << 20),
        `import peak ${m.importPeak} B in the page, the CLI's peak heap ${cli.heap_bytes} B`);
      one = m;
    } else {
      assert.equal(m.stats.workers, w, `workers=${w}: stats().workers`);
      assert.equal(ev.detail.workers, w, 'strata:loaded says the workers too');
      assert.equal(m.digest, one.digest, `workers=${w}: the model differs from one worker's`);
      assert.deepEqual(omitWorkers(m.stats), one.stats, `workers=${w}: stats differ`);
      assert.equal(m.banner, one.banner);
      // results joined as they arrive, not held until the end
      assert.ok(m.importPeak < 1.3 * one.importPeak, `workers=${w}: import peak ${m.importPeak} B, one thread ${one.importPeak} B`);
    }
    assert.deepEqual(app.pageErrors, []);
    const asked = app.requests.filter((u) => u.endsWith('/parse_worker.js')).length;
    assert.equal(asked, w === 1 ? 0 : w, `workers=${w}: parse workers started`);
    await app.close();
  }
});

test('open(file, {workers}) on one page: 1, 3, 2 and the default give one model; workers are kept for the next load', async () => {
  const app = await page();
  const got = [];
  for (const w of [1, 3, 2, undefined]) {
    const r = await openFile(app, files.gen, w);
    assert.ok(r.ok, `workers=${w}: ${r.message}\n${app.diagnostics()}`);
    got.push({ w, r, m: await model(app) });
  }
  // the default splits files of 64 MiB and more only (par_load.js
  // DEFAULT_MIN_SPLIT; the next test): this one is read on one thread
  assert.deepEqual(got.map((g) => g.r.workers), [undefined, 3, 2, undefined]);
  for (const g of got.slice(1)) {
    assert.equal(g.m.digest, got[0].m.digest, `workers=${g.w}: the model differs`);
    assert.deepEqual(omitWorkers(g.m.stats), got[0].m.stats);
  }
  // three workers started once, for all three split loads
  assert.equal(app.requests.filter((u) => u.endsWith('/parse_worker.js')).length, 3);
  assert.equal(app.requests.filter((u) => u.endsWith('/strata_parse.wasm')).length, 1, 'the parse module compiled once');
  assert.deepEqual(app.pageErrors, []);
});

test('the default count on 4 cores: 3 workers for a 70 MB file, one thread for a 34 MB one (worker start-up would cost more than it saves)', async () => {
  const big = path.join(dir, 'big.trace.json');
  fs.writeFileSync(big, genTrace(640_000));
  assert.ok(fs.statSync(big).size > 64 * 2 ** 20, `${fs.statSync(big).size} bytes`);
  const app = await page('', (a) => a.page.addInitScript(() =>
    Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 4 })));
  const small = await openFile(app, files.gen);
  assert.ok(small.ok, small.message);
  assert.equal(small.workers, undefined, 'the 34 MB file: one thread by default');
  const r = await openFile(app, big);
  assert.ok(r.ok, `${r.message}\n${app.diagnostics()}`);
  assert.equal(r.workers, 3, 'the 70 MB file: the cores less one');
  const split = await model(app);
  const one = await openFile(app, big, 1);
  assert.ok(one.ok, one.message);
  assert.equal(one.workers, undefined);
  const m1 = await model(app);
  assert.equal(split.digest, m1.digest, 'the default split builds the one-thread model');
  assert.deepEqual(omitWorkers(split.stats), m1.stats);
  assert.deepEqual(app.pageErrors, []);
  await fsp.rm(big, { force: true });
});

test('broken traces: the same error line with its byte offset (failed, or shown up to the error); a truncated one: the same warning and model', async () => {
  const app = await page();
  const out = {};
  for (const w of [1, 3]) {
    const r = await openFile(app, files.broken0, w);
    assert.equal(r.ok, false, `workers=${w}: a file broken in its first event must not load`);
    out[w] = r.message;
  }
  assert.match(out[1], /at byte \d+/, out[1]);
  assert.equal(out[3], out[1], 'three workers: the one-worker error line');
  const digests = new Set();
  for (const f of [files.broken, files.cut]) {
    const m = {};
    for (const w of [1, 3]) {
      const r = await openFile(app, f, w);
      assert.ok(r.ok, `${path.basename(f)}, workers=${w}: ${r.message}`);
      assert.equal(r.workers, w === 1 ? undefined : w);
      m[w] = await model(app);
    }
    assert.match(m[1].banner, /at byte \d+/, `${path.basename(f)}: shown with a warning that names the byte`);
    assert.equal(m[3].banner, m[1].banner, `${path.basename(f)}: the one-worker warning`);
    assert.equal(m[3].digest, m[1].digest, `${path.basename(f)}: the model differs`);
    // bytes_in / bytes_decoded of a load stopped by an error say how far it
    // read, which depends on the pieces pushed (4 MiB here, the CLI's own size
    // natively), not on the model: compared for the truncated file only
    const read = f === files.broken ? ({ bytes_in, bytes_decoded, ...rest }) => rest : (x) => x;
    assert.deepEqual(read(omitWorkers(m[3].stats)), read(m[1].stats));
    digests.add(m[1].digest);
  }
  assert.equal(digests.size, 2, 'the two damaged files built different models: different digests');
});

// The corpus's Chrome JSON traces (and a V8 .cpuprofile) cut into small
// tasks (every cut lands inside some event or string): one worker vs three.
const CORPUS_JSON = fs.existsSync(CORPUS)
  ? fs.readdirSync(CORPUS).filter((f) => /\.(json|cpuprofile)$/.test(f)).map((f) => path.join(CORPUS, f)) : [];
test('corpus JSON traces cut small (?taskbytes=): three workers build the one-worker model', { skip: !CORPUS_JSON.length && `no corpus at ${CORPUS}` }, async () => {
  const groups = [[997, (s) => s < 20_000], [20_011, (s) => s >= 20_000 && s < 1_000_000], [300_007, (s) => s >= 1_000_000]];
  let split = 0;
  for (const [tb, fits] of groups) {
    const list = CORPUS_JSON.filter((f) => fits(fs.statSync(f).size));
    if (!list.length) continue;
    const app = await page(`?taskbytes=${tb}`);
    for (const f of list) {
      const name = path.basename(f);
      const a = await openFile(app, f, 1);
      const ma = a.ok ? await model(app) : null;
      const b = await openFile(app, f, 3);
      assert.equal(b.ok, a.ok, `${name}: ${a.message || ''} / ${b.message || ''}`);
      if (!a.ok) {
        assert.equal(b.message, a.message, `${name}: the same error line`);
        continue;
      }
      const mb = await model(app);
      assert.equal(mb.digest, ma.digest, `${name} (tasks of ${tb} bytes): the model differs from one worker's`);
      assert.deepEqual(omitWorkers(mb.stats), ma.stats, `${name}: stats differ`);
      assert.equal(mb.banner, ma.banner, `${name}: the warning differs`);
      if (b.workers !== undefined) split++;
    }
    assert.deepEqual(app.pageErrors, []);
    await app.close();
  }
  assert.ok(split >= CORPUS_JSON.length - 2, `${split} of ${CORPUS_JSON.length} corpus files went through the workers`);
});

test('parse workers that fail to start: all refused or their module refused -> parsed on the main thread; the first refused -> two of three', async () => {
  const want = await (async () => {
    const app = await page('?workers=1');
    await app.openViaInput(files.gen, { timeout: 120_000 });
    const m = await model(app);
    await app.close();
    return m;
  })();
  for (const refuse of ['all', 'first', 'module']) {
    let n = 0;
    const url = refuse === 'module' ? '**/strata_parse.wasm' : '**/parse_worker.js';
    const app = await page('?workers=3', (a) => a.context.route(url, (r) => (refuse !== 'first' || n++ === 0 ? r.abort() : r.continue())));
    const ev = await app.openViaInput(files.gen, { timeout: 120_000 });
    assert.equal(ev.type, 'strata:loaded', `${refuse}: ${JSON.stringify(ev.detail)}\n${app.diagnostics()}`);
    const m = await model(app);
    assert.equal(m.digest, want.digest, `${refuse} refused: the model differs`);
    assert.deepEqual(omitWorkers(m.stats), want.stats);
    assert.equal(m.stats.workers, refuse === 'first' ? 2 : 0, `${refuse} refused: workers used`);
    assert.ok(app.failedRequests.some(([u]) => u.endsWith(refuse === 'module' ? '/strata_parse.wasm' : '/parse_worker.js')), 'a worker script was refused');
    assert.deepEqual(app.pageErrors, []);
    await app.close();
  }
});

test('gzip and zlib traces: one worker inflates, others parse (?workers=2, 3; tasks of 1 MiB / 300 kB) -> the one-thread model, stats and gzip error; with no worker the page inflates itself', async () => {
  for (const f of [files.gz, files.gzCut, files.gzBad, files.zlib]) {
    const name = path.basename(f);
    let one = null;
    for (const q of ['?workers=1', '?workers=2&taskbytes=1048576', '?workers=3&taskbytes=300000', 'refused']) {
      const app = await page(q === 'refused' ? '?workers=2&taskbytes=1048576' : q,
        q === 'refused' ? (a) => a.context.route('**/parse_worker.js', (r) => r.abort()) : undefined);
      const ev = await app.openViaInput(f, { timeout: 120_000 });
      assert.equal(ev.type, one ? one.type : ev.type, `${name} ${q}: ${JSON.stringify(ev.detail)}`);
      const m = ev.type === 'strata:loaded' ? await model(app) : { banner: String(ev.detail) };
      if (!one) {
        one = { type: ev.type, m };
        assert.equal(m.stats && m.stats.workers, undefined, `${name}: one thread`);
        if (f === files.gz || f === files.zlib) assert.equal(ev.type, 'strata:loaded');
        if (f === files.gzBad || f === files.gzCut) assert.match(m.banner, /at byte \d+/, `${name}: said where`);
      } else {
        assert.equal(m.digest, one.m.digest, `${name} ${q}: the model differs from one thread's`);
        assert.equal(m.banner, one.m.banner, `${name} ${q}: the error line differs`);
        if (m.stats) {
          const { bytes_in, bytes_decoded, ...rest } = omitWorkers(m.stats);
          const { bytes_in: b1, bytes_decoded: d1, ...rest1 } = one.m.stats;
          assert.deepEqual(rest, rest1, `${name} ${q}: stats differ`);
          if (f === files.gz || f === files.zlib) assert.deepEqual([bytes_in, bytes_decoded], [b1, d1]);
          assert.equal(m.stats.compressed, true);
          if (q !== 'refused' && (f === files.gz || f === files.zlib)) assert.ok(m.stats.workers >= 1, `${name} ${q}: split (${m.stats.workers} workers)`);
        }
      }
      assert.deepEqual(app.pageErrors, []);
      await app.close();
    }
  }
});

test('the standalone report (no workers: its CSP) still loads, and opens a file that would be split on one thread', { skip: !fs.existsSync(CLI) && `no native CLI at ${CLI}` }, async () => {
  const small = path.join(dir, 'small.trace.json');
  fs.writeFileSync(small, genTrace(2000));
  const html = path.join(dir, 'report.html');
  execFileSync(CLI, ['export', small, '-o', html, '--dist', DIST]);
  const app = await newApp(ctx.browser, ctx.server, { allRequests: [] });
  ctx.apps.push(app);
  await app.page.goto(pathToFileURL(html).href + '?workers=3', { waitUntil: 'load' });
  await app.ready();
  const ev = await app.nextOutcome(0, { timeout: 120_000 });
  assert.equal(ev.type, 'strata:loaded', `${JSON.stringify(ev.detail)}\n${app.diagnostics()}`);
  assert.equal(ev.detail.workers, undefined, 'no workers in a standalone file');
  const ev2 = await app.openViaInput(files.gen, { timeout: 120_000 });
  assert.equal(ev2.type, 'strata:loaded', `${JSON.stringify(ev2.detail)}\n${app.diagnostics()}`);
  assert.equal(ev2.detail.workers, undefined, 'no workers in a standalone file');
  assert.ok(ev2.detail.events > 300_000);
  assert.equal(app.requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:')).length, 0, 'no request');
  assert.deepEqual(app.pageErrors, []);
  assert.deepEqual(app.consoleErrors, [], 'no worker refused by the CSP (none asked for)');
});
