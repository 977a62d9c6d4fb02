// How well the hardware is used in the page (issue 33): a generated Kineto
// trace with known shapes (tests/cli/efficiency_tests.py --gen: FLOPs and
// bytes are the generator's truth) opened through #file-input; the
// overview's section states each op's FLOPs, TFLOP/s and % of peak (equal
// to `strata analyze --json`'s efficiency and to the truth), the share of
// device time with no FLOP count, draws the roofline (one dot per op, the
// device's roofs), a click on a dot selects that op's events, and the peak
// setting overrides the device's peak.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, CLI, REPO_ROOT } from './harness.mjs';

const ctx = useBrowser({ before, after });
let dir, file, truth;
before(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-roofline-'));
  file = path.join(dir, 'flops.json');
  execFileSync('python3', [path.join(REPO_ROOT, 'tests', 'cli', 'efficiency_tests.py'), '--gen', file]);
  truth = JSON.parse(await fsp.readFile(file.replace(/\.json$/, '.truth.json'), 'utf8'));
});
after(async () => {
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

// TFLOP/s and % are written with 6 and 4 significant digits
const close = (a, b, what, rel = 1e-9) => assert.ok(Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b)), `${what}: ${a} vs ${b}`);

// a page with the generated trace opened through #file-input
async function opened() {
  const app = await ctx.app();
  const n = await app.eventCount();
  await app.page.setInputFiles('#file-input', [file]);
  const ev = await app.nextOutcome(n, { timeout: 120_000 });
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev));
  return app;
}

test('the overview states FLOPs, TFLOP/s and % of peak, draws the roofline; a click on a dot selects the op', async () => {
  const app = await opened();
  await app.page.click('#overview-button');
  await app.page.waitForSelector('#roofline-chart circle.roofline-dot', { timeout: 120_000 });

  // the page's figures are the CLI's, and the generator's
  const cli = JSON.parse(execFileSync(CLI, ['analyze', file, '--json']).toString()).efficiency;
  const eff = await app.page.evaluate(() => window.strata.efficiency());
  assert.deepEqual(eff, cli);
  const ops = Object.fromEntries(eff.ops.filter((o) => o.kind === 'op').map((o) => [o.name, o]));
  for (const [name, t] of Object.entries(truth.ops)) {
    assert.ok(ops[name], `${name} stated`);
    close(ops[name].flops, t.flops, `${name} flops`);
    close(ops[name].bytes, t.bytes, `${name} bytes`);
    close(ops[name].tflops, t.flops / (t.time_us * 1e-6) / 1e12, `${name} TFLOP/s`, 1e-5);
  }

  // the sentence about device time without a FLOP count
  const cov = await app.page.textContent('#roofline-coverage');
  assert.equal(cov, `${Math.round(truth.no_flops_pct)} % of device time has no FLOP count: record shapes to get it`);

  // one dot per op with a count, the roofs drawn, TFLOP/s and % of peak columns
  assert.equal(await app.page.locator('#roofline-chart circle.roofline-dot').count(), Object.keys(truth.ops).length);
  assert.equal(await app.page.locator('#roofline-roof').count(), 1);
  const heads = await app.page.locator('#overview-efficiency table th').allTextContents();
  assert.ok(heads.includes('TFLOP/s') && heads.includes('% of peak'), heads.join(','));

  // hover states the figures; a click selects every aten::mm (its count)
  const dots = await app.page.locator('#roofline-chart circle.roofline-dot').evaluateAll((cs) => cs.map((c) => c.querySelector('title').textContent.split('\n')[0]));
  const i = dots.indexOf('aten::mm');
  assert.ok(i >= 0, dots.join(','));
  const dot = app.page.locator('#roofline-chart circle.roofline-dot').nth(i);
  await dot.hover();
  assert.match(await app.page.textContent('#roofline-info'), /^aten::mm · [0-9.e+]+ TFLOP\/s/);
  await dot.click();
  const sel = await app.page.evaluate(() => window.strata.selection());
  assert.equal(sel.length, truth.ops['aten::mm'].count);
  assert.ok(sel.every((e) => e.name === 'aten::mm'), JSON.stringify(sel.map((e) => e.name)));

  // the details pane of a kernel (one instance) states its TFLOP/s and % of peak
  assert.equal(await app.page.evaluate(() => window.strata.selectName('kernel_conv2d_50_s1')), 1);
  await app.page.waitForSelector('#details th:text-is("TFLOP/s")');
  const conv = truth.ops['aten::conv2d'];
  const convTf = conv.flops / conv.count / 50e-6 / 1e12;
  const detail = await app.page.evaluate(() => [...document.querySelectorAll('#details tr')].map((tr) => [tr.querySelector('th')?.textContent, tr.querySelector('td')?.textContent]));
  const tfRow = detail.find(([k]) => k === 'TFLOP/s'), pctRow = detail.find(([k]) => k === '% of peak');
  close(parseFloat(tfRow[1]), convTf, 'the kernel\'s TFLOP/s in #details', 2e-3);
  close(parseFloat(pctRow[1]), 100 * convTf / 989.5, 'its % of the H100 bf16 peak', 2e-3);

  // the page setting overrides the peaks
  await app.page.fill('#roofline-peak-tflops', '100');
  await app.page.dispatchEvent('#roofline-peak-tflops', 'change');
  await app.page.waitForFunction(() => /100 TFLOP\/s/.test(document.getElementById('roofline-peaks')?.textContent || ''));
  const eff2 = await app.page.evaluate(() => window.strata.efficiency());
  const mm = eff2.ops.find((o) => o.name === 'aten::mm');
  close(mm.pct_of_peak, mm.tflops, '% of a 100 TFLOP/s peak', 1e-3);
  app.assertClean?.();
});

