// tools/scripts/screenshot_overview.mjs: the README's overview and heatmap
// screenshots, taken from the real page. Generates a profile with
// strata-gen (ranks with their own noise, one of them slow), opens it
// through the file input in headless Chromium and writes
//   web/guide/images/overview.png  4 ranks: the overview panel over the timeline
//   web/guide/images/heatmap.png   16 ranks x 20 steps: the heatmap, its straggler
//   node tools/scripts/screenshot_overview.mjs [OUT_DIR]     (after tools/build)
import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launchBrowser, newApp, CLI } from '../../tests/browser/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = process.argv[2] || path.join(here, '..', '..', 'web', 'guide', 'images');
const gen = path.join(path.dirname(CLI), 'strata-gen');
const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-shot-'));
const ranks = (n, slow) => Array.from({ length: n }, (_, r) => {
  const f = path.join(tmp, `n${n}-rank-${r}.pt.trace.json`);
  execFileSync(gen, ['-n', '8000', '--steps', '20', '--rank', String(r), '--noise-seed', String(r + 1),
    ...(r === slow ? ['--slow-factor', '1.3'] : []), '-o', f], { stdio: 'ignore' });
  return f;
});
const server = await startServer();
const browser = await launchBrowser();
try {
  const shoot = async (files, out, fn) => {
    const app = await newApp(browser, server, { viewport: { width: 1400, height: 900 } });
    await app.goto();
    await app.ready();
    await app.openViaInput(files, { timeout: 120_000 });
    await app.page.keyboard.press('o');
    await app.page.waitForSelector('#overview-devices');
    await fn(app);
    await app.page.waitForTimeout(300);
    console.log(`screenshot: ${out}`);
    await app.close();
  };
  await shoot(ranks(4, 2), path.join(outDir, 'overview.png'), async (app) => {
    await app.page.click('#overview-devices tbody tr[data-device="4"] td[data-fig="idle_pct"] button');
    await app.page.screenshot({ path: path.join(outDir, 'overview.png') });
  });
  await shoot(ranks(16, 11), path.join(outDir, 'heatmap.png'), async (app) => {
    await app.page.selectOption('#heatmap-metric', 'compute');
    await app.page.locator('#overview-heatmap').scrollIntoViewIfNeeded();
    const hm = await app.page.evaluate(() => window.strata.heatmap());
    const box = await app.page.locator('#heatmap-canvas').boundingBox();
    await app.page.mouse.move(box.x + hm.cell.x + 12.5 * hm.cell.w, box.y + hm.cell.y + 11.5 * hm.cell.h);
    await app.page.waitForTimeout(200);
    await app.page.locator('#overview-heatmap').screenshot({ path: path.join(outDir, 'heatmap.png') });
  });
} finally {
  await browser.close();
  await server.close();
  await fsp.rm(tmp, { recursive: true, force: true });
}
