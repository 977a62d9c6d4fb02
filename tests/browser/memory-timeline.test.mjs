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
import { useBrowser, REPO_ROOT, GUTTER_PX } from './harness.mjs';

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

// A PyTorch memory snapshot (tests/memory/gen_snapshot.py, written with
// Python's pickle as torch.cuda.memory._dump_snapshot writes it) opened
// with the profile of the same run: both on one timeline by their clocks,
// the snapshot's active-memory timeline (counter, a band per block, named
// after its top frame) in its own section, its peak and live blocks in the
// Overview as the generator planted them, a click on its peak shows it,
// and a block selected shows its stack in the details pane.
test('a snapshot with the trace of its run: aligned, its peak in the Overview, a click goes there, a block\'s stack in the details', async () => {
  const snap = path.join(dir, 'snap.pickle');
  const st = path.join(dir, 'snap.truth.json');
  execFileSync('python3', [path.join(REPO_ROOT, 'tests', 'memory', 'gen_snapshot.py'), snap, st, '--entries', '400', '--seed', '5']);
  const sTruth = JSON.parse(await fsp.readFile(st, 'utf8'));
  const app = await ctx.app();
  const ev = await app.openViaInput([trace, snap]);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  const files = await app.page.evaluate(() => window.strata.traces());
  assert.equal(files.length, 2);
  // placed by their clocks: the offset between them is the clocks' difference
  const stats = await app.stats();
  const per = stats.traces || [];
  assert.equal(per.length, 2, JSON.stringify(stats).slice(0, 300));
  assert.equal(per[1].format, 'pytorch-memory-snapshot');
  assert.equal(files[1].format, 'pytorch-memory-snapshot');
  assert.equal(files[1].offset_us - files[0].offset_us, per[1].ts_min_us - per[0].ts_min_us, 'aligned by clock');
  // the active-memory timeline's tracks
  const tracks = await app.page.evaluate(() => window.strata.tracks());
  for (const t of sTruth) {
    for (const l of [`Active memory (${t.device})`, `Active blocks (${t.device})`, `Allocation stacks (${t.device})`]) {
      assert.ok(tracks.some((x) => x.label === l), `no track "${l}"`);
    }
  }
  // the Overview: the snapshot's devices (file 2) as planted
  await app.page.click('#overview-button');
  await app.page.waitForSelector('#overview-memory-devices tbody tr');
  const an = await app.page.evaluate(() => window.strata.analyze());
  for (const t of sTruth) {
    const i = an.memory.findIndex((m) => m.trace === 1 && m.device === t.device);
    assert.ok(i >= 0, `${t.device} of the snapshot in analyze().memory`);
    const row = await app.page.$eval(`#overview-memory-devices tbody tr[data-mem="${i}"]`, (tr) => ({
      peak: tr.querySelector('td[data-fig="peak_bytes"]').textContent,
      live: [...tr.querySelectorAll('td[data-fig="live_at_peak"] > div:not(.note)')].map((d) => d.textContent),
    }));
    assert.equal(row.peak, fmtBytes(t.peak_bytes), `${t.device} peak`);
    assert.deepEqual(row.live, t.live_at_peak.slice(0, 5).map((g) => `${g.op === '' ? '(no op)' : g.op} ${fmtBytes(g.bytes)} (${g.count})`));
  }
  // a click on GPU 0's peak: the view holds the snapshot's peak
  const t0 = sTruth[0];
  const i0 = an.memory.findIndex((m) => m.trace === 1 && m.device === t0.device);
  await app.page.click(`#overview-memory-devices tbody tr[data-mem="${i0}"] button.peak`);
  const v = await app.view();
  const peakAbs = per[1].ts_min_us + t0.peak_us; // the snapshot's first entry + the peak
  const base = per[0].ts_min_us - files[0].offset_us; // the view's us at scene 0
  const peakView = base + files[1].offset_us + t0.peak_us;
  assert.ok(v.start_us <= peakView && v.end_us >= peakView, `view ${v.start_us}..${v.end_us} holds the peak ${peakView} (abs ${peakAbs})`);
  // a block: every band of a top frame only one block has; its stack in #details
  const [label, stack] = Object.entries(t0.single_stacks)[0];
  const n = await app.page.evaluate((name) => window.strata.selectName(name), label);
  assert.ok(n >= 1, `selected ${n} of ${label}`);
  const sel = await app.page.evaluate(() => window.strata.selection());
  const band = sel.find((e) => e.cat === stack);
  assert.ok(band, `a band with the stack as its category: ${JSON.stringify(sel.slice(0, 2))}`);
  // the details pane of that one block: its stack, as text
  assert.equal(n, 1);
  await app.page.waitForSelector('#details:not([hidden])');
  const details = await app.page.$eval('#details', (d) => d.textContent);
  assert.ok(details.includes(stack), `#details shows the stack: ${details.slice(0, 400)}`);
});

