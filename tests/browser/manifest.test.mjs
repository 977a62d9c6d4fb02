// A profile manifest (`strata manifest DIR -o profile.json`, web/manifest.js)
// opened by the page: through ?url= (sniffed), ?manifest= and
// window.strata.open(url). Generated Kineto-like ranks (strata-gen --rank),
// served with the page from one static server; the manifest written by the
// CLI. Checked against independent answers: traces() lists every rank the
// manifest read, named by its path, with the manifest's group and the
// offset its clock gives; stats().events is the sum of `strata stats
// --json` over the files; a file the CLI could not read and a file missing
// from the server are named in the page's per-file report while the rest
// open; bad manifests (not JSON, another version, '..', another origin,
// an absolute path) are refused with one line and the page stays as it
// was (an index path is checked as the file's); a plain trace behind
// ?url= still opens (the sniffed bytes replayed); the 256-rank manifest
// opens, and again over itself. No request leaves the server's origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useBrowser, startServer, serveRanges, privacyReport, CLI, DIST } from './harness.mjs';

const ctx = useBrowser({ before, after });
const GEN = path.join(path.dirname(CLI), 'strata-gen');
const RANKS = 6;
const BIG = 256;

const gen = (args, out) => execFileSync(GEN, [...args, '-o', out], { stdio: 'ignore' });
const cliEvents = (file) => JSON.parse(execFileSync(CLI, ['stats', file, '--json']).toString()).events;
const manifestOf = (dir) => {
  execFileSync(CLI, ['manifest', dir, '-o', path.join(dir, 'profile.json')], { stdio: 'ignore' });
  return JSON.parse(fs.readFileSync(path.join(dir, 'profile.json'), 'utf8'));
};

let dir, site, server, small, big, smallEvents, bigEvents;
before(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-manifest-'));
  site = path.join(dir, 'site');
  await fsp.cp(DIST, site, { recursive: true });
  // a handful of ranks (one gzip'd, one in a sub-folder with a name to escape), a broken file
  const prof = path.join(site, 'runs', 'p1');
  await fsp.mkdir(path.join(prof, 'node 1'), { recursive: true });
  const rel = [];
  for (let r = 0; r < RANKS; r++) {
    const name = r === 4 ? 'node 1/rank #4.pt.trace.json' : `rank-${r}.pt.trace.json${r === 2 ? '.gz' : ''}`;
    gen(['-n', '3000', '--rank', String(r), '--lean', '--start-us', String(1000 + 250 * r), ...(r === 2 ? ['--gz'] : [])], path.join(prof, name));
    rel.push(name);
  }
  await fsp.writeFile(path.join(prof, 'broken.pt.trace.json'), '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1 "dur": 2}]}');
  small = manifestOf(prof);
  smallEvents = rel.reduce((s, f) => s + cliEvents(path.join(prof, f)), 0);
  // a copy whose rank 5 is missing on the server (listed, then deleted)
  const gone = path.join(site, 'runs', 'gone');
  await fsp.cp(prof, gone, { recursive: true });
  await fsp.rm(path.join(gone, 'rank-5.pt.trace.json'));
  // 256 small ranks
  const bigDir = path.join(site, 'runs', 'big');
  await fsp.mkdir(bigDir, { recursive: true });
  bigEvents = 0;
  for (let r = 0; r < BIG; r++) {
    const f = path.join(bigDir, `rank-${String(r).padStart(3, '0')}.json`);
    gen(['-n', '200', '--rank', String(r), '--lean'], f);
    bigEvents += cliEvents(f);
  }
  big = manifestOf(bigDir);
  // bad manifests
  const bad = path.join(site, 'bad');
  await fsp.mkdir(bad);
  const entry = (p) => ({ path: p, bytes: 1, group: 'x' });
  const write = (name, v) => fsp.writeFile(path.join(bad, name), typeof v === 'string' ? v : JSON.stringify(v));
  await write('notjson.json', '{"strata_manifest": 1, "files": [');
  await write('v2.json', { strata_manifest: 2, files: [entry('a.json')] });
  await write('dotdot.json', { strata_manifest: 1, files: [entry('../runs/p1/rank-0.pt.trace.json')] });
  await write('origin.json', { strata_manifest: 1, files: [entry('http://other.invalid/rank-0.json')] });
  await write('abs.json', { strata_manifest: 1, files: [entry('/runs/p1/rank-0.pt.trace.json')] });
  await write('empty.json', { strata_manifest: 1, files: [] });
  await write('badindex.json', { strata_manifest: 1, files: [{ ...entry('a.json'), index: '../../x.stx' }] });
  await write('plain.json', '{"traceEvents": []}');
  // the same profile with its groups named by hand (two the same: the second gets " #2")
  const named = { ...small, files: small.files.map((f, i) => (f.error ? f : { ...f, group: i === 2 || i === 6 ? 'host A gpu' : `host ${i} gpu` })) };
  await fsp.writeFile(path.join(prof, 'named.json'), JSON.stringify(named));
  server = await startServer({ root: site, prefix: '/' });
});
after(async () => {
  await server?.close();
  if (dir) await fsp.rm(dir, { recursive: true, force: true });
});

