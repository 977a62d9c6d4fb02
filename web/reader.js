// reader.js: a File/Blob as Uint8Array slices, in file order, for the loader.
//
// Slices are read ahead (a few in flight) so the browser reads the next ones
// while the wasm loader parses this one: read one at a time, each slice costs
// a fixed ~5-10 ms on top of the copy and the parser waits for every one.
// Slices grow from 512 KiB (parsing starts after a short read) by doubling
// to 16 MiB: each slice also costs ~1.3 ms of its own (a worker reading
// 300 MB in headless Chromium: 325 ms in 4 MiB slices, 237 ms in 16 MiB
// ones). The page pushes them into the loader in pieces of its buffer size.
// The reading itself runs in a worker (read_worker.js) where one can start:
// the copying of a slice's bytes into its ArrayBuffer happens on the thread
// that reads, and on the main thread it competes with the parser. One worker
// is kept started ahead of the next load (starting one costs ~15 ms). A page
// whose CSP allows no worker (a standalone file) or where the worker does not
// start reads on the main thread, the same slices.
//
//   for await (const u8 of blobChunks(file)) push(u8);

const SLICE_MIN = 512 << 10;
const SLICE_MAX = 16 << 20;
// Bytes read (or being read) but not yet taken by the parser: 6 whole
// slices, and at the start every slice up to the first 16 MiB one at once
// (read one after the other, the small ones left the parser waiting). With
// 3 slices in flight the parser of a 10.8 GB file sat idle for ~10 s of
// its ~36 s waiting for bytes (CPU profile); 6 measured 24-28 s against
// 25-36 s for 3 (two runs each, headless Chromium, 2 cores).
const AHEAD_BYTES = 6 * SLICE_MAX;
// A standalone file (embed.js: the wasm inlined) lists only its inline
// scripts' hashes in its CSP: a worker would be refused (and logged).
const STANDALONE = !!document.getElementById('strata-wasm');

// Size of the slice at file offset off: 512K, 512K, 1M, 2M, ... 16M, 16M, ...
// (read_worker.js has the same rule).
const sliceSize = (off) => Math.min(SLICE_MAX, Math.max(SLICE_MIN, off));

// On the main thread.
async function* mainChunks(blob) {
  const inFlight = [];
  let next = 0;
  let ahead = 0; // bytes in inFlight
  const issue = () => {
    while (next < blob.size && (!ahead || ahead + sliceSize(next) <= AHEAD_BYTES)) {
      const n = Math.min(sliceSize(next), blob.size - next);
      const p = blob.slice(next, next + n).arrayBuffer();
      p.catch(() => {}); // a read left behind by an aborted load must not be an unhandled rejection
      inFlight.push(p);
      next += n;
      ahead += n;
    }
  };
  issue();
  while (inFlight.length) {
    const ab = await inFlight.shift();
    ahead -= ab.byteLength;
    issue();
    yield new Uint8Array(ab);
  }
}

// A started read_worker.js, its events recorded from the start (a worker
// refused by the CSP reports it with an error event, maybe before it is used).
function spawn() {
  if (STANDALONE || typeof Worker === 'undefined') return null;
  let w;
  try {
    w = new Worker(new URL('read_worker.js', import.meta.url));
  } catch {
    return null;
  }
  const h = { w, failed: false, onmessage: null, onfail: null };
  w.onmessage = (e) => h.onmessage && h.onmessage(e.data);
  w.onerror = (e) => {
    e.preventDefault();
    h.failed = true;
    if (h.onfail) h.onfail();
  };
  return h;
}
let spare = spawn();

// Through the worker; falls back to mainChunks if it fails before its first
// slice (its script could not be loaded or run).
async function* workerChunks(h, blob) {
  const got = [];
  let done = false;
  let readError = null;
  let wake = null;
  const kick = () => {
    const r = wake;
    wake = null;
    if (r) r();
  };
  h.onmessage = (m) => {
    if (m.ab) got.push(new Uint8Array(m.ab));
    else if (m.done) done = true;
    else if (m.error !== undefined) readError = new Error(m.error);
    kick();
  };
  h.onfail = kick;
  // ?reader=slices (tests): Blob.slice() reads, as where a browser has no byte streams
  const slices = new URLSearchParams(location.search).get('reader') === 'slices';
  h.w.postMessage({ blob, min: SLICE_MIN, max: SLICE_MAX, ahead: AHEAD_BYTES, slices });
  let taken = 0;
  try {
    for (;;) {
      if (got.length) {
        const u8 = got.shift();
        taken++;
        h.w.postMessage({ took: u8.length });
        yield u8;
      } else if (readError) {
        throw readError;
      } else if (done) {
        return;
      } else if (h.failed) {
        if (taken) throw new Error('the file reader stopped part-way');
        yield* mainChunks(blob);
        return;
      } else {
        await new Promise((r) => (wake = r));
      }
    }
  } finally {
    h.w.terminate(); // also stops reads of an aborted load
    if (!h.failed) spare = spawn(); // for the next load
  }
}

export function blobChunks(blob) {
  const h = spare || spawn();
  spare = null;
  return h ? workerChunks(h, blob) : mainChunks(blob);
}