// The active-memory timeline stacked by address (issue 34 item 3): each
// block a band from its alloc to its free at its place in the device's
// address space laid end to end (the generator's own computation:
// truth.bands), as high as its bytes; a block planted by the generator
// (--big: 256 MiB, a quarter to three quarters of the entries) is drawn
// where its offset and size say (one colour inside, another just outside
// its edges), a click on it selects it, and the details pane shows its
// size, address and stack.
test('a snapshot\'s blocks drawn by address: the planted block\'s band where its offset and size say, a click shows its size, address and stack', async () => {
  const snap = path.join(dir, 'big.pickle');
  const st = path.join(dir, 'big.truth.json');
  const BIG = 256 * 2 ** 20;
  execFileSync('python3', [path.join(REPO_ROOT, 'tests', 'memory', 'gen_snapshot.py'), snap, st, '--entries', '400', '--seed', '5', '--big', String(BIG)]);
  const sTruth = JSON.parse(await fsp.readFile(st, 'utf8'));
  const app = await ctx.app();
  const ev = await app.openViaInput(snap);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  const t0 = sTruth[0], big = t0.bands.big;
  const tracks = await app.page.evaluate(() => window.strata.tracks());
  const k = tracks.find((x) => x.label === `Active blocks (${t0.device})`);
  assert.ok(k, JSON.stringify(tracks.map((x) => x.label)));
  assert.equal(k.kind, 'blocks');
  assert.equal(k.span_bytes, t0.bands.span, 'the address space: the segments and the blocks outside them, end to end');
  assert.equal(k.h, 160, 'one band 160 px high');
  const box = await app.page.locator('#canvas').boundingBox();
  const v = await app.view();
  const origin = (await app.stats()).ts_min_us;
  const xOf = (us) => box.x + GUTTER_PX + ((origin + us - v.start_us) / (v.end_us - v.start_us)) * (box.width - GUTTER_PX);
  // the band's rows: 1 px inside the track, 158 px for the span
  const yOf = (bytes) => box.y + k.canvas_y + 1 + (bytes / t0.bands.span) * 158;
  const top = yOf(big.y), bot = yOf(big.y + big.size);
  assert.ok(bot - top > 40 && bot < box.y + box.height, `the band ${top}..${bot} is tall and on screen`);
  const x = xOf((big.alloc_time_us * 2 + big.free_time_us * 3) / 5); // right of its label
  // pixels: one colour inside the band, another 3 px outside its top and bottom
  const shot = await app.timelineShot('memory-blocks');
  const px = (cx, cy) => {
    const ix = Math.round(cx - shot.clip.x), iy = Math.round(cy - shot.clip.y);
    const o = (iy * shot.img.width + ix) * 4;
    return Array.from(shot.img.data.slice(o, o + 3)).join(',');
  };
  const inside = px(x, (top + bot) / 2);
  assert.equal(px(x, top + 2), inside, 'the band\'s top inside');
  assert.equal(px(x, bot - 2), inside, 'the band\'s bottom inside');
  assert.notEqual(px(x, top - 3), inside, 'above the band: another block or none');
  assert.notEqual(px(x, bot + 3), inside, 'below the band: another block or none');
  // a click in it: that block; its details
  await app.page.mouse.click(x, (top + bot) / 2);
  await app.page.waitForSelector('#details:not([hidden])');
  const sel = await app.page.evaluate(() => window.strata.selection());
  assert.equal(sel.length, 1);
  assert.equal(sel[0].name, big.top);
  const h2 = await app.page.$eval('#details h2', (d) => d.textContent);
  assert.equal(h2, big.top);
  const details = await app.page.$eval('#details', (d) => d.textContent);
  assert.ok(details.includes(`256.0 MiB (${BIG} B)`), `size in #details: ${details.slice(0, 400)}`);
  assert.ok(details.includes(big.addr), `address ${big.addr} in #details: ${details.slice(0, 400)}`);
  assert.ok(details.includes(big.stack), `stack in #details: ${details.slice(0, 400)}`);
  // just outside its edges: not it
  for (const y of [top - 3, bot + 3]) {
    await app.page.mouse.click(x, y);
    const s2 = await app.page.evaluate(() => window.strata.selection());
    assert.ok(s2.every((e) => e.name !== big.top), `a click at y ${y} (band ${top}..${bot}) is not the big block`);
  }
});

// Hostile pickles in the page: refused with one line naming the opcode and
// its byte offset (#error and strata:error), nothing executed, the trace
// shown before kept.
test('a pickle that would run code is refused in the page with its byte offset', async () => {
  const hdir = path.join(dir, 'hostile');
  execFileSync('python3', [path.join(REPO_ROOT, 'tests', 'memory', 'gen_snapshot.py'), '--hostile', hdir]);
  const cases = JSON.parse(await fsp.readFile(path.join(hdir, 'hostile.json'), 'utf8'));
  const app = await ctx.app();
  const ok = await app.openViaInput(trace);
  assert.equal(ok.type, 'strata:loaded');
  const s0 = await app.stats();
  for (const name of ['exploit_os_system.pickle', 'refused_REDUCE.pickle', 'huge_unicode8.pickle', 'deep_marks.pickle']) {
    const ev = await app.openViaInput(path.join(hdir, name));
    assert.equal(ev.type, 'strata:error', `${name}: ${JSON.stringify(ev).slice(0, 300)}`);
    const msg = typeof ev.detail === 'string' ? ev.detail : ev.detail?.message;
    assert.ok(!/[\r\n]/.test(msg.trim()), `one line: ${msg}`);
    assert.ok(msg.includes(`(at byte ${cases[name].offset})`), `${name}: ${msg} names byte ${cases[name].offset}`);
    if (/GLOBAL|REDUCE/.test(cases[name].why)) assert.ok(msg.includes(`refused opcode ${cases[name].why}`), msg);
    const shown = await app.page.locator('#error').innerText();
    assert.ok(shown.includes(`byte ${cases[name].offset}`), `#error: ${shown}`);
    assert.equal((await app.stats()).events, s0.events, 'the trace shown before stays');
  }
});
