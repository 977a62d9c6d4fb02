// tools/scripts/screenshot.mjs: the README's screenshot, taken from the real page.
// Serves dist/ on 127.0.0.1, opens the built-in demo in headless Chromium,
// zooms into two training steps, selects an XLA op (details pane) and
// writes web/guide/images/screenshot.png.
//   node tools/scripts/screenshot.mjs [OUT.png]        (after tools/build)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launchBrowser, newApp } from '../../tests/browser/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] || path.join(here, '..', '..', 'web', 'guide', 'images', 'screenshot.png');
const server = await startServer();
const browser = await launchBrowser();
try {
  const app = await newApp(browser, server, { viewport: { width: 1400, height: 850 } });
  await app.goto();
  await app.ready();
  const s = await app.demoLoaded();
  // two steps of the demo, 100 ms into the trace
  await app.page.evaluate((t0) => window.strata.setView({ start_us: t0 + 100000, end_us: t0 + 117000 }), s.ts_min_us);
  await app.page.waitForTimeout(300);
  // select an XLA op so the details pane (name, times, args) shows too
  const box = await app.page.locator('#canvas').boundingBox();
  await app.page.mouse.click(box.x + 700, box.y + 177); // the XLA Ops row of GPU 0
  await app.page.waitForFunction(() => window.strata.selection().length === 1);
  await app.page.mouse.move(box.x + 5, box.y + 5);
  await app.page.waitForTimeout(500);
  await app.page.screenshot({ path: out });
  console.log(`screenshot: ${out}`);
} finally {
  await browser.close();
  await server.close();
}
