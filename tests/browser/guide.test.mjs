// The user guide (issue 31 item 5): README.md is a short front door, the
// manual is the Markdown guide in web/guide/ that the site serves at guide/,
// the benchmark log is tools/benchmarks/LOG.md.
//   - every relative link and #anchor of README.md, web/guide/*.md and
//     tools/benchmarks/*.md resolves: the file exists, the anchor is a
//     heading of the file by GitHub's id rules (computed here, apart from the
//     page's renderer);
//   - README.md has at most 320 lines; the guide's contents page links every
//     page; the built site holds every file of web/guide/;
//   - the page's `?` help links to the guide, which opens in headless
//     Chromium and draws each page with the headings (and ids) GitHub gives
//     them, its links and pictures working;
//   - the renderer makes no element from a page's text: HTML and
//     javascript: links in Markdown stay text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { useBrowser, REPO_ROOT, DIST } from './harness.mjs';

const GUIDE = path.join(REPO_ROOT, 'web', 'guide');
const guidePages = () => fs.readdirSync(GUIDE).filter((f) => f.endsWith('.md')).sort();
const DOCS = () => [
  path.join(REPO_ROOT, 'README.md'),
  ...guidePages().map((f) => path.join(GUIDE, f)),
  ...fs.readdirSync(path.join(REPO_ROOT, 'tools', 'benchmarks')).filter((f) => f.endsWith('.md'))
    .map((f) => path.join(REPO_ROOT, 'tools', 'benchmarks', f)),
];

