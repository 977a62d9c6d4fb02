// sources.js: where a trace's bytes come from, as the loader reads them. A
// File/Blob, an ArrayBuffer or Uint8Array, or a URL (fetched once; its body
// sniffed: a profile manifest (manifest.js) or a trace) resolves to
// {name, total, chunks: Uint8Array slices in file order, read(off, n) or
// rangeRead (HTTP Range: streaming mode's window reads), ...}. Also the bytes
// of index files (`strata index`: *.stx), and which trace each goes with.
// No wasm and no page state here: each function depends only on its
// arguments (and on what it fetches or reads).

import { blobChunks } from './reader.js';
import { sniffManifest, parseManifest } from './manifest.js';

export const CHUNK = 4 << 20; // bytes per slice pushed into the loader (4 MiB)

const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim();

const nextTick = () => new Promise((r) => setTimeout(r, 0));

// ---- sources: each yields Uint8Array chunks ------------------------------

// Yields to the event loop (so the progress bar can paint) at most every
// 50 ms: a yield after every 4 MiB chunk left a 30 MB buffer's load idle for
// ~10 ms of its ~75 (setTimeout(0) is clamped to 4 ms once nested).
async function* bytesChunks(u8) {
  let last = performance.now();
  for (let off = 0; off < u8.length; off += CHUNK) {
    yield u8.subarray(off, off + CHUNK);
    if (performance.now() - last >= 50) {
      await nextTick();
      last = performance.now();
    }
  }
}

async function* streamChunks(body, url) {
  const reader = body.getReader();
  try {
    for (;;) {
      let r;
      try {
        r = await reader.read();
      } catch (e) {
        throw new Error(`Could not read ${url}: the download failed part-way (${oneLine(e.message || e)})`);
      }
      if (r.done) return;
      yield r.value;
    }
  } finally {
    reader.releaseLock();
  }
}

export function nameFromUrl(url) {
  try {
    const u = new URL(url, document.baseURI);
    const last = u.pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last) : u.host || url;
  } catch {
    return url;
  }
}

async function fetchSource(url) {
  let resp;
  try {
    resp = await fetch(url, { credentials: 'omit', referrerPolicy: 'no-referrer' });
  } catch (e) {
    throw new Error(
      `Could not fetch ${url}: the request failed (offline, wrong address, or the server ` +
        `does not allow this page to read it: CORS)`,
    );
  }
  if (!resp.ok) throw new Error(`Could not fetch ${url}: HTTP ${resp.status} ${oneLine(resp.statusText)}`.trim());
  // With Content-Encoding the length is of the compressed body: no percentage.
  const len = resp.headers.get('Content-Encoding') ? 0 : Number(resp.headers.get('Content-Length')) || 0;
  if (!resp.body) {
    const u8 = new Uint8Array(await resp.arrayBuffer());
    return { total: u8.length, chunks: bytesChunks(u8) };
  }
  // cancel(): the body not read after all (a trace opened from its index)
  return { total: len, chunks: streamChunks(resp.body, url), cancel: () => resp.body.cancel().catch(() => {}) };
}

// read(off, n) of a URL by HTTP Range (streaming mode's window reads). A server
// that answers 200 (the whole file) is told apart at once and the request
// dropped, not downloaded.
function rangeReader(url) {
  return async (off, n) => {
    const ac = new AbortController();
    const resp = await fetch(url, {
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      headers: { Range: `bytes=${off}-${off + n - 1}` },
      signal: ac.signal,
    });
    if (resp.status !== 206) {
      ac.abort();
      throw new Error(resp.ok
        ? `${url}: the server ignores HTTP Range requests (it answered ${resp.status} with the whole file), ` +
          'so this window cannot be read from it; serve the trace from a host that supports ranges (tools/serve.py does)'
        : `${url}: HTTP ${resp.status} reading bytes ${off}-${off + n - 1}`);
    }
    return new Uint8Array(await resp.arrayBuffer());
  };
}

// A URL's body is sniffed (manifest.js): a profile manifest resolves to
// {manifest: {files, skipped, total}} (opts.manifest: it must be one).
export async function resolveSource(source, opts) {
  if (typeof source === 'string' || source instanceof URL) {
    const url = String(source);
    const { total, chunks, cancel } = await fetchSource(url);
    const sniffed = await sniffManifest(chunks, !!opts.manifest);
    if (sniffed.text !== undefined) return { manifest: parseManifest(sniffed.text, new URL(url, document.baseURI).href) };
    return { name: opts.name || nameFromUrl(url), total, chunks: sniffed.chunks, rangeRead: rangeReader(url), cancel };
  }
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    const read = async (off, n) => new Uint8Array(await source.slice(off, off + n).arrayBuffer());
    // chunks made when read: a load split across workers (par_load.js) reads no chunk
    return { name: opts.name || source.name || 'trace', total: source.size, get chunks() { return blobChunks(source); }, read, blob: source };
  }
  let u8 = null;
  if (source instanceof ArrayBuffer) u8 = new Uint8Array(source);
  else if (ArrayBuffer.isView(source)) u8 = new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (u8) {
    const read = async (off, n) => u8.subarray(Math.min(off, u8.length), Math.min(off + n, u8.length));
    return { name: opts.name || 'trace', total: u8.length, chunks: bytesChunks(u8), read };
  }
  throw new Error('strata.open: expected a File, Blob, ArrayBuffer, Uint8Array or URL string');
}

// ---- index files (`strata index`) ------------------------------------------------

// The bytes of an index given as a File, Blob, buffer or URL.
export async function bytesOf(src) {
  if (typeof src === 'string' || src instanceof URL) {
    const r = await fetch(String(src), { credentials: 'omit', referrerPolicy: 'no-referrer' });
    if (!r.ok) throw new Error(`Could not fetch ${src}: HTTP ${r.status}`);
    return new Uint8Array(await r.arrayBuffer());
  }
  if (typeof Blob !== 'undefined' && src instanceof Blob) return new Uint8Array(await src.arrayBuffer());
  if (src instanceof ArrayBuffer) return new Uint8Array(src);
  if (ArrayBuffer.isView(src)) return new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
  throw new Error('strata.open: an index must be a File, Blob, ArrayBuffer, Uint8Array or URL string');
}

export const isIndex = (b) => b && b.length >= 9 && String.fromCharCode(...b.subarray(0, 9)) === 'STRATASTX';

// `<trace url>.stx` beside a ?url= trace, if there is one (null otherwise).
export async function siblingIndex(url) {
  try {
    const u = new URL(url, document.baseURI);
    u.pathname += '.stx';
    const r = await fetch(u.href, { credentials: 'omit', referrerPolicy: 'no-referrer' });
    if (!r.ok) return null;
    const b = new Uint8Array(await r.arrayBuffer());
    return isIndex(b) ? b : null;
  } catch {
    return null;
  }
}

// Index files (`strata index`: *.stx) among several sources go with the trace
// they are named after (run.json + run.json.stx): {sources, indexes}.
export async function pairIndexes(list) {
  const nameOf = (s) => (s && s.name) || (typeof s === 'string' ? nameFromUrl(s) : '');
  const stx = list.filter((s) => /\.stx$/i.test(nameOf(s)));
  if (!stx.length) return { sources: list, indexes: null };
  const indexes = new Map();
  for (const s of stx) indexes.set(nameOf(s).replace(/\.stx$/i, ''), await bytesOf(s));
  return { sources: list.filter((s) => !stx.includes(s)), indexes };
}