// What the page shows against the manifest: every file read, by path, with its group and offset.
async function assertProfile(app, m, events) {
  const read = m.files.filter((f) => !f.error);
  const list = await app.page.evaluate(() => window.strata.traces());
  assert.deepEqual(list.map((t) => t.name), read.map((f) => f.path), 'a trace per file read, named by its path');
  assert.deepEqual(list.map((t) => t.group), read.map((f) => f.group), "the manifest's group names");
  assert.deepEqual(list.map((t) => t.events), read.map((f) => f.events), "each file's events");
  assert.deepEqual(list.map((t) => t.offset_us), read.map((f) => f.offset_us), 'offsets from the clocks');
  const s = await app.stats();
  assert.equal(s.events, events, 'stats().events = the sum of strata stats --json');
  return list;
}

const errorText = (app) => app.page.locator('#error').textContent();

// The page at `query`, closed after test t, once its first open loaded.
async function opened(t, query, timeout = 60_000) {
  const app = await ctx.app({ server, query });
  if (t) t.after(() => app.close());
  const ev = await app.nextOutcome(0, { timeout });
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev).slice(0, 500));
  return app;
}

test('?url=<manifest>: every rank on one timeline, the unreadable file named, the rest open', async (t) => {
  const app = await opened(t, '?url=runs/p1/profile.json');
  assert.equal(small.files.length, RANKS + 1);
  const list = await assertProfile(app, small, smallEvents);
  assert.deepEqual(list.map((t) => t.group).sort(), Array.from({ length: RANKS }, (_, r) => `rank ${r}`).sort());
  assert.deepEqual(list.map((t) => t.offset_us).sort((a, b) => a - b), Array.from({ length: RANKS }, (_, r) => 250 * r));
  const err = await errorText(app);
  assert.match(err, /^Skipped 1 of 7 files: broken\.pt\.trace\.json: not read by strata manifest: JSON syntax error: .*\(at byte 50, line 1, column 51\)$/, err);
  assert.deepEqual(app.pageErrors, []);
  assert.ok(!app.requests.some((u) => u.includes('broken')), 'the unreadable file is not fetched');
  assert.ok(app.requests.some((u) => u.endsWith('/runs/p1/node%201/rank%20%234.pt.trace.json')), 'paths percent-encoded');
  const priv = privacyReport(app.requests, server.origin);
  assert.deepEqual(priv.bad, [], priv.message);
});

test('?manifest= and window.strata.open(url) open the same profile; a missing file is named, the rest open', async (t) => {
  const app = await opened(t, '?manifest=runs/p1/profile.json');
  await assertProfile(app, small, smallEvents);
  // open(url) of a manifest from the page
  const r = await app.page.evaluate(async (u) => {
    try {
      const s = await window.strata.open(u);
      return { ok: true, events: s.events, traces: s.traces.length };
    } catch (e) {
      return { ok: false, message: String(e.message) };
    }
  }, `${server.origin}/runs/gone/profile.json`);
  assert.ok(r.ok, JSON.stringify(r));
  const gone = { ...small, files: small.files.filter((f) => f.path !== 'rank-5.pt.trace.json') };
  const events5 = small.files.find((f) => f.path === 'rank-5.pt.trace.json').events;
  await assertProfile(app, gone, smallEvents - events5);
  assert.equal(r.traces, RANKS - 1);
  const err = await errorText(app);
  assert.match(err, /^Skipped 2 of 7 files: broken\.pt\.trace\.json: .*; rank-5\.pt\.trace\.json: Could not fetch .*HTTP 404/, err);
  assert.deepEqual(app.pageErrors, []);
});

