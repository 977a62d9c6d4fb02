// The canvas backing store follows devicePixelRatio and the window size.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, looksRendered, privacyReport } from './harness.mjs';

const ctx = useBrowser({ before, after });

const canvasSize = (app) => app.page.evaluate(() => {
  const c = document.querySelector('#canvas');
  const r = c.getBoundingClientRect();
  return { w: c.width, h: c.height, cssW: r.width, cssH: r.height, dpr: window.devicePixelRatio };
});
const near = (a, b) => Math.abs(a - b) <= 1;

test('deviceScaleFactor 2: backing store is 2x the CSS size, and follows a viewport resize', async (t) => {
  const app = await ctx.app({ viewport: { width: 1000, height: 700 }, deviceScaleFactor: 2 });
  t.after(() => app.close());
  await app.demoLoaded();
  // The page may size the canvas a frame after start-up; wait for it to settle at 2x.
  await app.page.waitForFunction(() => {
    const c = document.querySelector('#canvas'), r = c.getBoundingClientRect();
    return r.width > 0 && Math.abs(c.width - 2 * r.width) <= 1 && Math.abs(c.height - 2 * r.height) <= 1;
  }, null, { timeout: 120_000 }).catch(() => {});
  const a = await canvasSize(app);
  assert.equal(a.dpr, 2);
  assert.ok(a.cssW > 500 && a.cssH > 300, `canvas fills most of the window: ${JSON.stringify(a)}`);
  assert.ok(near(a.w, 2 * a.cssW) && near(a.h, 2 * a.cssH), `backing store must be 2x CSS size: ${JSON.stringify(a)}`);

  await app.page.setViewportSize({ width: 800, height: 560 });
  await app.page.waitForFunction((oldW) => {
    const c = document.querySelector('#canvas'), r = c.getBoundingClientRect();
    return r.width < oldW && Math.abs(c.width - 2 * r.width) <= 1 && Math.abs(c.height - 2 * r.height) <= 1;
  }, a.cssW, { timeout: 120_000 }).catch(() => {});
  const b = await canvasSize(app);
  assert.ok(b.cssW < a.cssW && b.cssH < a.cssH, `canvas CSS size follows the viewport: before ${JSON.stringify(a)}, after ${JSON.stringify(b)}`);
  assert.ok(near(b.w, 2 * b.cssW) && near(b.h, 2 * b.cssH), `backing store 2x after resize: ${JSON.stringify(b)}`);

  const shot = await app.timelineShot('hidpi_resized');
  if (!looksRendered(shot.analysis)) assert.fail(`timeline blank after resize: ${JSON.stringify(shot.analysis)} (${await shot.save()})`);
  assert.deepEqual(app.pageErrors, []);
});

test('deviceScaleFactor 1: backing store equals the CSS size; growing the window grows it', async (t) => {
  const app = await ctx.app({ viewport: { width: 900, height: 600 }, deviceScaleFactor: 1 });
  t.after(() => app.close());
  await app.demoLoaded();
  const a = await canvasSize(app);
  assert.ok(near(a.w, a.cssW) && near(a.h, a.cssH), `backing store = CSS size at dpr 1: ${JSON.stringify(a)}`);
  await app.page.setViewportSize({ width: 1200, height: 800 });
  await app.page.waitForFunction((oldW) => {
    const c = document.querySelector('#canvas'), r = c.getBoundingClientRect();
    return r.width > oldW && Math.abs(c.width - r.width) <= 1;
  }, a.cssW, { timeout: 120_000 }).catch(() => {});
  const b = await canvasSize(app);
  assert.ok(b.cssW > a.cssW && b.cssH > a.cssH && near(b.w, b.cssW) && near(b.h, b.cssH),
    `canvas grows with the window: before ${JSON.stringify(a)}, after ${JSON.stringify(b)}`);
});

test('privacy: every request of this file\'s pages went to the page\'s own origin', () => {
  const { bad, message } = privacyReport(ctx.requests, ctx.server.origin);
  assert.ok(ctx.requests.length > 0, 'the recorder saw requests');
  assert.deepEqual(bad, [], message);
});
