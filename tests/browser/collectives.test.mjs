// Collectives in the page (issue 32): 8 Kineto-like ranks from
// tools/gen/gen_collectives.py (clock skews up to +-50 ms, a different slow
// rank per step, a data-parallel all-reduce over all ranks and tensor-parallel
// all-gathers within pairs; one rank gzip'd) opened through the file input.
// window.strata.collectives() matches them as the generator planted (count,
// every step's all-reduce blocker, offsets within 5 us); the Collectives
// table driven as a user drives it: opened by its button, sorted by a
// header click, a row clicked selecting that collective's kernel on every
// rank and stating its arrival spread; the alignment by collectives
// (window.strata.align('collectives'), the "Align by collectives" button and
// ?align=collectives) putting every rank's ProfilerStep#3 at one time (within 1 us: the
// selection's microseconds; the skews are tens of ms). A step's critical path
// (window.strata.criticalPath(N)) draws an arrow per cross-rank edge of the
// path `strata analyze --json` states (the ranks and times of its ends), and
// none once the selection changes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { useBrowser } from './harness.mjs';

const ctx = useBrowser({ before, after });
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const N = 8;
const STEPS = 6;

let dir;
let truth;
let paths;
before(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-coll-'));
  execFileSync('python3', [path.join(ROOT, 'tools', 'gen', 'gen_collectives.py'), dir, '--ranks', String(N),
    '--steps', String(STEPS), '--seed', '5'], { stdio: 'ignore' });
  truth = JSON.parse(fs.readFileSync(path.join(dir, 'truth.json'), 'utf8'));
  // rank 3 gzip'd: its args are read through the page's inflate
  const gz = path.join(dir, 'rank-3.json.gz');
  execFileSync('gzip', ['-k', '-c', path.join(dir, 'rank-3.json')], { stdio: ['ignore', fs.openSync(gz, 'w'), 'ignore'] });
  paths = Array.from({ length: N }, (_, r) => (r === 3 ? gz : path.join(dir, `rank-${r}.json`)));
});
after(async () => {
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

async function openAll(app) {
  const ev = await app.openViaInput(paths, { timeout: 120_000 });
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  return app.page.evaluate(() => window.strata.traces());
}
// trace index (display order) -> rank, from the file names
const rankOf = (traces) => traces.map((t) => Number(/rank-(\d+)/.exec(t.name)[1]));

// Every rank's ProfilerStep#3 start on the timeline (scene us), by rank.
async function stepStarts(app, traces) {
  const ranks = rankOf(traces);
  // the timeline's time: the file's offset + the event's own time
  const ev = await app.page.evaluate(() => {
    window.strata.selectName('ProfilerStep#3');
    const off = window.strata.traces().map((t) => t.offset_us);
    return window.strata.selection().map((e) => ({ part: e.part ?? 0, ts: off[e.part ?? 0] + e.ts_us }));
  });
  const out = new Map();
  for (const e of ev) out.set(ranks[e.part], e.ts);
  return out;
}

// Resolves once every rank's ProfilerStep#3 starts within 1 us of the others'.
async function waitAligned(app) {
  await app.page.waitForFunction(() => {
    window.strata.selectName('ProfilerStep#3');
    const off = window.strata.traces().map((t) => t.offset_us);
    const ts = window.strata.selection().map((e) => off[e.part ?? 0] + e.ts_us);
    return ts.length > 1 && Math.max(...ts) - Math.min(...ts) <= 1;
  }, null, { timeout: 120_000, polling: 200 });
}

test('strata.collectives() matches the planted collectives, blockers and offsets', async () => {
  const app = await ctx.app();
  const traces = await openAll(app);
  const ranks = rankOf(traces);
  const d = await app.page.evaluate(() => window.strata.collectives());
  assert.equal(d.collectives.length, truth.collectives);
  const sizes = {};
  for (const c of d.collectives) (sizes[c.kind] ??= new Set()).add(c.bytes);
  assert.deepEqual(Object.fromEntries(Object.entries(sizes).map(([k, v]) => [k, [...v]])),
    Object.fromEntries(Object.entries(truth.bytes).map(([k, v]) => [k, [v]])), 'bytes from the args (the gzip one too)');
  for (const s of truth.steps) {
    const ar = d.collectives.find((c) => c.kind === 'all_reduce' && c.step === s.step);
    assert.ok(ar, `step ${s.step}'s all-reduce`);
    assert.equal(ranks[ar.blocker], s.blocker, `step ${s.step}'s blocker`);
  }
  // offsets relative to the first file's
  const off = new Map(d.clock_offsets.map((o) => [ranks[o.trace], o.offset_us]));
  const r0 = ranks[0];
  for (let r = 0; r < N; r++) {
    const want = truth.offsets_us[r] - truth.offsets_us[r0];
    assert.ok(Math.abs(off.get(r) - want) <= 5, `rank ${r}: offset ${off.get(r)} vs ${want}`);
  }
  assert.match(d.collectives_summary, /arrived last at \d+ of \d+ collectives/);
});

test('the Collectives table: sorted by a header, a row selects the kernels on every rank', async () => {
  const app = await ctx.app();
  await openAll(app);
  await app.page.click('#collectives-button');
  await app.page.waitForFunction(() => document.querySelectorAll('#collectives-panel tbody tr').length > 0);
  const rows = await app.page.$$eval('#collectives-panel tbody tr', (t) => t.length);
  assert.equal(rows, truth.collectives);
  const summary = await app.page.textContent('#collectives-panel .collectives-summary');
  assert.match(summary, /arrived last at/);
  // sort by skew (largest first): the first row is the collective with the largest skew
  await app.page.click('#collectives-panel th[data-key="skew_us"]');
  const d = await app.page.evaluate(() => window.strata.collectives());
  const maxSkew = Math.max(...d.collectives.map((c) => c.skew_us));
  const first = Number(await app.page.getAttribute('#collectives-panel tbody tr:first-child', 'data-index'));
  assert.equal(d.collectives[first].skew_us, maxSkew);
  // click an all-reduce row: its 8 kernels selected, one per rank
  const i = d.collectives.findIndex((c) => c.kind === 'all_reduce');
  await app.page.click(`#collectives-panel tbody tr[data-index="${i}"]`);
  await app.page.waitForFunction(() => document.querySelector('#collectives-panel .collectives-spread').textContent.length > 0);
  const sel = await app.page.evaluate(() => window.strata.selection().map((e) => ({ part: e.part ?? 0, name: e.name })));
  assert.equal(sel.length, N);
  assert.deepEqual([...new Set(sel.map((e) => e.part))].sort(), [...Array(N).keys()]);
  assert.ok(sel.every((e) => e.name.startsWith('ncclDevKernel_AllReduce')), JSON.stringify(sel[0]));
  const spread = await app.page.textContent('#collectives-panel .collectives-spread');
  assert.match(spread, new RegExp(`${N} ranks arrived over`));
  const skew = Number(await app.page.getAttribute('#collectives-panel .collectives-spread', 'data-skew'));
  assert.equal(skew, d.collectives[i].skew_us);
});

test("align('collectives') and the button put every rank's step 3 at one time", async () => {
  const app = await ctx.app();
  const traces = await openAll(app);
  const before = await stepStarts(app, traces);
  const spreadBefore = Math.max(...before.values()) - Math.min(...before.values());
  assert.ok(spreadBefore > 1000, `unaligned, the skews show: ${spreadBefore} us`);
  const res = await app.page.evaluate(() => window.strata.align('collectives'));
  assert.equal(res.aligned, true);
  assert.deepEqual(res.unaligned, []);
  const after = await stepStarts(app, traces);
  assert.equal(after.size, N);
  const spread = Math.max(...after.values()) - Math.min(...after.values());
  assert.ok(spread <= 1, `aligned step starts within 1 us: ${spread} us`);

  // the button, on a fresh page
  const app2 = await ctx.app();
  const t2 = await openAll(app2);
  await app2.page.click('#align-coll-button');
  await waitAligned(app2);
  const s2 = await stepStarts(app2, t2);
  assert.equal(s2.size, N);
});

test('?align=collectives aligns the files once loaded', async () => {
  const app = await ctx.app({ query: '?align=collectives' });
  const traces = await openAll(app);
  await waitAligned(app);
  const s = await stepStarts(app, traces);
  assert.equal(s.size, N);
});

test('the overview states who the others waited for, in one line', async () => {
  const app = await ctx.app();
  await openAll(app);
  await app.page.click('#overview-button');
  await app.page.waitForFunction(() => /arrived last at/.test(document.querySelector('#overview-collectives')?.textContent || ''),
    null, { timeout: 120_000 });
  const line = await app.page.textContent('#overview-collectives');
  const d = await app.page.evaluate(() => window.strata.collectives());
  assert.equal(line, `Collectives: ${d.collectives_summary}`);
  assert.match(line, /^Collectives: rank \d+ arrived last at \d+ of \d+ collectives; the other 7 ranks waited [\d.]+ (us|ms) per step for it \(\d+ % of the step\)$/);
});

test('the heatmap colours cells by waited and caused (the planted values)', async () => {
  const app = await ctx.app();
  await openAll(app);
  await app.page.click('#overview-button');
  await app.page.waitForFunction(() => /arrived last at/.test(document.querySelector('#overview-collectives')?.textContent || ''),
    null, { timeout: 120_000 });
  for (const m of ['waited', 'caused']) {
    const st = await app.page.evaluate((m) => window.strata.heatmap(m), m);
    const all = truth.steps.flatMap((s) => s[`${m}_us`]);
    assert.equal(st.metric, m);
    assert.equal(st.cells, N * STEPS);
    assert.equal(st.lo, Math.min(...all), `${m}: the least cell`);
    assert.equal(st.hi, Math.max(...all), `${m}: the largest cell`);
  }
  const opts = await app.page.$$eval('#heatmap-metric option', (o) => o.map((x) => x.value));
  assert.ok(opts.includes('waited') && opts.includes('caused'), JSON.stringify(opts));
});

test("a step's critical path: selected on the timeline through the planted blocker", async () => {
  const app = await ctx.app();
  const traces = await openAll(app);
  const ranks = rankOf(traces);
  await app.page.click('#collectives-button');
  await app.page.waitForFunction(() => document.querySelectorAll('#collectives-panel tbody tr').length > 0);
  const s = truth.steps[2];
  await app.page.fill('#collectives-path-step', String(s.step));
  await app.page.click('#collectives-path-button');
  await app.page.waitForFunction(() => (document.querySelector('#collectives-panel .collectives-path')?.textContent || '').includes('→'));
  const text = await app.page.textContent('#collectives-panel .collectives-path');
  assert.ok(text.includes(`rank ${s.blocker} all_reduce`), text);
  const p = await app.page.evaluate((n) => window.strata.criticalPath(n), s.step);
  assert.ok(Math.abs(p.total_us - s.step_us) < 0.001, `${p.total_us} vs ${s.step_us}`);
  const sel = await app.page.evaluate(() => window.strata.selection().map((e) => ({ part: e.part ?? 0, name: e.name })));
  // the blocker's all-reduce kernel and the slow compute (gemm_b) before it, on the blocker
  assert.ok(sel.some((e) => ranks[e.part] === s.blocker && e.name.startsWith('ncclDevKernel_AllReduce')), JSON.stringify(sel));
  assert.ok(sel.some((e) => ranks[e.part] === s.blocker && e.name === 'gemm_b'), JSON.stringify(sel));
  // only ranks on the path
  const onPath = new Set(p.segments.map((g) => ranks[g.trace]));
  assert.ok(sel.every((e) => onPath.has(ranks[e.part])), JSON.stringify(sel));
});

// The cross-rank edges of a step's critical path, from `strata analyze --json`'s critical_path
// over the same files in the page's order: a collective on its blocker followed by a segment
// of another rank (the one that waited for it), from the blocker's arrival (the collective
// segment's start) to the collective's end on the waiting rank (the next segment's start).
function cliEdges(files, step) {
  const out = execFileSync(path.join(ROOT, 'build', 'native', 'strata'), ['analyze', ...files, '--json'],
    { maxBuffer: 1 << 28 });
  const d = JSON.parse(out);
  const p = d.critical_path.find((x) => x.step === step);
  assert.ok(p, `step ${step} in the CLI's critical_path`);
  // times from the path's start (the CLI's clock and the page's may start at different files)
  const t0 = p.segments[0].start_us;
  const edges = [];
  for (let i = 0; i + 1 < p.segments.length; i++) {
    const a = p.segments[i], b = p.segments[i + 1];
    if (a.kind === 'collective' && b.trace !== a.trace) {
      edges.push({ from_trace: a.trace, from_us: a.start_us - t0, to_trace: b.trace, to_us: b.start_us - t0 });
    }
  }
  return { edges, first: p.segments[0] };
}

test("a step's critical path: its cross-rank edges drawn as arrows, gone with the selection", async () => {
  const app = await ctx.app({ viewport: { width: 1400, height: 1400 } });
  const traces = await openAll(app);
  // the CLI over the same files in the page's order (rank 3: its plain copy)
  const files = rankOf(traces).map((r) => path.join(dir, `rank-${r}.json`));
  const ranks = rankOf(traces);
  let arrowsSeen = 0;
  for (const s of truth.steps.slice(1, 4)) {
    const { edges: want, first } = cliEdges(files, s.step);
    assert.ok(want.length >= 1, `step ${s.step}: a cross-rank edge (${JSON.stringify(want)})`);
    // the blocker of the step's all-reduce waited for by another rank
    assert.ok(want.some((e) => ranks[e.from_trace] === s.blocker), JSON.stringify(want));
    const p = await app.page.evaluate((n) => window.strata.criticalPath(n), s.step);
    assert.ok(p, `step ${s.step}'s path`);
    const got = await app.page.evaluate(() => window.strata.pathArrows());
    assert.ok(got, 'arrows shown');
    assert.equal(got.step, s.step);
    assert.equal(got.arrows.length, want.length, `step ${s.step}: ${JSON.stringify(got.arrows)} vs ${JSON.stringify(want)}`);
    const t0 = p.segments[0].start_us; // the page's path starts at the CLI's (its first segment)
    assert.equal(p.segments[0].trace, first.trace);
    for (let i = 0; i < want.length; i++) {
      const g = { ...got.arrows[i], from_us: got.arrows[i].from_us - t0, to_us: got.arrows[i].to_us - t0 };
      const w = want[i];
      assert.equal(g.from_trace, w.from_trace, `edge ${i}: from the blocker's row`);
      assert.equal(g.to_trace, w.to_trace, `edge ${i}: to the waiting rank's row`);
      assert.ok(Math.abs(g.from_us - w.from_us) <= 1, `edge ${i}: from ${g.from_us} vs ${w.from_us}`);
      assert.ok(Math.abs(g.to_us - w.to_us) <= 1, `edge ${i}: to ${g.to_us} vs ${w.to_us}`);
    }
    // the path in view (f: fit the selection): every arrow drawn by the frame
    await app.page.locator('#canvas').focus();
    await app.page.keyboard.press('f');
    await app.page.waitForFunction((n) => window.strata.frameStats().path_arrows === n, want.length,
      { timeout: 120_000, polling: 50 });
    arrowsSeen += want.length;
  }
  assert.ok(arrowsSeen >= 3);
  // another collective selected (the table's row): the arrows go with the path's selection
  await app.page.evaluate(() => window.strata.selectCollective(0));
  assert.equal(await app.page.evaluate(() => window.strata.pathArrows()), null);
  await app.page.waitForFunction(() => window.strata.frameStats().path_arrows === 0, null,
    { timeout: 120_000, polling: 50 });
  // and Escape on the timeline (the selection cleared) after a path
  await app.page.evaluate((n) => window.strata.criticalPath(n), truth.steps[2].step);
  assert.ok(await app.page.evaluate(() => window.strata.pathArrows()));
  await app.page.locator('#canvas').focus();
  await app.page.keyboard.press('f');
  await app.page.waitForFunction(() => window.strata.frameStats().path_arrows > 0, null,
    { timeout: 120_000, polling: 50 });
  await app.page.keyboard.press('Escape');
  assert.deepEqual(await app.page.evaluate(() => window.strata.selection()), []);
  assert.equal(await app.page.evaluate(() => window.strata.pathArrows()), null);
  await app.page.waitForFunction(() => window.strata.frameStats().path_arrows === 0, null,
    { timeout: 120_000, polling: 50 });
});