test("the page shows the manifest's group names, a repeated one made unique", async (t) => {
  const app = await opened(t, '?url=runs/p1/named.json');
  const list = await app.page.evaluate(() => window.strata.traces());
  const read = small.files.filter((f) => !f.error);
  assert.deepEqual(list.map((x) => x.name), read.map((f) => f.path));
  // files[0] is broken.pt.trace.json (sorted first): the named ones are files[1..]
  assert.equal(read.length, 6);
  assert.deepEqual(list.map((x) => x.group), ['host 1 gpu', 'host A gpu', 'host 3 gpu', 'host 4 gpu', 'host 5 gpu', 'host A gpu #2']);
  assert.deepEqual(app.pageErrors, []);
});

test('a streamed profile opens each file from the index its manifest names (HTTP Range); a stale one is said and its file read', async (t) => {
  // the ranks indexed (strata index), listed, then rank 3 written again: its index is stale
  const ix = path.join(dir, 'indexed');
  await fsp.cp(path.join(site, 'runs', 'p1'), ix, { recursive: true });
  const traces = small.files.filter((f) => !f.error).map((f) => f.path);
  for (const f of traces) execFileSync(CLI, ['index', path.join(ix, f)], { stdio: 'ignore' });
  const m = manifestOf(ix);
  assert.deepEqual(m.files.filter((f) => !f.error).map((f) => f.index), traces.map((f) => `${f}.stx`));
  gen(['-n', '3100', '--rank', '3', '--lean', '--start-us', '1750'], path.join(ix, 'rank-3.pt.trace.json'));
  const events = traces.reduce((n, f) => n + cliEvents(path.join(ix, f)), 0);
  const srv = await serveRanges(ix);
  t.after(() => srv.close());
  const app = await ctx.app({ server: { url: srv.url }, query: `?url=${srv.data}profile.json&stream=1` });
  t.after(() => app.close());
  const ev = await app.nextOutcome(0);
  assert.equal(ev.type, 'strata:loaded', JSON.stringify(ev).slice(0, 500));
  const s = await app.stats();
  assert.equal(s.events, events, 'the events of the files as they are now');
  assert.equal(s.streaming && s.streaming.files.length, traces.length, 'every file streamed');
  const list = await app.page.evaluate(() => window.strata.traces());
  assert.deepEqual(list.map((x) => x.name), traces);
  assert.deepEqual(list.map((x) => x.group), m.files.filter((f) => !f.error).map((f) => f.group));
  for (const f of traces) {
    const u = `${srv.origin}/${srv.data}${f.split('/').map(encodeURIComponent).join('/')}.stx`;
    assert.ok(app.requests.includes(u), `${f}'s index fetched`);
  }
  const err = await errorText(app);
  assert.match(err, /^Skipped 1 of 7 files: broken\.pt\.trace\.json: .* · .*index does not match rank-3\.pt\.trace\.json.*; reading the whole trace instead$/, err);
  assert.equal((err.match(/reading the whole trace instead/g) || []).length, 1, 'only the stale index refused');
  // a profile that fits stays resident: no index fetched
  const res = await ctx.app({ server: { url: srv.url }, query: `?url=${srv.data}profile.json` });
  t.after(() => res.close());
  assert.equal((await res.nextOutcome(0)).type, 'strata:loaded');
  assert.equal((await res.stats()).streaming, undefined);
  assert.ok(!res.requests.some((u) => u.endsWith('.stx')), 'no index fetched for a resident profile');
  assert.deepEqual(app.pageErrors, []);
});

