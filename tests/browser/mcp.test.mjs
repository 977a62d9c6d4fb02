// `strata mcp` (issue 35): the Model Context Protocol server of the platform
// wheel (`python -m strata mcp` in a fresh venv, run from a folder outside the
// clone, STRATA_CLI unset), driven over stdio by the official TypeScript
// SDK's client (@modelcontextprotocol/sdk, test-only): initialize, tools/list,
// every tool called on corpus traces, its structuredContent checked against
// the CLI's own answer and the tool's outputSchema (the SDK validates it; Ajv
// again here against strata/schemas/strata.mcp-1.schema.json); hostile
// calls (unknown tool, bad arguments, a missing file, a huge limit, garbage
// lines, a closed stdin) answered with errors, never a crash or a hang; a
// finding's link opened in the page shows it. Also `build/native/strata mcp`
// (the C CLI handing over to the same server).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { CORPUS, CLI, REPO_ROOT, launchBrowser, newApp } from './harness.mjs';
import { pyEnv, wheelPath, makeVenv } from './pyvenv.mjs';

const CONTROL = path.join(CORPUS, 'hta__control.json.gz');
const OTHER = path.join(CORPUS, 'hta__overlaid_critical_path_trace.json.gz');
const FLOW = path.join(CORPUS, 'catapult__flow.json');
const SKIP = [CONTROL, OTHER, FLOW].some((f) => !fs.existsSync(f)) && `corpus files missing under ${CORPUS}`;
const TOOLS = ['open', 'stats', 'analyze', 'diff', 'search', 'events_in_range', 'top_ops'];

function userEnv() {
  const env = pyEnv({ PATH: '/usr/bin:/bin' });
  delete env.STRATA_CLI;
  return env;
}
const cliJson = (...args) => JSON.parse(execFileSync(CLI, args, { maxBuffer: 1 << 28 }).toString());
const noLinks = (x) => JSON.parse(JSON.stringify(x, (k, v) => (k === 'link' ? undefined : v)));
const TIMES = new Set(['analyze_ms', 'analyze_cpu_ms', 'load_ms', 'wall_ms', 'heap_bytes']);
const untimed = (x) => JSON.parse(JSON.stringify(x, (k, v) => (TIMES.has(k) ? undefined : v)));

let venv, tmp, client, transport, stderr = '', validate, ts0;
before(async () => {
  if (SKIP) return;
  venv = await makeVenv(wheelPath('platform'));
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-mcp-'));
  transport = new StdioClientTransport({ command: venv.py, args: ['-m', 'strata', 'mcp'], cwd: tmp, env: userEnv(), stderr: 'pipe' });
  transport.stderr.on('data', (d) => { stderr += d; });
  client = new Client({ name: 'strata-test', version: '1.0.0' });
  await client.connect(transport);
  const doc = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'tools', 'python', 'strata', 'schemas', 'strata.mcp-1.schema.json'), 'utf8'));
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addSchema(doc);
  validate = (tool, result) => {
    const def = doc['x-tools'].find((t) => t.name === tool).output;
    const v = ajv.getSchema(`strata.mcp/1#/$defs/${def}`);
    assert.ok(v(result), `${tool}: ${ajv.errorsText(v.errors)}`);
  };
  ts0 = cliJson('stats', '--json', CONTROL).ts_min_us;
});
after(async () => {
  await client?.close();
  await venv?.cleanup();
  if (tmp) await fsp.rm(tmp, { recursive: true, force: true });
});