/** The text outside fenced code blocks, code spans blanked (links there are not links). */
function prose(md) {
  const out = [];
  let fence = null;
  for (const line of md.split('\n')) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) { if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null; out.push(''); continue; }
    if (m) { fence = m[1]; out.push(''); continue; }
    out.push(line);
  }
  return out.join('\n').replace(/(`+)[\s\S]*?\1/g, (s) => ' '.repeat(s.length));
}

/** GitHub's heading ids (github-slugger): lower case, punctuation and symbols
 *  dropped (letters, marks, digits, `_`, `-` and spaces kept), spaces to `-`,
 *  a repeat gets -1, -2 ... The heading's text is its rendered text: code
 *  spans' content, links' text, no emphasis marks. */
function headingIds(md) {
  const ids = [];
  const seen = new Set();
  let fence = null;
  for (const line of md.split('\n')) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) { if (f && f[1][0] === fence[0]) fence = null; continue; }
    if (f) { fence = f[1]; continue; }
    const h = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!h) continue;
    const text = h[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`([^`]*)`/g, '$1').replace(/\*\*|\*|__/g, '').replace(/\\(.)/g, '$1');
    const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    let id = base;
    for (let n = 1; seen.has(id); n++) id = `${base}-${n}`;
    seen.add(id);
    ids.push(id);
  }
  return ids;
}

/** Every [text](target) and ![alt](src) of a Markdown file's prose. */
function links(md) {
  const out = [];
  const re = /!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*([^()\s]+(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"]*")?\s*\)/g;
  for (const m of prose(md).matchAll(re)) out.push(m[1]);
  return out;
}

test('every relative link and #anchor of README.md, the guide and the benchmark log resolves', () => {
  const bad = [];
  let checked = 0;
  for (const file of DOCS()) {
    const md = fs.readFileSync(file, 'utf8');
    for (const href of links(md)) {
      if (/^(https?:|mailto:)/i.test(href)) continue;
      checked++;
      const [rel, anchor] = href.split('#');
      const where = `${path.relative(REPO_ROOT, file)}: (${href})`;
      const to = rel ? path.resolve(path.dirname(file), decodeURIComponent(rel)) : file;
      if (!to.startsWith(REPO_ROOT + path.sep) && to !== REPO_ROOT) { bad.push(`${where}: leaves the repository`); continue; }
      if (!fs.existsSync(to)) { bad.push(`${where}: no file ${path.relative(REPO_ROOT, to)}`); continue; }
      if (anchor !== undefined) {
        if (!to.endsWith('.md')) { bad.push(`${where}: an anchor into a file that is not Markdown`); continue; }
        const ids = headingIds(fs.readFileSync(to, 'utf8'));
        if (!ids.includes(anchor)) bad.push(`${where}: no heading #${anchor} in ${path.relative(REPO_ROOT, to)}`);
      }
    }
  }
  assert.deepEqual(bad, [], `broken links:\n${bad.join('\n')}`);
  assert.ok(checked > 100, `only ${checked} relative links found: the link reader is broken`);
});

test('the anchor rules are GitHub\'s', () => {
  assert.deepEqual(headingIds('# Assistants: `strata mcp`\n## Answers: the overview and the ranks x steps heatmap\n' +
    '### How well the hardware is used: FLOPs, TFLOP/s, MFU and the roofline\n## Links\n## Links\n```\n# not a heading\n```\n'),
  ['assistants-strata-mcp', 'answers-the-overview-and-the-ranks-x-steps-heatmap',
    'how-well-the-hardware-is-used-flops-tflops-mfu-and-the-roofline', 'links', 'links-1']);
  assert.deepEqual(links('[a](x.md#y) `[b](no.md)` ![c](images/d.png)\n```\n[e](no2.md)\n```\n'), ['x.md#y', 'images/d.png']);
});

test('README.md is a front door: at most 320 lines, linking the guide and the benchmark log', () => {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= 320, `README.md has ${lines} lines`);
  const hrefs = links(readme);
  for (const f of guidePages()) assert.ok(hrefs.some((h) => h.split('#')[0] === `web/guide/${f}`), `README.md links web/guide/${f}`);
  assert.ok(hrefs.includes('tools/benchmarks/LOG.md'), 'README.md links the benchmark log');
  // the two commands, as CI and the guide give them
  assert.match(readme, /^tools\/run {10}# installs what is missing, builds, serves the viewer on http:\/\/127\.0\.0\.1:8000$/m);
  assert.match(readme, /^tools\/test {9}# installs what is missing, builds everything, runs every test$/m);
});

test('the guide\'s contents page links every page; the built site holds every file of the guide', () => {
  const contents = links(fs.readFileSync(path.join(GUIDE, 'README.md'), 'utf8')).map((h) => h.split('#')[0]);
  for (const f of guidePages()) if (f !== 'README.md') assert.ok(contents.includes(f), `guide/README.md links ${f}`);
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  for (const f of walk(GUIDE)) {
    const rel = path.relative(GUIDE, f);
    const built = path.join(DIST, 'guide', rel);
    assert.ok(fs.existsSync(built), `dist/guide/${rel} (tools/build copies web/guide/)`);
    assert.ok(fs.readFileSync(built).equals(fs.readFileSync(f)), `dist/guide/${rel} is web/guide/${rel}`);
  }
});

const ctx = useBrowser({ before, after });

/** Waits for the guide page to draw; returns its headings [{level, id, text}]. */
async function guideHeadings(page) {
  await page.waitForFunction(() => ['ready', 'error'].includes(document.documentElement.dataset.state));
  assert.equal(await page.evaluate(() => document.documentElement.dataset.state), 'ready',
    `the guide drew its page: ${await page.textContent('#guide')}`);
  return page.$$eval('#guide :is(h1, h2, h3, h4, h5, h6)', (hs) => hs.map((h) => ({ level: Number(h.tagName[1]), id: h.id, text: h.textContent })));
}

test('the page\'s ? help links to the guide; it opens and draws every page with GitHub\'s headings, links and pictures', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  await app.page.locator('#help-button').click();
  const link = app.page.locator('#help a[href="guide/index.html"]');
  assert.ok(await link.isVisible(), 'the help shows a link to the guide');
  const [guide] = await Promise.all([app.context.waitForEvent('page'), link.click()]);
  await guide.waitForLoadState('load');
  assert.equal(guide.url(), `${ctx.server.url}guide/index.html`);
  const errors = [];
  guide.on('pageerror', (e) => errors.push(String(e)));

  // the contents page: its headings as GitHub ids them
  const want = (f) => headingIds(fs.readFileSync(path.join(GUIDE, f), 'utf8'));
  let hs = await guideHeadings(guide);
  assert.equal(hs[0].level, 1);
  assert.equal(hs[0].text, 'The strata guide');
  assert.deepEqual(hs.map((h) => h.id), want('README.md'));
  assert.match(await guide.title(), /The strata guide/);

  // a click on a link goes to that page
  await guide.locator('#guide a', { hasText: 'Navigating the timeline' }).first().click();
  await guide.waitForURL(/\?p=timeline\.md$/);
  hs = await guideHeadings(guide);
  assert.deepEqual(hs.map((h) => h.id), want('timeline.md'));
  assert.ok(await guide.locator('#guide table td kbd, #guide table td code').count() > 10, 'the keys table is drawn, with its code');

  // every page draws, with the ids GitHub gives its headings; links between
  // pages are ?p= links; links into the repository are text
  for (const f of guidePages()) {
    await guide.goto(`${ctx.server.url}guide/index.html?p=${f}`);
    hs = await guideHeadings(guide);
    assert.deepEqual(hs.map((h) => h.id), want(f), `${f}'s headings`);
    const hrefs = await guide.$$eval('#guide a', (as) => as.map((a) => a.getAttribute('href')));
    for (const h of hrefs) {
      assert.ok(/^(\?p=[A-Za-z0-9_-]+\.md(#[^#]*)?|#.+|https?:\/\/.+|images\/[\w.-]+)$/.test(h), `${f}: link ${h}`);
    }
  }

  // an anchor across pages lands on its heading
  await guide.goto(`${ctx.server.url}guide/index.html?p=cli.md`);
  await guideHeadings(guide);
  await guide.locator('#guide a[href="?p=compare.md#strata-diff-two-runs-compared-from-the-command-line"]').click();
  await guide.waitForURL(/\?p=compare\.md#strata-diff/);
  await guideHeadings(guide);
  await guide.waitForFunction(() => [...document.querySelectorAll('#guide img')].every((i) => i.complete));
  const top = await guide.$eval('#strata-diff-two-runs-compared-from-the-command-line', (h) => h.getBoundingClientRect().top);
  assert.ok(top >= 0 && top < 200, `the heading is scrolled to the top (${top} px)`);

  // the pictures load
  await guide.goto(`${ctx.server.url}guide/index.html?p=overview.md`);
  await guideHeadings(guide);
  await guide.waitForFunction(() => [...document.querySelectorAll('#guide img')].every((i) => i.complete));
  const imgs = await guide.$$eval('#guide img', (is) => is.map((i) => [i.getAttribute('src'), i.naturalWidth]));
  assert.equal(imgs.length, 2);
  for (const [src, w] of imgs) assert.ok(w > 100, `${src} loaded (${w} px wide)`);

  // a page name that is not a page of the guide is refused, with the way to the pages
  await guide.goto(`${ctx.server.url}guide/index.html?p=../index.html`);
  await guide.waitForFunction(() => document.documentElement.dataset.state === 'error');
  assert.match(await guide.textContent('#guide'), /no page "\.\.\/index\.html" in the guide/);
  assert.deepEqual(errors, []);
  assert.deepEqual(app.pageErrors, []);
  for (const u of app.requests) assert.ok(u.startsWith(ctx.server.origin) || u.startsWith('data:') || u.startsWith('blob:'), `request left the page's origin: ${u}`);
});

test('the guide\'s renderer makes no element from a page\'s text', async (t) => {
  const app = await ctx.app();
  t.after(() => app.close());
  const page = app.page;
  await page.goto(`${ctx.server.url}guide/index.html`);
  await guideHeadings(page);
  const r = await page.evaluate(async () => {
    const g = await import('./guide.js');
    const d = document.createElement('div');
    document.body.appendChild(d);
    g.render('# Title <img src=x onerror="window.__owned=1">\n\n<script>window.__owned=1</script> **<b>bold</b>**\n\n' +
      '[click](javascript:window.__owned=1) [repo](../../core/README.md) [page](timeline.md#flow-arrows)\n\n' +
      '| <i>a</i> | `<u>` |\n|---|---|\n| <svg onload="window.__owned=1"> | x |\n\n```\n<iframe src="x">\n```\n', d);
    await new Promise((res) => setTimeout(res, 100));
    return {
      tags: [...d.querySelectorAll('*')].map((e) => e.tagName.toLowerCase()).sort(),
      hrefs: [...d.querySelectorAll('a')].map((a) => a.getAttribute('href')),
      repoTitles: [...d.querySelectorAll('.repo-path')].map((e) => [e.textContent, e.title]),
      text: d.textContent,
      owned: window.__owned,
    };
  });
  assert.equal(r.owned, undefined);
  for (const tag of r.tags) assert.ok(['h1', 'p', 'strong', 'a', 'span', 'div', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'code', 'pre'].includes(tag), `element <${tag}>`);
  assert.deepEqual(r.hrefs, ['?p=timeline.md#flow-arrows']);
  assert.deepEqual(r.repoTitles, [['click', ''], ['repo', 'in strata\'s source repository: core/README.md']]);
  for (const s of ['<img src=x onerror="window.__owned=1">', '<script>window.__owned=1</script>', '<b>bold</b>', '<i>a</i>', '<u>', '<svg onload="window.__owned=1">', '<iframe src="x">']) {
    assert.ok(r.text.includes(s), `"${s}" shown as text`);
  }
});

test('a standalone file (no guide beside it) keeps its help without the guide\'s link', async (t) => {
  const file = path.join(DIST, 'strata-viewer.html'); // `strata export --viewer-only`, made by tools/build
  if (!fs.existsSync(file)) return t.skip(`${file} not built (tools/build makes it with the native CLI)`);
  const context = await ctx.browser.newContext({ viewport: { width: 1280, height: 720 } });
  t.after(() => context.close());
  const page = await context.newPage();
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForFunction(() => { try { return window.strata.stats().events > 0; } catch { return false; } }, null, { timeout: 60_000 });
  await page.locator('#help-button').click();
  assert.ok(await page.locator('#help').isVisible(), 'the help opens');
  assert.equal(await page.locator('#help-guide').isVisible(), false, 'no link to a guide that is not there');
});
