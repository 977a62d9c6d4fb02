// parse_worker.js: one parse worker of a Chrome JSON import split across
// workers (web/par_load.js; the protocol: core/import/chrome/chrome_range.h).
// It runs the small parse module (strata_parse.js + strata_parse.wasm,
// wasm/parse/range_parse.c), reads each task's bytes from the File itself
// and hands back the task's result and its bytes, both transferred (not
// copied): the page applies results in task order and needs the bytes only
// where the result alone will not do.
//
// Protocol (messages in): {init: WebAssembly.Module | null} once (the page
// compiles strata_parse.wasm once for all its workers; null: compiled here);
// {id, k, blob, base, end, next, size} per task: parse blob[base, end) as
// task k (base = a_k, next = a_{k+1}, size = the input's). Out: {ready:
// true} once the module runs, or {failed: text}; per task {id, k, result,
// bytes, heap} (ArrayBuffers; heap: this module's memory size now), or {id,
// k, error: text} (the page parses that task itself). Tasks run one at a
// time, in the order given; the next task's read overlaps this one's parse.
let mod = null; // the parse module (createStrataParse)
let outLen = 0; // 4 bytes in its heap: st_wasm_range_parse's *out_len
let chain = null; // module start, then the tasks, in order (never rejects)
let startModule = null; // resolves chain's first link (on {init})

chain = new Promise((resolve) => (startModule = resolve)).then(async (given) => {
  importScripts('strata_parse.js');
  // compiled here when the page could not: a failure is this chain's (posted below)
  const wasm = given || (await WebAssembly.compileStreaming(fetch('strata_parse.wasm', { credentials: 'same-origin' })));
  const opts = {
    instantiateWasm: (imports, ok) => {
      WebAssembly.instantiate(wasm, imports).then((inst) => ok(inst, wasm), (e) => postMessage({ failed: String((e && e.message) || e) }));
      return {};
    },
  };
  mod = await createStrataParse(opts);
  outLen = mod._malloc(4);
  if (!outLen) throw new Error('out of memory');
  postMessage({ ready: true });
}).catch((e) => {
  mod = null; // the page stops this worker and parses its tasks itself
  postMessage({ failed: String((e && e.message) || e) });
});

function parse(t, ab) {
  const len = ab.byteLength;
  const p = mod._malloc(Math.max(1, len));
  if (!p) throw new Error('out of memory');
  let r = 0;
  try {
    mod.HEAPU8.set(new Uint8Array(ab), p);
    r = mod._st_wasm_range_parse(p, len, t.base, t.next, t.size, outLen);
  } finally {
    mod._free(p);
  }
  if (!r) throw new Error('out of memory');
  const heap = mod.HEAPU8; // re-read: the heap may have grown
  const rlen = new DataView(heap.buffer).getUint32(outLen, true);
  const result = heap.slice(r, r + rlen).buffer;
  mod._free(r);
  return result;
}

// ---- the inflating role (a gzip/zlib file: wasm/parse/inflate.c) ----------------
// {inflate: {id, blob, tb, window}}: reads the blob in slices, inflates and
// cuts it, and posts each complete task {id, task: {k, base, next, size,
// bytes, raw}} (bytes transferred; size -1 while the decoded size is not
// known; raw: compressed bytes read so far), at most `window` ahead of the
// page's {credit: id} (one per task it has applied), then {id, inflated:
// {outcome, msg}} (the source's info and first error), or {id, error}.
const RAW_SLICE = 4 << 20;
let credits = 0;
let onCredit = null;

async function inflateFile(job) {
  const { id, blob, tb } = job;
  credits = job.window;
  const meta = mod._malloc(8 * 8);
  const out = mod._malloc(8 * 8);
  if (!meta || !out || !mod._st_wasm_cut_begin(tb)) throw new Error('out of memory');
  let k = 0;
  let read = 0;
  const hand = async () => {
    for (;;) {
      const p = mod._st_wasm_cut_take(meta);
      if (!p) return;
      const m = new Float64Array(mod.HEAPU8.buffer, meta, 4);
      const [len, base, next, size] = [m[0], m[1], m[2], m[3]];
      const bytes = mod.HEAPU8.slice(p, p + len).buffer;
      mod._free(p);
      while (credits <= 0) await new Promise((r) => (onCredit = r));
      credits--;
      postMessage({ id, task: { k: k++, base, next, size, bytes, raw: read } }, [bytes]);
    }
  };
  try {
    let next = blob.size ? blob.slice(0, Math.min(RAW_SLICE, blob.size)).arrayBuffer() : null;
    let code = 0;
    for (let off = 0; next && code === 0; ) {
      const ab = await next;
      off += ab.byteLength;
      next = off < blob.size ? blob.slice(off, Math.min(off + RAW_SLICE, blob.size)).arrayBuffer() : null;
      if (next) next.catch(() => {});
      const p = mod._malloc(Math.max(1, ab.byteLength));
      if (!p) throw new Error('out of memory');
      mod.HEAPU8.set(new Uint8Array(ab), p);
      code = mod._st_wasm_cut_push(p, ab.byteLength);
      mod._free(p);
      read = off;
      await hand();
    }
    mod._st_wasm_cut_finish(); // what was decoded before any damage, the last tasks
    await hand();
    const msgp = mod._st_wasm_cut_outcome(out);
    const outcome = Array.from(new Float64Array(mod.HEAPU8.buffer, out, 8));
    postMessage({ id, inflated: { outcome, msg: mod.UTF8ToString(msgp) } });
  } finally {
    mod._st_wasm_cut_end();
    mod._free(meta);
    mod._free(out);
  }
}

onmessage = (e) => {
  const t = e.data;
  if ('init' in t) {
    startModule(t.init);
    return;
  }
  if ('credit' in t) {
    credits += 1;
    if (onCredit) onCredit(), (onCredit = null);
    return;
  }
  if (t.inflate) {
    chain = chain.then(async () => {
      if (!mod) return;
      try {
        await inflateFile(t.inflate);
      } catch (err) {
        postMessage({ id: t.inflate.id, error: String((err && err.message) || err) });
      }
    });
    return;
  }
  // a task: its bytes given (decoded by the inflating worker) or read here
  const read = t.bytes ? Promise.resolve(t.bytes) : t.blob.slice(t.base, t.end).arrayBuffer();
  read.catch(() => {}); // reported in order below
  chain = chain.then(async () => {
    if (!mod) return; // the module did not start: said once
    try {
      const bytes = await read;
      const result = parse(t, bytes);
      postMessage({ id: t.id, k: t.k, result, bytes, heap: mod.HEAPU8.length }, [result, bytes]);
    } catch (err) {
      postMessage({ id: t.id, k: t.k, error: String((err && err.message) || err) });
    }
  });
};