test('bad manifests are refused with one line; the page keeps what it shows', async (t) => {
  const app = await opened(t, '?url=runs/p1/profile.json');
  const before = await app.page.evaluate(() => window.strata.traces());
  const cases = [
    ['bad/notjson.json', /^notjson\.json: not a valid strata manifest: not JSON \(.+\)$/],
    ['bad/v2.json', /^v2\.json: not a valid strata manifest: version 2 \(this page reads version 1\)$/],
    ['bad/dotdot.json', /^dotdot\.json: not a valid strata manifest: file ".*": '\.\.' \(only relative paths below the manifest\)$/],
    ['bad/origin.json', /^origin\.json: not a valid strata manifest: file "http:\/\/other\.invalid\/rank-0\.json": a URL \(only relative paths below the manifest\)$/],
    ['bad/abs.json', /^abs\.json: not a valid strata manifest: file ".*": an absolute path \(only relative paths below the manifest\)$/],
    ['bad/empty.json', /^empty\.json: not a valid strata manifest: no "files" list$/],
    ['bad/badindex.json', /^badindex\.json: not a valid strata manifest: file "a\.json"'s index: '\.\.' \(only relative paths below the manifest\)$/],
  ];
  for (const [url, re] of cases) {
    const n = await app.eventCount();
    const r = await app.page.evaluate(async (u) => {
      try {
        await window.strata.open(u);
        return { ok: true };
      } catch (e) {
        return { ok: false, message: String(e.message) };
      }
    }, url);
    assert.equal(r.ok, false, url);
    assert.match(r.message, re);
    assert.ok(!r.message.includes('\n'));
    const ev = await app.nextOutcome(n);
    assert.deepEqual([ev.type, ev.detail], ['strata:error', r.message]);
    assert.equal(await errorText(app), r.message);
    assert.deepEqual(await app.page.evaluate(() => window.strata.traces()), before, `${url}: the profile stays`);
  }
  // ?manifest= insists: a trace there is not a manifest
  const r = await app.page.evaluate(async (u) => {
    try {
      await window.strata.open(u, { manifest: true });
      return { ok: true };
    } catch (e) {
      return { ok: false, message: String(e.message) };
    }
  }, 'bad/plain.json');
  assert.deepEqual(r, { ok: false, message: 'plain.json: not a valid strata manifest: no "strata_manifest" key' });
  // nothing fetched for the refused ones' files
  assert.ok(!app.requests.some((u) => u.includes('other.invalid')));
  assert.equal(app.requests.filter((u) => u.includes('/runs/p1/rank-0')).length, 1, 'rank 0 fetched once, by the good manifest');
  // still usable: a good manifest opens after them
  const ok = await app.page.evaluate((u) => window.strata.open(u).then((s) => s.events), 'runs/p1/profile.json');
  assert.equal(ok, smallEvents);
  assert.deepEqual(app.pageErrors, []);
});

test('?url= of a plain trace still opens (the sniffed bytes read on), gzip too', async () => {
  for (const f of ['rank-1.pt.trace.json', 'rank-2.pt.trace.json.gz']) {
    const app = await opened(null, `?url=runs/p1/${f}`);
    const s = await app.stats();
    assert.equal(s.events, small.files.find((x) => x.path === f).events, f);
    assert.equal(s.bytes_in, small.files.find((x) => x.path === f).bytes, `${f}: every byte read once`);
    await app.close();
  }
});

test('the 256-rank manifest opens: every rank, its group and events; and again over itself', async (t) => {
  const app = await opened(t, '?url=runs/big/profile.json', 240_000);
  assert.equal(big.files.length, BIG);
  assert.deepEqual(big.files.map((f) => f.rank), Array.from({ length: BIG }, (_, r) => r));
  const list = await assertProfile(app, big, bigEvents);
  assert.equal(new Set(list.map((t) => t.group)).size, BIG, 'groups unique');
  // again while it is shown: the new 256 load beside the 256 they replace
  const again = await app.page.evaluate((u) => window.strata.open(u).then((s) => s.traces.length), 'runs/big/profile.json');
  assert.equal(again, BIG);
  const list2 = await assertProfile(app, big, bigEvents);
  assert.ok(list2.every((t, i) => t.handle !== list[i].handle), 'new handles: the first profile was closed');
  assert.deepEqual(app.pageErrors, []);
});
