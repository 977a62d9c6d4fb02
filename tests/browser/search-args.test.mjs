// "In args" search (issue 5): the #search-args box and
// window.strata.search(text, {args: true}) run a pass over the open file
// (plain and gzip'd) and merge the events whose args contain the text into
// the search: count, Enter selects a match; unchecked, only names count.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { useBrowser, privacyReport, CORPUS } from './harness.mjs';

const ctx = useBrowser({ before, after });
const NEEDLE = 'Zebracorn';
let dir;
let files;
let srcs; // offsets of the 3 events whose args hold the needle

function fixture() {
  const ev = [
    { ph: 'M', pid: 1, tid: 1, name: 'thread_name', args: { name: 'zebracorn thread (metadata, not an event)' } },
  ];
  const hit = new Set([3, 7, 12]);
  for (let i = 0; i < 16; i++) {
    const e = { ph: 'X', pid: 1, tid: 1 + (i % 2), ts: i * 10, dur: 5, name: `op.${i}`, cat: 'c' };
    if (hit.has(i)) e.args = i === 7 ? { nested: { list: [1, { deep: 'a ZEBRACORN b' }] } } : { note: `x\u00e9 zebracorn ${i}` };
    else e.args = { note: `plain ${i}` };
    ev.push(e);
  }
  const parts = ev.map((e) => JSON.stringify(e));
  const head = '{"traceEvents":[\n';
  let off = head.length;
  const at = [];
  parts.forEach((p, i) => {
    if (i >= 1 && hit.has(i - 1)) at.push(off);
    off += Buffer.byteLength(p) + 2; // bytes: src is a byte offset (é is 2)
  });
  return { text: head + parts.join(',\n') + '\n]}\n', at };
}

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-search-args-'));
  const { text, at } = fixture();
  srcs = at;
  files = { json: path.join(dir, 'args-search.json'), gz: path.join(dir, 'args-search.json.gz') };
  fs.writeFileSync(files.json, text);
  fs.writeFileSync(files.gz, zlib.gzipSync(Buffer.from(text)));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function check(file) {
  const app = await ctx.app();
  try {
    await app.demoLoaded();
    const ev = await app.openViaInput(file);
    assert.equal(ev.type, 'strata:loaded', app.diagnostics());
    const page = app.page;
    // names only: the needle is in no name
    assert.deepEqual(await page.evaluate((t) => window.strata.search(t), NEEDLE), { matches: 0 });
    // in args, through the API: a Promise of {matches}
    const r = await page.evaluate((t) => window.strata.search(t, { args: true }), NEEDLE);
    assert.equal(r.matches, 3, JSON.stringify(r));
    assert.equal(await page.locator('#search-args').isChecked(), true);
    // through the UI: clear, then type with the box checked and press Enter
    await page.evaluate(() => window.strata.search(''));
    await page.locator('#search-args').check();
    await page.locator('#search').fill(NEEDLE.toLowerCase());
    await page.locator('#search').press('Enter');
    await page.waitForFunction(() => (window.strata.selection() || []).length === 1, null, { timeout: 120_000 });
    const sel = await page.evaluate(() => window.strata.selection());
    assert.ok(srcs.includes(sel[0].src), `selected ${JSON.stringify(sel[0])}, want one of ${srcs}`);
    await page.waitForFunction(() => / of 3$/.test(document.getElementById('search-count').textContent)); // "1 of 3"
    // Enter again: another match; Shift+Enter: back
    await page.locator('#search').press('Enter');
    await page.waitForFunction((s0) => window.strata.selection()[0]?.src !== s0, sel[0].src);
    const sel2 = await page.evaluate(() => window.strata.selection());
    assert.ok(srcs.includes(sel2[0]?.src), `second Enter selected ${JSON.stringify(sel2)}, want one of ${srcs}`);
    await page.locator('#search').press('Shift+Enter');
    await page.waitForFunction((s0) => window.strata.selection()[0]?.src === s0, sel[0].src);
    // unchecked: names only again
    await page.locator('#search-args').uncheck();
    await page.waitForFunction(() => document.getElementById('search-count').textContent === '0 matches');
    assert.deepEqual(app.pageErrors, []);
    const { bad, message } = privacyReport(app.requests, ctx.server.origin);
    assert.deepEqual(bad, [], message);
  } finally {
    await app.close();
  }
}

test('in args: a needle only in 3 events\' args is found (plain JSON)', () => check(files.json));
test('in args: the same through gzip', () => check(files.gz));

test('in args: a name search still works while the box is unchecked and a new query cancels a pass', async () => {
  const app = await ctx.app();
  try {
    await app.demoLoaded();
    await app.openViaInput(files.json);
    const page = app.page;
    const res = await page.evaluate(async (t) => {
      const p = window.strata.search(t, { args: true });
      const q = window.strata.search('op.1'); // cancels the pass
      return { first: await p, second: q };
    }, NEEDLE);
    assert.equal(res.first.cancelled, true, JSON.stringify(res));
    assert.ok(res.second.matches >= 1);
    assert.deepEqual(app.pageErrors, []);
  } finally {
    await app.close();
  }
});

// XSpace (protobuf): the pass frames each XPlane and decodes every event's
// stats from it (core/import/args/args_search.c). "memcpy_details" is a stat name of
// 452 events of the corpus file (as `strata search FILE memcpy_details
// --args` counts them) and no event's name.
const XPLANE = path.join(CORPUS, 'xprof__34.83.195.179_6003.xplane.pb');
test('in args: an XSpace file (a stat name only in args)', { skip: !fs.existsSync(XPLANE) && 'corpus file missing' }, async () => {
  const app = await ctx.app();
  try {
    await app.demoLoaded();
    const ev = await app.openViaInput(XPLANE);
    assert.equal(ev.type, 'strata:loaded', app.diagnostics());
    const page = app.page;
    assert.deepEqual(await page.evaluate(() => window.strata.search('memcpy_details')), { matches: 0 });
    const r = await page.evaluate(() => window.strata.search('MEMCPY_details', { args: true }));
    assert.equal(r.matches, 452, JSON.stringify(r));
    // through the UI: Enter selects a match whose args hold the text
    await page.evaluate(() => window.strata.search(''));
    await page.locator('#search-args').check();
    await page.locator('#search').fill('memcpy_details');
    await page.locator('#search').press('Enter');
    await page.waitForFunction(() => (window.strata.selection() || []).length === 1, null, { timeout: 120_000 });
    await page.waitForFunction(() => document.getElementById('search-count').textContent === '1 of 452');
    const name = await page.evaluate(() => window.strata.selection()[0].name);
    assert.match(name, /^Memcpy/, name);
    assert.deepEqual(app.pageErrors, []);
  } finally {
    await app.close();
  }
});
