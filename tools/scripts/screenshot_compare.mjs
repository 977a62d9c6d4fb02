// tools/scripts/screenshot_compare.mjs: the README's compare-mode screenshot, taken
// from the real page: two runs written by strata-gen (B with convolutions
// twice as slow), opened with window.strata.compare(a, b), side by side,
// with the diff table open.
//   node tools/scripts/screenshot_compare.mjs [OUT.png]   (after tools/build)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startServer, launchBrowser, newApp } from '../../tests/browser/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] || path.join(here, '..', '..', 'web', 'guide', 'images', 'screenshot_compare.png');
const gen = path.join(here, '..', '..', 'build', 'native', 'strata-gen');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-shot-'));
const a = path.join(dir, 'run-a.json');
const b = path.join(dir, 'run-b.json');
execFileSync(gen, ['-n', '40000', '--steps', '6', '--rank', '0', '--lean', '-o', a]);
execFileSync(gen, ['-n', '40000', '--steps', '6', '--rank', '0', '--lean', '--start-us', '1800', '--slow-op', 'convolution', '-o', b]);
const server = await startServer();
const browser = await launchBrowser();
try {
  const app = await newApp(browser, server, { viewport: { width: 1600, height: 900 } });
  await app.goto();
  await app.ready();
  await app.demoLoaded();
  await app.page.evaluate(async ([a, b]) => {
    const u = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
    await window.strata.compare(u(a), u(b), { names: ['run-a.json', 'run-b.json'] });
    window.strata.setCompareLayout('side');
    window.strata.diff({ by: 'name' });
  }, [fs.readFileSync(a).toString('base64'), fs.readFileSync(b).toString('base64')]);
  const v = await app.page.evaluate(() => window.strata.view());
  await app.page.evaluate((v) => window.strata.setView({ start_us: v.start_us, end_us: v.start_us + (v.end_us - v.start_us) / 3 }), v);
  await app.page.mouse.move(5, 5);
  await app.page.waitForTimeout(500);
  await app.page.screenshot({ path: out });
  console.log(`screenshot: ${out}`);
} finally {
  await browser.close();
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
