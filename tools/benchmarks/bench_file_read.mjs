#!/usr/bin/env node
// tools/benchmarks/bench_file_read.mjs: what reading a chosen File costs in
// Chromium, apart from parsing it (issue 21: the floor it puts under any
// load, split across workers or not). A page of the viewer (served from
// dist/, the demo loaded) gets FILE through a file input of its own; then,
// for each way of reading it, the whole file is read on the page's thread
// and nothing is done with the bytes; measured: the wall time and the
// machine's busy CPU time over it (all processes, Linux /proc/stat: the
// browser process serves a File's bytes to the renderer). Medians of --reps.
//
//   node tools/benchmarks/bench_file_read.mjs FILE [--reps 3]
//
// Ways: Blob.slice(a, b).arrayBuffer() in 4, 16 and 64 MiB slices (what
// web/read_worker.js and the parse workers do), one slice read ahead,
// File.stream() with its default reader, and with a BYOB reader into 4 MiB.
import fs from 'node:fs';
import path from 'node:path';
import { DIST, startServer, launchBrowser, newApp, distExists } from '../../tests/browser/harness.mjs';
import { cpuNow, cpuSince } from './cpu_time.mjs';

const args = process.argv.slice(2);
const file = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--reps');
const reps = Math.max(1, Number(args[args.indexOf('--reps') + 1]) || 3);
if (!file || !fs.existsSync(file)) {
  console.error('usage: node tools/benchmarks/bench_file_read.mjs FILE [--reps N]');
  process.exit(2);
}
if (!distExists()) throw new Error(`no site at ${DIST} (run tools/build)`);

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)];

const WAYS = [['slice', 4 << 20], ['slice', 16 << 20], ['slice', 64 << 20], ['slice-ahead', 16 << 20], ['stream', 0], ['byob', 4 << 20]];

const server = await startServer({ root: DIST });
const browser = await launchBrowser();
try {
  const app = await newApp(browser, server, { viewport: { width: 800, height: 600 } });
  await app.goto();
  await app.ready();
  await app.demoLoaded();
  await app.page.evaluate(() => {
    const i = document.createElement('input');
    i.type = 'file';
    i.id = 'read-probe';
    i.hidden = true;
    document.body.append(i);
  });
  await app.page.setInputFiles('#read-probe', file);
  const size = fs.statSync(file).size;
  const rows = [];
  for (const [how, n] of WAYS) {
    const runs = [];
    for (let r = 0; r < reps; r++) {
      const c0 = cpuNow();
      const got = await app.page.evaluate(async ({ how, n }) => {
        const f = document.getElementById('read-probe').files[0];
        const t0 = performance.now();
        let bytes = 0;
        if (how === 'slice') {
          for (let o = 0; o < f.size; o += n) bytes += (await f.slice(o, Math.min(o + n, f.size)).arrayBuffer()).byteLength;
        } else if (how === 'slice-ahead') {
          let next = f.slice(0, n).arrayBuffer();
          for (let o = 0; o < f.size; o += n) {
            const ab = await next;
            next = o + n < f.size ? f.slice(o + n, Math.min(o + 2 * n, f.size)).arrayBuffer() : null;
            bytes += ab.byteLength;
          }
        } else if (how === 'stream') {
          const rd = f.stream().getReader();
          for (;;) {
            const { done, value } = await rd.read();
            if (done) break;
            bytes += value.byteLength;
          }
        } else {
          const rd = f.stream().getReader({ mode: 'byob' });
          let buf = new ArrayBuffer(n);
          for (;;) {
            const { done, value } = await rd.read(new Uint8Array(buf));
            if (done) break;
            bytes += value.byteLength;
            buf = value.buffer;
          }
        }
        return { bytes, ms: performance.now() - t0 };
      }, { how, n });
      const cpu = cpuSince(c0)?.cpu_s ?? NaN; // NaN without /proc
      if (got.bytes !== size) throw new Error(`${how}: read ${got.bytes} of ${size} bytes`);
      runs.push({ ms: got.ms, cpu });
    }
    const ms = median(runs.map((x) => x.ms));
    const cpu = median(runs.map((x) => x.cpu));
    rows.push(`| ${how}${n ? ` ${n >> 20} MiB` : ''} | ${ms.toFixed(0)} ms (${(size / 1e6 / (ms / 1000)).toFixed(0)} MB/s) | ` +
      `${cpu.toFixed(2)} s = ${((cpu * 1000) / (size / 1e6)).toFixed(2)} ms per MB |`);
  }
  console.log(`Reading ${path.basename(file)} (${(size / 1e6).toFixed(0)} MB) in headless Chromium, medians of ${reps}; ` +
    `CPU = the machine's busy time (all processes) over the read.\n\n| way | wall | CPU |\n|---|---|---|\n${rows.join('\n')}`);
  await app.close();
} finally {
  await browser.close();
  server.close();
}
