// An Android battery-like Perfetto trace opened as a user does (dropped on
// the page): the trace `strata-gen --perfetto-android` writes (atrace on
// named tracks N|/G|/H|, suspend_resume, battery counters, power rails,
// entity state residency, statsd atoms, network packets, one android_log
// packet). Checks the sections and track names as ui.perfetto.dev names
// them, a few values read from the page against what the writer put in,
// a statsd atom's details on selection (as `strata args` decodes them),
// and that the "not shown" line names only what is left (android_log, one
// atrace line that does not parse).
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

let tmp, file;
before(async () => {
  if (SKIP) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-android-'));
  file = path.join(tmp, 'battery.pftrace');
  await run(GEN, ['--perfetto-android', '-o', file]);
});
after(() => { if (tmp) fs.rmSync(tmp, { recursive: true, force: true }); });

async function cliStats(f) {
  const { stdout } = await run(CLI, ['stats', f, '--json'], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout);
}
async function cliArgs(f, src) {
  const { stdout } = await run(CLI, ['args', f, '--at', String(src)], { maxBuffer: 16 << 20 });
  const [at, , text] = stdout.trimEnd().split('\t');
  assert.equal(Number(at), src);
  return JSON.parse(text);
}
const strip = ({ load_ms, heap_bytes, import_peak_bytes, ...rest }) => rest;

test('perfetto android trace: named async / instant tracks, power counters, network, statsd atoms', { skip: SKIP }, async (t) => {
  const app = await ctx.app({ viewport: { width: 1400, height: 1400 } }); // every track in view
  t.after(() => app.close());
  await app.demoLoaded();
  const ev = await app.dropFile('battery.pftrace', fs.readFileSync(file));
  assert.equal(ev.type, 'strata:loaded', `${JSON.stringify(ev).slice(0, 300)}\n${app.diagnostics()}`);
  const s = await app.stats();
  assert.deepEqual(strip(s), strip(await cliStats(file)), 'page stats differ from the CLI\'s');
  assert.equal(s.async_slices, 5); // 3 atrace G, suspend_resume, an aggregated network bundle
  assert.equal(s.instants, 10); // 3 atrace N, 3 statsd atoms, 4 network packets
  assert.equal(s.counter_samples, 26);

  // sections in Perfetto's order of global data, then the app; each track named as Perfetto does
  const page = app.page;
  const tracks = await page.evaluate(() => window.strata.tracks());
  const sections = [...new Set(tracks.map((x) => x.section))];
  assert.deepEqual(sections, ['System', 'Power', 'Network', 'com.android.systemui'], `sections: ${sections}`);
  const by = (sec) => tracks.filter((x) => x.section === sec).map((x) => x.label);
  assert.deepEqual(by('System').sort(), ['DeviceStateChanged', 'ScreenState', 'Statsd Atoms', 'Suspend/Resume Latency']);
  for (const want of ['batt.charge_uah', 'batt.capacity_pct', 'batt.current_ua', 'batt.voltage_uv', 'batt.power_mw',
    'batt.bms.charge_uah', 'power.rails.cpu.little', 'power.VSYS_PWR_CUSTOM_uws',
    'Entity residency: Bluetooth is Idle', 'Entity residency: Bluetooth is Active'])
    assert.ok(by('Power').includes(want), `Power section has ${want}: ${by('Power')}`);
  assert.deepEqual(by('Network').sort(), ['rmnet0 Transmitted', 'wlan0 Received', 'wlan0 Transmitted']);
  for (const want of ['Wakelocks', 'ScreenEvents', 'Jobs'])
    assert.ok(by('com.android.systemui').includes(want), `app section has ${want}: ${by('com.android.systemui')}`);

  // box-select a track's rows across the whole width, as a user drags over it
  const box = await page.locator('#canvas').boundingBox();
  async function selectTrack(label) {
    const tr = (await page.evaluate(() => window.strata.tracks())).find((x) => x.label === label);
    assert.ok(tr, `track ${label}`);
    assert.ok(tr.y + tr.h < box.height - AXIS_PX, `track ${label} is in view (y ${tr.y}, h ${tr.h})`);
    const scroll = (await page.evaluate(() => window.strata.view())).scroll_y || 0;
    const y0 = box.y + AXIS_PX + tr.y - scroll + 2, y1 = y0 + tr.h - 4;
    await page.mouse.move(box.x + GUTTER_PX + 2, y0);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - 2, y1, { steps: 8 });
    await page.mouse.up();
    return (await page.evaluate(() => window.strata.selection())).sort((a, b) => a.ts_us - b.ts_us);
  }
  const brief = (sel) => sel.map((e) => `${e.name} ${Math.round(e.dur_us * 1000)}`);
  // the wakelocks, paired by cookie on their process's "Wakelocks" track
  assert.deepEqual(brief(await selectTrack('Wakelocks')), ['WakeLock:foo 500', 'WakeLock:bar 500']);
  assert.deepEqual(brief(await selectTrack('Suspend/Resume Latency')), ['suspend_enter(3) 600']);
  const atoms = await selectTrack('Statsd Atoms');
  assert.deepEqual(atoms.map((e) => e.name), ['wakelock_state_changed', 'screen_state_changed', 'atom_100001']);
  // a statsd atom's details on selection: its id and fields, as the CLI decodes them
  const atom = atoms[1];
  const res = await page.evaluate((src) => window.strata.argsOf(src), atom.src);
  assert.equal(res.error, undefined, `argsOf: ${res.error}`);
  assert.deepEqual(res.args, { atom_id: 29, field_1: 2 });
  assert.deepEqual(res.args, await cliArgs(file, atom.src));
  // the packets of an interned network context, named by their uid's package
  assert.deepEqual(await page.evaluate(() => window.strata.search('com.example.mail')), { matches: 3 });
  assert.deepEqual(await page.evaluate(() => window.strata.search('uid=1000')), { matches: 1 });

  // what is left: one android_log packet and the one atrace line that does
  // not parse (G|500|Jobs|x|oops), named next to the trace's name
  const line = page.locator('#not-shown');
  await line.waitFor({ state: 'visible' });
  assert.equal(await line.textContent(), '1 packet not shown: 1 android_log; 1 ftrace event of other kinds not shown');
  assert.deepEqual(app.pageErrors, []);
});