async function call(name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.notEqual(r.isError, true, `${name}: ${r.content?.[0]?.text}`);
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent, 'the text is the structured result');
  validate(name, r.structuredContent);
  return r.structuredContent;
}
async function callError(name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} should fail: ${JSON.stringify(r).slice(0, 300)}`);
  return r.content[0].text;
}

test('initialize (MCP 2025-11-25, the SDK client\'s) and tools/list: the seven tools with input and output schemas', { skip: SKIP }, async () => {
  assert.deepEqual(client.getServerVersion(), { name: 'strata', title: 'strata trace viewer', version: '0.1.0' });
  assert.deepEqual(client.getServerCapabilities(), { tools: { listChanged: false } });
  assert.match(client.getInstructions(), /open/);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), TOOLS);
  const ajv = new Ajv2020({ strict: false });
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object');
    assert.equal(t.outputSchema.type, 'object');
    assert.ok(t.description.length > 40 && t.annotations.readOnlyHint, t.name);
    ajv.compile(t.inputSchema); // valid, self-contained schemas (no $ref left)
    ajv.compile(t.outputSchema);
    assert.doesNotMatch(JSON.stringify(t), /\$ref/);
  }
  assert.deepEqual(await client.ping(), {});
  assert.match(stderr, /strata mcp: ready/);
});

test('open, stats, analyze, top_ops, search, events_in_range answer what the CLI answers', { skip: SKIP }, async () => {
  const o = await call('open', { paths: [CONTROL] });
  assert.match(o.trace, /^t\d+$/);
  assert.equal(o.events, cliJson('stats', '--json', CONTROL).events);
  const st = await call('stats', { trace: o.trace });
  assert.deepEqual(untimed(st.stats), untimed(cliJson('stats', '--json', CONTROL)));

  const a = await call('analyze', { trace: o.trace, limit: 5 });
  const cli = cliJson('analyze', '--json', '--ops', '5', '--gaps', '5', CONTROL);
  assert.equal(a.steps.count, cli.steps.length);
  assert.deepEqual(noLinks(a.steps.items), cli.steps.slice(0, 5));
  assert.deepEqual(noLinks(a.devices.items), cli.devices);
  assert.deepEqual(noLinks(a.ops.items), cli.ops);
  assert.equal(a.ops.count, cli.op_names);
  assert.deepEqual(noLinks(a.idle_gaps.items).map((g) => ({ ...g, host: g.host.items })), cli.idle_gaps.map((g) => ({ ...g, host: g.host.slice(0, 5) })));
  for (const list of [a.steps, a.devices, a.idle_gaps, a.ops, a.per_step]) for (const x of list.items) assert.ok(x.link?.hash && x.link.view.startsWith('strata view '), JSON.stringify(x));
  // a step's link: its view (a tenth either side), in the page's microseconds
  const s0 = cli.steps[0], pad = (s0.end_us - s0.start_us) / 10;
  const ht = /^#t=([^,]+),([^&]+)$/.exec(a.steps.items[0].link.hash);
  assert.deepEqual([Number(ht[1]), Number(ht[2])], [ts0 + s0.start_us - pad, ts0 + s0.end_us + pad]);

  const top = await call('top_ops', { trace: o.trace, limit: 3 });
  assert.deepEqual(noLinks(top.ops.items), cliJson('analyze', '--json', '--ops', '3', CONTROL).ops);

  const s = await call('search', { trace: o.trace, text: 'nccl', limit: 4 });
  const cs = cliJson('search', CONTROL, 'nccl', '--json', '--limit', '4');
  assert.equal(s.matches.count, cs.matches);
  assert.deepEqual(s.matches.items.map((h) => [h.name, h.row, h.index, h.start_us * 1000]), cs.first.map((h) => [h.name, h.row, h.index, h.start_ns]));
  assert.match(s.matches.items[0].link.hash, new RegExp(`&sel=${cs.first[0].row}:${cs.first[0].index}$`));

  const from = cs.first[0].start_ns / 1000, to = from + 100;
  const ev = await call('events_in_range', { trace: o.trace, from_us: from, to_us: to, limit: 5 });
  const w = cliJson('window', CONTROL, '--from', String(ts0 + from), '--to', String(ts0 + to), '--json', '--events', '--resident');
  assert.equal(ev.events.count, w.events);
  const longest = [...w.list].sort((x, y) => y[4] - x[4] || x[3] - y[3]).slice(0, 5);
  assert.deepEqual(ev.events.items.map((e) => [e.name, e.dur_us]), longest.map((e) => [e[5], e[4] / 1000]));
});

test('diff of two runs: the verdicts and rows of `strata diff --json`; a folder and a manifest open as one set', { skip: SKIP }, async () => {
  const o = await call('open', { paths: [CONTROL] });
  const d = await call('diff', { a: o.trace, b: OTHER, limit: 3 });
  const cli = cliJson('diff', CONTROL, OTHER, '--json');
  assert.deepEqual(d.counts, { regressions: cli.regressions, improvements: cli.improvements, only_a: cli.only_a, only_b: cli.only_b, not_enough_data: cli.not_enough_data });
  assert.equal(d.rows.count, cli.rows.length);
  assert.deepEqual(noLinks(d.rows.items), cli.rows.slice(0, 3));
  assert.deepEqual(d.regressions.items, cli.rows.filter((r) => r.regression).map((r) => r.name).slice(0, 3));
  assert.deepEqual(d.headline, cli.headline);
  assert.match(d.link.hash, /cmp=side/);

  const dir = path.join(tmp, 'ranks');
  await fsp.mkdir(path.join(dir, 'sub'), { recursive: true });
  await fsp.copyFile(FLOW, path.join(dir, 'a.json'));
  await fsp.copyFile(FLOW, path.join(dir, 'sub', 'b.json'));
  const f = await call('open', { paths: [dir] });
  assert.equal(f.files.count, 2);
  assert.equal(f.events, 2 * cliJson('stats', '--json', FLOW).events);
  execFileSync(CLI, ['manifest', dir, '-o', path.join(dir, 'profile.json')]);
  const m = await call('open', { paths: [path.join(dir, 'profile.json')] });
  assert.deepEqual(m.files.items.map((x) => path.relative(dir, x.file)), ['a.json', path.join('sub', 'b.json')]);
  assert.equal((await call('open', { paths: [dir] })).files.count, 2, 'the folder again: its manifest is no trace');
  const st = await call('stats', { trace: m.trace });
  assert.deepEqual(untimed(st.stats), untimed((({ traces, ...rest }) => rest)(cliJson('stats', '--json', path.join(dir, 'a.json'), path.join(dir, 'sub', 'b.json')))));
});

test('hostile calls get errors, never a crash: unknown tool, bad arguments, a missing file, a huge limit', { skip: SKIP }, async () => {
  await assert.rejects(client.callTool({ name: 'rm_rf', arguments: {} }), (e) => e instanceof McpError && e.code === -32602 && /Unknown tool/.test(e.message));
  assert.match(await callError('analyze', {}), /'trace' is required/);
  assert.match(await callError('analyze', { trace: 't1', limit: 'all' }), /limit: an integer expected/);
  assert.match(await callError('analyze', { trace: 't1', limit: 0 }), /limit: at least 1/);
  assert.match(await callError('search', { trace: 't1', text: 'x', bogus: 1 }), /unknown argument 'bogus'/);
  assert.match(await callError('stats', { trace: 't999' }), /unknown trace 't999'/);
  assert.match(await callError('open', { paths: [path.join(tmp, 'missing.json')] }), /missing\.json: no such file or folder/);
  assert.match(await callError('open', { paths: [] }), /at least 1 items/);
  const bad = path.join(tmp, 'garbage.json');
  await fsp.writeFile(bad, '{"traceEvents": [ nope');
  assert.match(await callError('open', { paths: [bad] }), /garbage\.json/);
  assert.match(await callError('diff', { a: 'nope.json', b: OTHER }), /neither an open trace id nor a file/);
  const o = await call('open', { paths: [CONTROL] });
  const big = await call('search', { trace: o.trace, text: 'a', limit: 1e9 });
  assert.ok(big.matches.items.length <= 1000 && big.matches.count > 1000, `${big.matches.items.length} of ${big.matches.count}`);
  assert.ok(JSON.stringify(big).length <= 200_000 + 100, `${JSON.stringify(big).length} chars`);
  const ev = await call('events_in_range', { trace: o.trace, from_us: -1e12, to_us: 1e12, limit: 1e9 });
  assert.ok(ev.events.count > 50_000 && ev.events.items.length < ev.events.count, `${ev.events.items.length} of ${ev.events.count}`);
  assert.equal(ev.truncated, true);
  assert.deepEqual(await client.ping(), {}, 'still answering');
});

/** A raw server: lines in, lines out (for what the SDK would never send). */
function rawServer(cmd, args) {
  const child = spawn(cmd, args, { cwd: tmp, env: userEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const lines = async (n) => {
    for (let i = 0; i < 600 && out.split('\n').filter(Boolean).length < n; i++) await new Promise((r) => setTimeout(r, 100));
    return out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  };
  return { child, lines, exited };
}

test('garbage lines, batches, unknown methods get JSON-RPC errors; a closed stdin ends the server (exit 0)', { skip: SKIP }, async () => {
  const s = rawServer(venv.py, ['-m', 'strata', 'mcp']);
  s.child.stdin.write('not json\n[1,2]\n{"jsonrpc":"2.0","id":1,"method":"nope"}\n{"jsonrpc":"1.0","id":2,"method":"ping"}\n'
    + '{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1]}\n'
    + '{"jsonrpc":"2.0","id":"x","method":"ping"}\n');
  const got = await s.lines(6);
  assert.deepEqual(got.map((m) => [m.id, m.error?.code ?? 'ok']), [[null, -32700], [null, -32600], [1, -32601], [2, -32600], [3, -32602], ['x', 'ok']]);
  s.child.stdin.end();
  assert.deepEqual(await s.exited, { code: 0, signal: null });
});

test('MCP 2026-07-28 (stateless): server/discover, a tool called with its version in _meta and no handshake; another version -32022; ping -32601', { skip: SKIP }, async () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const s = rawServer(venv.py, ['-m', 'strata', 'mcp']);
  const send = (id, method, params) => s.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  send(1, 'server/discover', { _meta: meta });
  send(2, 'tools/call', { _meta: meta, name: 'open', arguments: { paths: [FLOW] } });
  send(3, 'tools/list', { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } });
  send(4, 'ping', { _meta: meta });
  send(5, 'tools/list', { _meta: meta });
  const [disc, open, bad, ping, list] = await s.lines(5);
  assert.deepEqual(disc.result.supportedVersions, ['2026-07-28']);
  assert.equal(disc.result.resultType, 'complete');
  assert.deepEqual(disc.result._meta['io.modelcontextprotocol/serverInfo'].name, 'strata');
  assert.equal(open.result.resultType, 'complete');
  assert.equal(open.result.structuredContent.events, cliJson('stats', '--json', FLOW).events);
  validate('open', open.result.structuredContent);
  assert.deepEqual([bad.error.code, bad.error.data.supported], [-32022, ['2026-07-28']]);
  assert.equal(ping.error.code, -32601);
  assert.deepEqual(list.result.tools.map((t) => t.name), TOOLS);
  s.child.stdin.end();
  assert.equal((await s.exited).code, 0);
});

test('build/native/strata mcp hands over to the same server (the CLI beside it)', { skip: SKIP || (!fs.existsSync(CLI) && 'no CLI') }, async () => {
  const s = rawServer(CLI, ['mcp']);
  s.child.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n`
    + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"open","arguments":{"paths":[${JSON.stringify(FLOW)}]}}}\n`);
  const [init, open] = await s.lines(2);
  assert.equal(init.result.protocolVersion, '2025-06-18', 'a supported older revision is answered in its own');
  assert.equal(open.result.structuredContent.events, cliJson('stats', '--json', FLOW).events);
  s.child.stdin.end();
  assert.equal((await s.exited).code, 0);
});

test('a finding\'s link opens the page at it: a search hit selected, an idle gap and a step in view', { skip: SKIP }, async (t) => {
  const o = await call('open', { paths: [CONTROL] });
  const hit = (await call('search', { trace: o.trace, text: 'nccl:all_to_all', limit: 1 })).matches.items[0];
  const a = await call('analyze', { trace: o.trace, limit: 3 });
  const gap = a.idle_gaps.items[0], step = a.steps.items[1];
  const browser = await launchBrowser();
  t.after(() => browser.close());
  for (const [what, link, want] of [['search hit', hit.link, [hit.start_us, hit.start_us + hit.dur_us]], ['idle gap', gap.link, [gap.start_us, gap.end_us]],
    ['step', step.link, [step.start_us, step.end_us]]]) {
    const url = link.url;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/\?url=/);
    const app = await newApp(browser, { url, origin: new URL(url).origin });
    t.after(() => app.close());
    await app.page.goto(url, { waitUntil: 'load' });
    await app.ready();
    await app.page.waitForFunction(() => window.strata.stats()?.events > 100_000 && window.strata.view(), null, { timeout: 120_000 });
    await app.page.waitForFunction((h) => location.hash.startsWith(h.split('&')[0].slice(0, 8)) && window.strata.view(), link.hash, { timeout: 120_000 }).catch(() => {});
    const v = await app.page.evaluate(() => window.strata.view());
    const [t0, t1] = [ts0 + want[0], ts0 + want[1]];
    assert.ok(v.start_us <= t0 + 1e-3 && v.end_us >= t1 - 1e-3, `${what}: the view ${v.start_us}..${v.end_us} covers ${t0}..${t1}`);
    assert.ok(v.end_us - v.start_us <= (t1 - t0) * 1.3 + 2, `${what}: and is about it (${v.end_us - v.start_us} us for ${t1 - t0})`);
    if (what === 'search hit') {
      await app.page.waitForFunction(() => window.strata.selection()?.length === 1, null, { timeout: 120_000 });
      const sel = await app.page.evaluate(() => window.strata.selection());
      assert.deepEqual([sel[0].name, sel[0].ts_us, sel[0].dur_us, sel[0].row, sel[0].index], [hit.name, t0, hit.dur_us, hit.row, hit.index]);
    }
  }
});
