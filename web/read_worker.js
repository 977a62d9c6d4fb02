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
// Protocol (messages in): {blob, min, max, ahead} starts; {took: n} says
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

function pump() {
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

onmessage = (e) => {
  const m = e.data;
  if (m.blob) {
    ({ blob, min, max } = m);
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
