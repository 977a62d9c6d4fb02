// A Perfetto system trace opened as a user does (dropped on the page): a
// trace written by `strata-gen --perfetto` (process tree, compact_sched on two
// CPUs, atrace, android_log packets strata does not draw). Checks the CPU
// section (box-selecting CPU 0's row selects its scheduling slices, named
// "thread tid" after the process tree's threads), the details of a CPU slice
// (thread, process, priority, end state: as `strata args` decodes them), the
// "not shown" line next to the trace's name, and that a file with nothing
// to draw says so over the timeline; Info lists what is not shown too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { useBrowser, CLI, AXIS_PX, GUTTER_PX } from './harness.mjs';

const run = promisify(execFile);
const ctx = useBrowser({ before, after });
const GEN = path.join(path.dirname(CLI), 'strata-gen');
const SKIP = (!fs.existsSync(CLI) || !fs.existsSync(GEN)) && `native CLI / strata-gen not built (${CLI})`;
const SECTION = 24; // core/view/view.h: section header height; rows are 20 px

let tmp, sys, logOnly;
before(async () => {
  if (SKIP) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-sys-'));
  sys = path.join(tmp, 'system.pftrace');
  await run(GEN, ['-n', '400', '--perfetto', '--cpus', '2', '--seed', '7', '-o', sys]);
  // three android_log packets (TracePacket 39) and nothing else
  logOnly = path.join(tmp, 'log.pftrace');
  const pk = Buffer.from([0x0a, 0x04, 0xba, 0x02, 0x01, 0x00]);
  fs.writeFileSync(logOnly, Buffer.concat([pk, pk, pk]));
});
after(() => { if (tmp) fs.rmSync(tmp, { recursive: true, force: true }); });

async function cliStats(file) {
  const { stdout } = await run(CLI, ['stats', file, '--json'], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout);
}
async function cliArgs(file, src) {
  const { stdout } = await run(CLI, ['args', file, '--at', String(src)], { maxBuffer: 16 << 20 });
  const [at, , text] = stdout.trimEnd().split('\t');
  assert.equal(Number(at), src);
  return JSON.parse(text);
}
const strip = ({ load_ms, heap_bytes, import_peak_bytes, ...rest }) => rest;

