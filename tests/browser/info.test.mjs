// The trace-info panel (issue 3: metadata / otherData shown): what the open
// trace is, its counts and warnings, and the free-form top-level JSON it
// carries, as text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, CORPUS, corpusMissing, privacyReport } from './harness.mjs';

const ctx = useBrowser({ before, after });

async function infoText(app) {
  await app.page.click('#info-button');
  await app.page.waitForSelector('#trace-info', { state: 'visible' });
  return app.page.locator('#trace-info').textContent();
}

const FXPROF = path.join(CORPUS, 'fxprof__chrome-tracing.json.gz');
test('Info shows a Chrome trace\'s metadata block, format and counts', { skip: corpusMissing(FXPROF) }, async () => {
  const app = await ctx.app();
  await app.demoLoaded();
  const file = FXPROF;
  const r = await app.openViaInput(file);
  assert.equal(r.type, 'strata:loaded', JSON.stringify(r));
  const text = await infoText(app);
  assert.match(text, /chrome-json \(gzip\)/);
  assert.match(text, /307 \(/, 'event count shown');
  assert.match(text, /Metadata in the file/);
  assert.match(text, /clock-domain/);
  assert.match(text, /LINUX_CLOCK_MONOTONIC/);
  assert.match(text, /11th Gen Intel\(R\) Core\(TM\) i9-11900H/);
  // Closing hides it; a new trace while open re-renders it.
  await app.page.click('#trace-info-close');
  assert.equal(await app.page.locator('#trace-info').isHidden(), true);
});

test('Info re-renders for the next trace, shows warnings, and keeps hostile metadata as text', async () => {
  const app = await ctx.app();
  await app.demoLoaded();
  const payload = '<img src=x onerror="window.__pwned=1">';
  const trace = JSON.stringify({
    otherData: { version: payload, run: { step: 7 } },
    traceEvents: [{ ph: 'X', name: 'a', pid: 1, tid: 1, ts: 0, dur: 5 }, { ph: 'E', pid: 1, tid: 1, ts: 9 }],
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-info-'));
  const file = path.join(dir, 'other.json');
  fs.writeFileSync(file, trace);
  try {
    const before = await infoText(app); // the demo's, panel left open
    assert.match(before, /Demo trace/);
    const r = await app.openViaInput(file);
    assert.equal(r.type, 'strata:loaded', JSON.stringify(r));
    await app.page.waitForFunction(() => document.getElementById('trace-info').textContent.includes('other.json'));
    const text = await app.page.locator('#trace-info').textContent();
    assert.match(text, /otherData/);
    // pretty-printed JSON: the payload's quotes are escaped, its tags are text
    assert.ok(text.includes(JSON.stringify(payload)), `the payload is shown as text: ${text.slice(0, 400)}`);
    assert.match(text, /"step": 7/);
    assert.match(text, /warning: unmatched_end/);
    const dom = await app.page.evaluate(() => ({ pwned: window.__pwned, imgs: document.querySelectorAll('img').length }));
    assert.deepEqual(dom, { pwned: undefined, imgs: 0 });
    const { bad, message } = privacyReport(app.requests, ctx.server.origin);
    assert.deepEqual(bad, [], message);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
