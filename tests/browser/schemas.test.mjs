// The JSON Schemas (tools/python/strata/schemas/, issue 35) against the CLI's
// output on traces that carry what the corpus lacks: a Kineto profile with
// [memory] events (issue 34), ranks with collectives (issue 32, aligned and
// not), a trace of every kind of event (issue 29) and its diff (paired test
// verdicts). pywheel.test.mjs validates the corpus's outputs through the wheel.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import Ajv2020 from 'ajv/dist/2020.js';
import { CLI, REPO_ROOT } from './harness.mjs';

const GEN = path.join(path.dirname(CLI), 'strata-gen');
const DIR = path.join(REPO_ROOT, 'tools', 'python', 'strata', 'schemas');
const ajv = new Ajv2020({ allErrors: true, strict: false });
for (const f of fs.readdirSync(DIR)) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')));

let tmp;
before(async () => { tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'strata-schemas-')); });
after(async () => { if (tmp) await fsp.rm(tmp, { recursive: true, force: true }); });

const cli = (args) => JSON.parse(execFileSync(CLI, args, { maxBuffer: 1 << 28 }).toString());
function valid(value) {
  const v = ajv.getSchema(value.schema);
  assert.ok(v, `a schema for ${value.schema}`);
  assert.ok(v(value), `${value.schema}: ${ajv.errorsText(v.errors)}`);
}

test('analyze of a memory profile: the memory entries and memory_counters', () => {
  const d = cli(['analyze', path.join(REPO_ROOT, 'tests', 'fixtures', 'kineto_memory.json'), '--json']);
  assert.ok(d.memory.length > 0 && d.memory_counters.length > 0);
  valid(d);
  valid(cli(['stats', path.join(REPO_ROOT, 'tests', 'fixtures', 'kineto_memory.json'), '--json']));
});

test('analyze of ranks with collectives, on their own clocks and aligned by the collectives', () => {
  const dir = path.join(tmp, 'coll');
  execFileSync('python3', [path.join(REPO_ROOT, 'tools', 'gen', 'gen_collectives.py'), dir, '--ranks', '4', '--steps', '3']);
  const ranks = [0, 1, 2, 3].map((k) => path.join(dir, `rank-${k}.json`));
  for (const extra of [[], ['--align', 'collectives']]) {
    const d = cli(['analyze', ...ranks, '--json', ...extra]);
    assert.ok(d.collectives.length > 0 && d.critical_path.length > 0 && d.clock_offsets.length === 4);
    valid(d);
  }
});

test('analyze of every kind of event, and the diff of two runs with its verdicts', () => {
  const a = path.join(tmp, 'a.json');
  const b = path.join(tmp, 'b.json');
  execFileSync(GEN, ['-n', '20000', '--kinds', '-o', a], { stdio: 'ignore' });
  execFileSync(GEN, ['-n', '20000', '--kinds', '--slow-op', 'fusion', '-o', b], { stdio: 'ignore' });
  const d = cli(['analyze', a, '--json']);
  assert.ok(d.kernels.length > 0 && d.host_ops.length > 0);
  valid(d);
  const diff = cli(['diff', a, b, '--json']);
  assert.ok(diff.rows.some((r) => r.verdict === 'regression'));
  valid(diff);
});
