// file_args.js: an event's args, re-read from its trace's file on demand
// (core/app/app.h, args by trace handle). Args are not resident in the
// model: the page keeps each shown trace's file as read(off, n), the core
// says which decoded bytes it needs (for a gzip'd file through an index of
// the compressed stream, built on the first read), and this file reads them
// and hands them back until the args are decoded. Reads run on the page's
// load queue (enqueue) and share its one transfer buffer (buf, chunk bytes).
// Args are untrusted: the details pane shows them through textContent only
// (panels.js renderArgs).

export function createFileArgs({ M, str, buf, chunk: CHUNK, enqueue, traces, filesChanged }) {
  const json = (ptr) => JSON.parse(str(ptr));
  const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim();

  // handle -> {read(off, n) -> Promise<Uint8Array>, size, compressed}: the
  // files of the traces shown (each its own args source in the wasm side)
  let shownFiles = new Map();
  let shownFile = null; // the one file when one trace is shown (the "in args" search)
  const argsCache = new Map(); // `${handle}:${src}` -> {args} | {error}

  function setFiles(files) {
    shownFiles = files;
    shownFile = files.size === 1 && traces().length === 1 ? [...files.values()][0] : null;
    filesChanged();
    argsCache.clear();
    for (const h of files.keys()) M._st_wasm_args_reset(h);
  }

  // The handle of the file an event (from the core's JSON) came from.
  function handleOf(ev) {
    const list = traces();
    const t = ev && ev.part !== undefined ? list[ev.part] : list[0];
    return t ? t.handle : 0;
  }

  // Streams trace h's compressed file once through the gzip index builder.
  async function buildGzIndex(f, h) {
    for (let off = 0; off < f.size; off += CHUNK) {
      const part = await f.read(off, CHUNK);
      M.HEAPU8.set(part, buf);
      if (M._st_wasm_args_index_push(h, buf, part.length) !== 0) return false;
    }
    return M._st_wasm_args_index_finish(h) === 0;
  }

  // Every format (JSON, XSpace, Perfetto; gzip'd or not): the core's args source
  // says which decoded bytes to read (an event record, then e.g. its XSpace
  // metadata record), the page reads them and hands them back, until the args
  // are decoded (core/app/app.h, args by trace handle).
  async function readArgs(f, h, src) {
    let res = json(M._st_wasm_args_begin(h, src));
    for (let step = 0; res.read && step < 8; step++) {
      const { offset, length } = res.read;
      if (!f.compressed) {
        const end = Math.min(offset + length, f.size);
        for (let off = offset; off < end; off += CHUNK) {
          const part = await f.read(off, Math.min(CHUNK, end - off));
          M.HEAPU8.set(part, buf);
          if (M._st_wasm_args_data(h, buf, part.length) !== 0) return { error: 'out of memory reading the args' };
        }
      } else {
        if (!M._st_wasm_args_index_ready(h) && !(await buildGzIndex(f, h))) {
          return { error: 'the compressed file could not be indexed' };
        }
        let off = M._st_wasm_args_gz_begin(h, offset, length);
        if (off < 0) return { error: 'the event could not be located in the compressed file' };
        for (let r = 0; r === 0 && off < f.size; off += CHUNK) {
          const part = await f.read(off, CHUNK);
          M.HEAPU8.set(part, buf);
          r = M._st_wasm_args_gz_push(h, buf, part.length);
          if (r < 0) return { error: 'the compressed file could not be read' };
        }
      }
      res = json(M._st_wasm_args_step(h));
    }
    return res.read ? { error: 'the event is too large to show its args' } : res;
  }

  // Resolves {args, truncated} or {error}; shares the load queue (and buffer).
  function argsFor(src, handle) {
    if (handle === undefined) handle = handleOf(null);
    const key = `${handle}:${src}`;
    if (argsCache.has(key)) return Promise.resolve(argsCache.get(key));
    const files = shownFiles;
    const f = files.get(handle);
    if (!f) return Promise.resolve({ error: 'args are shown for traces opened from a file' });
    const p = enqueue(async () => {
      if (files !== shownFiles) return { error: 'another trace was opened' };
      const res = await readArgs(f, handle, src);
      if (files === shownFiles) argsCache.set(key, res);
      return res;
    });
    return p.catch((e) => ({ error: oneLine(e && e.message ? e.message : e) }));
  }

  return {
    setFiles,
    handleOf,
    argsFor,
    files: () => shownFiles, // handle -> {read, size, compressed}
    file: () => shownFile, // the one file when one trace is shown, else null
    // the args already read of the event at src in trace handle (undefined if not)
    cached: (handle, src) => argsCache.get(`${handle}:${src}`),
  };
}
