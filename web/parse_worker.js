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

onmessage = (e) => {
  const t = e.data;
  if ('init' in t) {
    startModule(t.init);
    return;
  }
  const read = t.blob.slice(t.base, t.end).arrayBuffer();
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