test('perfetto system trace: CPU tracks with thread names, their details, and the "not shown" line', { skip: SKIP }, async (t) => {
  const app = await ctx.app({ viewport: { width: 1400, height: 900 } });
  t.after(() => app.close());
  await app.demoLoaded();
  const ev = await app.dropFile('system.pftrace', fs.readFileSync(sys));
  assert.equal(ev.type, 'strata:loaded', `${JSON.stringify(ev).slice(0, 300)}\n${app.diagnostics()}`);
  const s = await app.stats();
  const cli = await cliStats(sys);
  assert.deepEqual(strip(s), strip(cli), 'page stats differ from the CLI\'s');
  assert.ok(s.threads > 10 && s.slices > 300, `threads ${s.threads}, slices ${s.slices}`);

  // the "not shown" line: the android_log packets, counted as the importer warned
  const skipped = s.warnings.find((w) => w.kind === 'perfetto_packets_not_shown');
  assert.ok(skipped && skipped.count > 0, 'the generator wrote android_log packets');
  const line = app.page.locator('#not-shown');
  await line.waitFor({ state: 'visible' });
  const n = skipped.count.toLocaleString('en-US');
  assert.equal(await line.textContent(), `${n} packet${skipped.count === 1 ? '' : 's'} not shown: ${n} android_log`);
  assert.equal(await app.page.locator('#nothing-shown').isVisible(), false);
  // ... and in Info: the warning and the counts by kind
  await app.page.locator('#info-button').click();
  const info = app.page.locator('#trace-info-body');
  await info.waitFor({ state: 'visible' });
  const infoText = await info.textContent();
  assert.match(infoText, /warning: perfetto_packets_not_shown/);
  assert.match(infoText, /not_shown[\s\S]*"android_log": \d+/);
  await app.page.locator('#trace-info-close').click();

  // the gutter, as laid out: a "CPUs" section first with "CPU 0", "CPU 1" and
  // their frequency counters, then processes named by the process tree whose
  // threads are labelled "name tid" (a state track, then its slices)
  const page = app.page;
  const tracks = await page.evaluate(() => window.strata.tracks());
  const cpuTracks = tracks.filter((t) => t.section === 'CPUs').map((t) => t.label);
  assert.deepEqual(cpuTracks.slice(0, 2), ['CPU 0', 'CPU 1'], `CPU section: ${JSON.stringify(cpuTracks)}`);
  assert.ok(cpuTracks.includes('CPU 0 frequency') || cpuTracks.includes('CPU 1 frequency'), `frequency counters: ${cpuTracks}`);
  assert.equal(tracks[0].section, 'CPUs', 'the CPU section comes first');
  const sf = tracks.filter((t) => t.section === '/system/bin/surfaceflinger');
  assert.ok(sf.length > 0, `a section for surfaceflinger: ${[...new Set(tracks.map((t) => t.section))].join(', ')}`);
  assert.ok(sf.some((t) => t.label === 'surfaceflinger 1000 state'), `thread-state track: ${sf.map((t) => t.label)}`);
  assert.ok(sf.every((t) => /^\S.* \d+( state)?$/.test(t.label)), `thread labels: ${sf.map((t) => t.label)}`);

  // CPU 0's row is the first of the first section ("CPUs"): box-select it all
  const box = await page.locator('#canvas').boundingBox();
  const y = box.y + AXIS_PX + SECTION + 10;
  await page.mouse.move(box.x + GUTTER_PX + 2, y - 6);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width - 2, y + 6, { steps: 8 });
  await page.mouse.up();
  const sel = await page.evaluate(() => window.strata.selection());
  assert.ok(sel.length > 50, `box select on CPU 0 got ${sel.length} slices`);
  const cpu0 = sel.filter((e) => e.tid === 0);
  assert.equal(cpu0.length, sel.length, 'everything selected is on CPU 0 (track key 0)');
  const names = new Set(cpu0.map((e) => e.name.replace(/ \d+$/, '')));
  for (const e of cpu0) assert.match(e.name, /^\S.* \d+$/, `a CPU slice is named "thread tid": ${e.name}`);
  for (const want of ['surfaceflinger', 'RenderThread']) assert.ok(names.has(want), `${want} ran on CPU 0: ${[...names].join(', ')}`);

  // details of a CPU slice: who ran (thread, process from the process tree), priority, end state
  const k = cpu0.find((e) => e.name.startsWith('RenderThread '));
  const res = await page.evaluate((src) => window.strata.argsOf(src), k.src);
  assert.equal(res.error, undefined, `argsOf: ${res.error}`);
  assert.equal(res.args.thread, 'RenderThread');
  assert.equal(`RenderThread ${res.args.tid}`, k.name);
  assert.match(res.args.process, /^\/system\/bin\/|^com\.example\.|^python3 /);
  assert.equal(typeof res.args.priority, 'number');
  assert.match(res.args.end_state, /^(Sleeping|Runnable \(Preempted\)|Uninterruptible Sleep)$/);
  assert.deepEqual(res.args, await cliArgs(sys, k.src), 'page and CLI decode the same details');
  assert.deepEqual(app.pageErrors, []);
});

test('perfetto: a file with nothing strata can draw says so instead of an empty timeline', { skip: SKIP }, async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.demoLoaded();
  const ev = await app.dropFile('log.pftrace', fs.readFileSync(logOnly));
  assert.equal(ev.type, 'strata:loaded', `${JSON.stringify(ev).slice(0, 300)}\n${app.diagnostics()}`);
  const msg = app.page.locator('#nothing-shown');
  await msg.waitFor({ state: 'visible' });
  assert.equal(await msg.textContent(), 'Nothing in this file can be drawn (3 packets not shown: 3 android_log).');
  assert.equal(await app.page.locator('#not-shown').textContent(), '3 packets not shown: 3 android_log');
  // opening a trace that draws clears both
  await app.dropFile('system.pftrace', fs.readFileSync(sys));
  assert.equal(await msg.isVisible(), false);
  assert.deepEqual(app.pageErrors, []);
});
