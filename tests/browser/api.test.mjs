// window.strata.open() as embedders call it, checked against the native CLI:
// the page and `strata stats --json` run the same core and must agree.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { useBrowser, writeFixtures, CLI, CORPUS, privacyReport, OFFSET_RE, garbageBytes } from './harness.mjs';

const run = promisify(execFile);
const ctx = useBrowser({ before, after });
let fx;
before(async () => { fx = await writeFixtures(); });
after(async () => { await fx?.cleanup(); });

const HAVE_CLI = fs.existsSync(CLI);
const NO_CLI = !HAVE_CLI && `native CLI not built (${CLI}); build it: cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release && cmake --build build/native -j2`;

async function cliStats(file) {
  const { stdout } = await run(CLI, ['stats', file, '--json'], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout);
}
function strip(s) { const { load_ms, heap_bytes, import_peak_bytes, ...rest } = s; return rest; }

// The small fixtures plus a few small corpus files with varied features.
function cases() {
  const c = [
    ['small.trace.json (fixture)', fx.paths.json],
    ['small.trace.json.gz (fixture)', fx.paths.gz],
  ];
  for (const f of ['fxprof__chrome-tracing.json.gz', 'catapult__flow.json', 'catapult__simple_trace_gz.gz',
    'catapult__async_begin_end.json', 'speedscope__simple-partial.json']) {
    const p = path.join(CORPUS, f);
    if (fs.existsSync(p)) c.push([`corpus ${f}`, p]);
  }
  return c;
}

test('open(ArrayBuffer) resolves with the same stats as `strata stats --json` (except load_ms, heap_bytes)', { skip: NO_CLI }, async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  for (const [label, file] of cases()) {
    const want = await cliStats(file);
    const got = await app.openBuffer(fs.readFileSync(file));
    assert.ok(got.ok, `${label}: open() rejected: ${got.message}`);
    assert.equal(typeof got.stats.load_ms, 'number', `${label}: load_ms is a number`);
    assert.equal(typeof got.stats.heap_bytes, 'number', `${label}: heap_bytes is a number`);
    assert.deepEqual(strip(got.stats), strip(want), `${label}: page stats differ from the CLI's`);
    const now = await app.stats();
    assert.deepEqual(strip(now), strip(got.stats), `${label}: stats() after open() equals what open() resolved with`);
  }
});

test('open(ArrayBuffer) of the fixture resolves with the expected numbers and fires strata:loaded', async (t) => {
  // Independent of the CLI: runs even when the native build is missing.
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const n = await app.eventCount();
  const got = await app.openBuffer(fx.trace.bytes);
  assert.ok(got.ok, `open() rejected: ${got.message}`);
  const e = fx.trace.expect;
  for (const k of ['format', 'events', 'slices', 'processes', 'threads']) assert.equal(got.stats[k], e[k], k);
  assert.equal(got.stats.compressed, false);
  const ev = await app.nextOutcome(n);
  assert.equal(ev.type, 'strata:loaded');
  assert.equal(ev.detail.events, e.events);
});

test('open() also takes a Uint8Array and a Blob', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const b64 = fx.gz.toString('base64');
  const r = await app.page.evaluate(async (b64) => {
    const bin = atob(b64);
    const u8 = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    const a = await window.strata.open(u8);
    const b = await window.strata.open(new Blob([u8]));
    return [a.events, a.compressed, b.events, b.compressed];
  }, b64);
  assert.deepEqual(r, [19, true, 19, true]);
});

test('open() of garbage rejects with an Error carrying the one-line diagnosis; stats() keep the old trace', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  const s0 = await app.demoLoaded();
  const n = await app.eventCount();
  const got = await app.openBuffer(garbageBytes());
  assert.equal(got.ok, false, 'open() must reject on garbage');
  assert.equal(got.isError, true, 'rejects with an Error');
  assert.ok(!/[\r\n]/.test(got.message.trim()), `one line: ${JSON.stringify(got.message)}`);
  assert.match(got.message, OFFSET_RE, 'names a byte offset');
  const ev = await app.nextOutcome(n);
  assert.equal(ev.type, 'strata:error');
  assert.equal(typeof ev.detail === 'string' ? ev.detail : ev.detail?.message, got.message, 'strata:error detail is the same message');
  assert.equal((await app.stats()).events, s0.events, 'the previous trace is kept');
  if (HAVE_CLI) {
    // Same diagnosis as the CLI: at least the same byte offset.
    let line = '';
    try { await run(CLI, ['stats', fx.paths.garbage, '--json']); assert.fail('CLI accepted garbage'); }
    catch (e) { line = String(e.stderr || '').trim(); assert.ok(e.code !== 0, 'CLI exits non-zero'); }
    const cliOff = line.match(OFFSET_RE)?.[2], pageOff = got.message.match(OFFSET_RE)?.[2];
    assert.equal(pageOff, cliOff, `page and CLI name the same offset: page ${JSON.stringify(got.message)}, CLI ${JSON.stringify(line)}`);
  }
});

// A file damaged part-way: the CLI and the page share the core, so they must
// make the same call (both refuse it, or both keep what was read, with the
// same stats). Which call is right is a product decision; disagreeing is a bug.
test('a gzip damaged part-way: open() and `strata stats --json` agree (both refuse, or both keep the same stats)', { skip: NO_CLI }, async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  let cli;
  try {
    const { stdout, stderr } = await run(CLI, ['stats', fx.paths.damagedGz, '--json']);
    cli = { ok: true, stats: JSON.parse(stdout), stderr: stderr.trim() };
  } catch (e) {
    cli = { ok: false, stderr: String(e.stderr || '').trim() };
  }
  const page = await app.openBuffer(fs.readFileSync(fx.paths.damagedGz));
  const say = (r) => r.ok ? `keeps it (${r.stats.events} events)` : `refuses it (${JSON.stringify(r.message ?? r.stderr)})`;
  assert.equal(page.ok, cli.ok, `the page ${say(page)} but the CLI ${cli.ok ? `exits 0 and keeps it (${cli.stats.events} events; stderr ${JSON.stringify(cli.stderr)})` : `refuses it (${JSON.stringify(cli.stderr)})`}`);
  if (cli.ok) assert.deepEqual(strip(page.stats), strip(cli.stats));
  else assert.equal(page.message.match(OFFSET_RE)?.[2], cli.stderr.match(OFFSET_RE)?.[2], 'same byte offset');
});

test('privacy: every request of this file\'s pages went to the page\'s own origin', () => {
  const origin = ctx.server.origin;
  assert.ok(ctx.requests.some((u) => u.endsWith('.wasm')), 'the recorder saw the .wasm');
  const { bad, message } = privacyReport(ctx.requests, origin);
  assert.deepEqual(bad, [], message);
});
