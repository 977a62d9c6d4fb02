// Memory on the time axis in the page (issue 34): a PyTorch profile with
// `[memory]` events (tests/memory/gen_kineto_memory.py, whose bookkeeping
// is the truth) opened through the file input: each device's allocated and
// reserved counter tracks are in its section (strata.tracks()), the
// Overview shows per device the peak, the ops live at it (largest first)
// and the bytes never freed as the generator planted them, and a click on
// the peak's time shows the device's section around the peak.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, REPO_ROOT } from './harness.mjs';

const ctx = useBrowser({ before, after });
let dir, trace, truth;
before(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-memtl-'));
  trace = path.join(dir, 'train.pt.trace.json');
  const t = path.join(dir, 'truth.json');
  execFileSync('python3', [path.join(REPO_ROOT, 'tests', 'memory', 'gen_kineto_memory.py'), trace, t, '--seed', '21']);
  truth = JSON.parse(await fsp.readFile(t, 'utf8'));
});
after(async () => {
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

const fmtBytes = (b) => {
  const a = Math.abs(b);
  if (a >= 2 ** 30) return `${(b / 2 ** 30).toFixed(2)} GiB`;
  if (a >= 2 ** 20) return `${(b / 2 ** 20).toFixed(1)} MiB`;
  if (a >= 2 ** 10) return `${(b / 2 ** 10).toFixed(1)} KiB`;
  return `${b} B`;
};

test('a profile\'s memory: counter tracks per device, the Overview\'s peaks and live ops, a click goes to the peak', async () => {
  const app = await ctx.app();
  const ev = await app.openViaInput(trace);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  // the tracks: allocated and reserved per device, in the device's section
  const tracks = await app.page.evaluate(() => window.strata.tracks());
  for (const t of truth) {
    for (const what of ['allocated', 'reserved']) {
      const k = tracks.find((x) => x.label === `Memory ${what} (${t.device})`);
      assert.ok(k, `no track "Memory ${what} (${t.device})" in ${JSON.stringify(tracks.map((x) => x.label))}`);
      if (t.device !== 'CPU') assert.equal(k.pid, Number(t.device.split(' ')[1]), `${t.device}: Kineto's GPU process (pid = device id)`);
    }
  }
  // the Overview
  await app.page.click('#overview-button');
  await app.page.waitForSelector('#overview-memory-devices tbody tr');
  const rows = await app.page.$$eval('#overview-memory-devices tbody tr', (trs) => trs.map((tr) => ({
    device: tr.children[1].textContent,
    peak: tr.querySelector('td[data-fig="peak_bytes"]').textContent,
    live: [...tr.querySelectorAll('td[data-fig="live_at_peak"] > div:not(.note)')].map((d) => d.textContent),
    unfreed: tr.querySelector('td[data-fig="unfreed_bytes"]').textContent,
  })));
  assert.deepEqual(rows.map((r) => r.device).sort(), truth.map((t) => t.device).sort());
  for (const t of truth) {
    const r = rows.find((x) => x.device === t.device);
    assert.equal(r.peak, fmtBytes(t.peak_bytes), `${t.device} peak`);
    assert.equal(r.unfreed, fmtBytes(t.unfreed_bytes), `${t.device} never freed`);
    const want = t.live_at_peak.slice(0, 5).map((g) => `${g.op === '' ? '(no op)' : g.op} ${fmtBytes(g.bytes)} (${g.count})`);
    assert.deepEqual(r.live, want, `${t.device} live at peak`);
  }
  // a click on a GPU's peak time: the view is around the peak, the GPU's section on top
  const an = await app.page.evaluate(() => window.strata.analyze());
  const i = an.memory.findIndex((m) => m.device === 'GPU 1');
  const t1 = truth.find((t) => t.device === 'GPU 1');
  const v0 = await app.view();
  await app.page.click(`#overview-memory-devices tbody tr[data-mem="${i}"] button.peak`);
  const v = await app.view();
  assert.notDeepEqual(v, v0);
  const origin = (await app.stats()).ts_min_us;
  const peakUs = origin + Number(t1.peak_us);
  assert.ok(v.start_us < peakUs && v.end_us > peakUs && v.end_us - v.start_us < 1000, `view ${v.start_us}..${v.end_us} around the peak ${peakUs}`);
  const after = await app.page.evaluate(() => window.strata.tracks());
  // the device's section is scrolled to the top as far as the tracks below it allow
  const sections = after.filter((x) => x.pid === 1);
  const first = after.filter((x) => x.canvas_y >= 0).sort((a, b) => a.canvas_y - b.canvas_y)[0];
  const canvasH = await app.page.evaluate(() => document.querySelector('canvas').clientHeight);
  assert.ok(sections.length && sections.every((x) => x.canvas_y >= 0 && x.canvas_y + x.h <= canvasH), `GPU 1's tracks on screen: ${JSON.stringify(sections)}`);
  assert.ok(first.pid === 1 || after.every((x) => x.canvas_y + x.h <= canvasH), `GPU 1's section on top, or everything fits: ${JSON.stringify(first)}`);
});
