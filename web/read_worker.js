// read_worker.js: reads one File/Blob in slices for reader.js, off the main
// thread.
//
// Why a worker: a Blob slice's bytes reach the page through a data pipe that
// the reading thread drains and copies into the ArrayBuffer. Read from the
// main thread, that copying is main-thread time taken from the wasm loader
// (300 MB trace, headless Chromium on 2 cores: ~0.3 s of the load). Here it
// runs on the worker's thread and the finished ArrayBuffers are transferred
// (not copied) to the page.
//
// Protocol (messages in): {blob, min, max, ahead, slices} starts (slices:
// Blob.slice() reads even where byte streams exist); {took: n} says
// the page took a slice of n bytes. Out: {off, ab} per slice in file order
// (ab transferred), then {done: true}; {error: text} if a read fails. At
// most `ahead` bytes are read but not yet taken by the page (or one slice),
// so a 10 GB file never piles up here.
let blob = null;
let min = 0; // slice sizes: reader.js's sliceSize
let max = 0;
let next = 0; // file offset of the next slice to read
let ahead = 0; // byte budget
let out = 0; // bytes read or being read, not yet taken by the page
let pending = Promise.resolve(); // posts slices in order

// reader.js's sliceSize: small first slices, doubling up to max
const sliceSize = (off) => Math.min(max, Math.max(min, off));

// The bytes come from one BYOB reader of blob.stream(), filling a buffer of
// the slice's size at a time: in headless Chromium reading the 983 MB trace
// this way took 1.37 ms of CPU per MB (the browser's and the renderer's),
// 16 MiB Blob.slice()s 2.0 ms (tools/benchmarks/bench_file_read.mjs). The
// slices are read one after the other, in file order.
let reader = null; // the stream's BYOB reader, or null: Blob.slice() reads
let reading = false; // a slice is being read from the stream

async function fill(r, off, n) {
  let buf = new ArrayBuffer(n);
  let got = 0;
  while (got < n) {
    const { done, value } = await r.read(new Uint8Array(buf, got, n - got));
    if (done) break;
    got += value.byteLength;
    buf = value.buffer;
  }
  if (got < n) throw new Error(`the file ended at byte ${off + got} of ${blob.size}`);
  return buf;
}

function pump() {
  if (reader) {
    if (reading || !blob || next >= blob.size || (out && out + sliceSize(next) > ahead)) return;
    const off = next;
    const n = Math.min(sliceSize(off), blob.size - off);
    out += n;
    next += n;
    reading = true;
    const r = reader; // a new start replaces it (and cancels this one's reads)
    fill(r, off, n).then((ab) => {
      if (reader !== r) return; // a new read started: its own slices go on
      reading = false;
      postMessage({ off, ab }, [ab]);
      if (off + n >= blob.size) postMessage({ done: true });
      pump();
    }, (e) => {
      if (reader !== r) return;
      reading = false;
      postMessage({ error: String((e && e.message) || e) });
      blob = null;
    });
    return;
  }
  while (blob && next < blob.size && (!out || out + sliceSize(next) <= ahead)) {
    const off = next;
    const n = Math.min(sliceSize(off), blob.size - off);
    out += n;
    const read = blob.slice(off, off + n).arrayBuffer();
    read.catch(() => {}); // reported in order below
    next += n;
    pending = pending.then(async () => {
      if (!blob) return; // an earlier slice failed
      let ab;
      try {
        ab = await read;
      } catch (e) {
        postMessage({ error: String((e && e.message) || e) });
        blob = null;
        return;
      }
      postMessage({ off, ab }, [ab]);
      if (off + n >= blob.size) postMessage({ done: true });
    });
  }
}

// A BYOB reader of the blob's stream where the browser has one.
function byobReader(b) {
  try {
    return typeof b.stream === 'function' ? b.stream().getReader({ mode: 'byob' }) : null;
  } catch {
    return null;
  }
}

onmessage = (e) => {
  const m = e.data;
  if (m.blob) {
    if (reader) reader.cancel().catch(() => {});
    ({ blob, min, max } = m);
    reader = m.slices ? null : byobReader(blob);
    reading = false;
    next = 0;
    out = 0;
    ahead = m.ahead;
    if (blob.size === 0) postMessage({ done: true });
    pump();
  } else if (m.took) {
    out -= m.took;
    pump();
  }
};