// The op tables' TFLOP/s and % of peak columns: the Op stats panel (opened
// first: it has the efficiency computed by itself) and the overview's top
// kernels and host ops; each figure is the CLI's for that name (host ops
// against its "op" rows, kernels against its "kernel" rows), an op without
// a FLOP count shows "–" and says why.
test('the op tables have TFLOP/s and % of peak columns: the CLI\'s figures, "–" without FLOPs', async () => {
  const app = await opened();
  const cli = JSON.parse(execFileSync(CLI, ['analyze', file, '--json']).toString()).efficiency;
  const of = (kind) => Object.fromEntries(cli.ops.filter((o) => o.kind === kind).map((o) => [o.name, o]));
  const ops = of('op'), kernels = of('kernel');
  // 3 significant digits on the page
  const same = (text, v, what) => close(parseFloat(text), v, what, 5e-3);
  const noFlops = 'aten::add_';
  assert.ok(!ops[noFlops] && !kernels[noFlops], 'the generator\'s op without FLOPs');

  // Op stats: the rows' cells once measured (no "…" left)
  await app.page.evaluate(() => window.strata.opStats({ scope: 'trace' }));
  const headsOf = (sel) => app.page.locator(sel).evaluate((t) => [...t.querySelectorAll('thead th')].map((th) => th.textContent));
  const opHeads = await headsOf('#opstats table');
  const oT = opHeads.indexOf('TFLOP/s'), oP = opHeads.indexOf('% of peak');
  assert.ok(oT > 0 && oP > 0, opHeads.join(','));
  await app.page.waitForFunction(() => [...document.querySelectorAll('#opstats-body td.eff')].length > 0
    && [...document.querySelectorAll('#opstats-body td.eff')].every((td) => td.textContent !== '…'), null, { timeout: 120_000 });
  const rowsOf = (sel) => app.page.locator(sel).evaluate((tb) => [...tb.querySelectorAll('tr')].map((tr) => ({
    name: tr.dataset.name, cells: [...tr.querySelectorAll('td')].map((td) => ({ text: td.textContent, title: td.title })),
  })));
  const checkRows = (rows, iT, iP, where) => {
    let n = 0, none = 0;
    for (const r of rows) {
      const o = ops[r.name] || kernels[r.name];
      const [t, p] = [r.cells[iT], r.cells[iP]];
      if (!o) { // no FLOP count
        assert.equal(t.text, '–', `${where} ${r.name}`);
        assert.equal(p.text, '–', `${where} ${r.name}`);
        assert.match(t.title, /^no FLOP count/, `${where} ${r.name}`);
        if (r.name === noFlops) none++;
        continue;
      }
      same(t.text, o.tflops, `${where} ${r.name} TFLOP/s`);
      same(p.text, o.pct_of_peak, `${where} ${r.name} % of peak`);
      n++;
    }
    return { n, none };
  };
  const os = checkRows(await rowsOf('#opstats-body'), oT, oP, 'op stats');
  assert.equal(os.none, 1, 'op stats lists aten::add_ with "–"');
  assert.ok(os.n >= Object.keys(ops).length, `op stats: ${os.n} rows with figures`);

  // the overview's top kernels and top host ops
  await app.page.click('#overview-button');
  await app.page.waitForSelector('#roofline-chart circle.roofline-dot', { timeout: 120_000 });
  for (const [sel, named, kind] of [['#overview-kernels', kernels, 'kernel'], ['#overview-host-ops', ops, 'op']]) {
    const heads = await headsOf(sel);
    const iT = heads.indexOf('TFLOP/s'), iP = heads.indexOf('% of peak');
    assert.ok(iT > 0 && iP > 0, `${sel}: ${heads.join(',')}`);
    const rows = await rowsOf(`${sel} tbody`);
    assert.ok(rows.length > 0, sel);
    let n = 0;
    for (const r of rows) {
      const o = named[r.name];
      if (!o) {
        assert.equal(r.cells[iT].text, '–', `${sel} ${r.name}`);
        assert.equal(r.cells[iP].text, '–', `${sel} ${r.name}`);
        assert.match(r.cells[iT].title, /^no FLOP count/);
        continue;
      }
      same(r.cells[iT].text, o.tflops, `${sel} ${r.name} TFLOP/s (the CLI's ${kind} row)`);
      same(r.cells[iP].text, o.pct_of_peak, `${sel} ${r.name} % of peak`);
      n++;
    }
    assert.ok(n > 0, `${sel}: some rows with figures`);
    if (kind === 'op') assert.ok(rows.some((r) => r.name === noFlops && r.cells[iT].text === '–'), `${sel}: aten::add_ shows "–"`);
  }
  app.assertClean?.();
});
