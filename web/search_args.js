// search_args.js: "in args" search (issue 5). Args are not resident in the
// model, so searching them is a streaming pass over the open file, like a
// load: the File is read in Blob.slice chunks (raw bytes; gzip is inflated
// in the core) and pushed through core/app/app_args.c, which frames the
// events, matches the needle case-insensitively in their args and
// merges the hits into the ordinary search state (count, dimming,
// Enter / Shift+Enter) as names OR args.
//
// With the #search-args box checked, typing runs the name search at once
// and the args pass after a short pause; Enter runs it now if it has not
// finished for this text, else steps. A new query (or unchecking) cancels
// a pass in progress. XSpace / Perfetto traces go the same way: the core
// frames their planes / packets and decodes each event's args from them.

const DEBOUNCE_MS = 250;

export function createArgsSearch({ M, withCString, getFile, getHandle, getFiles, getBuf, chunk, progressEl, countEl }) {
  const setProgress = (done, total) => {
    progressEl.hidden = false;
    progressEl.value = total > 0 ? Math.min(1, done / total) : 0;
  };
  const hideProgress = () => { progressEl.hidden = true; };
  let gen = 0; // bumped by every new pass or cancel
  let doneText = null; // the text the last finished pass was for
  let running = null; // {text, promise}
  let timer = 0;

  function cancel() {
    clearTimeout(timer);
    timer = 0;
    if (running) {
      gen++;
      running = null;
      M._st_wasm_args_search_abort();
      hideProgress();
    }
    doneText = null;
  }

  // Several files shown: the name search, then one pass per file, each
  // adding its args hits to the search for its own events.
  async function passMany(text, files) {
    const my = ++gen;
    const t0 = performance.now();
    withCString(text, (p) => M._st_wasm_search(p));
    const total = files.reduce((a, x) => a + x.file.size, 0);
    let done = 0;
    let matches = 0;
    for (const { handle, file: f } of files) {
      if (!withCString(text, (p) => M._st_wasm_args_search_begin_in(handle, p))) {
        throw new Error(M.UTF8ToString(M._st_wasm_args_search_error()));
      }
      for (let off = 0; off < f.size; off += chunk) {
        const part = await f.read(off, chunk);
        if (my !== gen) return { matches: null, cancelled: true };
        const buf = getBuf();
        M.HEAPU8.set(part, buf);
        if (M._st_wasm_args_search_push(buf, part.length) !== 0) {
          const msg = M.UTF8ToString(M._st_wasm_args_search_error());
          M._st_wasm_args_search_abort();
          throw new Error(`args search: ${msg}`);
        }
        done += part.length;
        setProgress(done, total);
        countEl.textContent = `searching args… ${Math.floor((100 * done) / total)}%`;
      }
      if (my !== gen) return { matches: null, cancelled: true };
      matches = M._st_wasm_args_search_finish();
      if (matches < 0) throw new Error(`args search: ${M.UTF8ToString(M._st_wasm_args_search_error())}`);
    }
    doneText = text;
    return { matches, ms: performance.now() - t0 };
  }

  // One pass; resolves {matches} | {matches: null, cancelled: true}; rejects with the core's message.
  async function pass(text) {
    const many = getFiles ? getFiles() : [];
    if (many.length > 1) return passMany(text, many);
    const my = ++gen;
    const f = getFile();
    if (!f) throw new Error('args search needs the trace file: open it from disk (or drop it) to search its args');
    if (!withCString(text, (p) => M._st_wasm_args_search_begin(getHandle(), p))) {
      throw new Error(M.UTF8ToString(M._st_wasm_args_search_error()));
    }
    const t0 = performance.now();
    let next = f.read(0, chunk);
    for (let off = 0; off < f.size; off += chunk) {
      const part = await next;
      if (my !== gen || getFile() !== f) return { matches: null, cancelled: true };
      if (off + chunk < f.size) next = f.read(off + chunk, chunk); // read ahead while this one is searched
      const buf = getBuf();
      M.HEAPU8.set(part, buf);
      const code = M._st_wasm_args_search_push(buf, part.length);
      if (code !== 0) {
        const msg = M.UTF8ToString(M._st_wasm_args_search_error());
        M._st_wasm_args_search_abort();
        throw new Error(`args search: ${msg}`);
      }
      setProgress(off + part.length, f.size);
      countEl.textContent = `searching args… ${Math.floor((100 * (off + part.length)) / f.size)}%`;
    }
    if (my !== gen || getFile() !== f) return { matches: null, cancelled: true };
    const matches = M._st_wasm_args_search_finish();
    if (matches < 0) throw new Error(`args search: ${M.UTF8ToString(M._st_wasm_args_search_error())}`);
    doneText = text;
    return { matches, ms: performance.now() - t0 };
  }

  // Runs (or joins) the pass for text; empty text clears the search.
  function run(text) {
    clearTimeout(timer);
    timer = 0;
    text = String(text ?? '');
    if (running && running.text === text) return running.promise;
    if (running) cancel();
    if (!text) {
      withCString('', (p) => M._st_wasm_search(p));
      return Promise.resolve({ matches: 0 });
    }
    if (doneText === text) { // already applied in C (a name-only search calls cancel())
      const st = JSON.parse(M.UTF8ToString(M._st_wasm_ui_state_json()) || 'null');
      return Promise.resolve({ matches: st && st.search ? st.search.matches : 0 });
    }
    const entry = { text, promise: null };
    entry.promise = pass(text)
      .catch((e) => {
        countEl.textContent = String(e && e.message ? e.message : e);
        throw e;
      })
      .finally(() => {
        if (running === entry) {
          running = null;
          hideProgress();
        }
      });
    running = entry;
    return entry.promise;
  }

  return {
    run,
    cancel,
    // Typing with the box checked: names now, args after a pause.
    typed(text) {
      cancel();
      withCString(text, (p) => M._st_wasm_search(p));
      if (text) timer = setTimeout(() => run(text).catch(() => {}), DEBOUNCE_MS);
    },
    // Enter: true if the pass for text has finished (step now), else run() it first.
    ready(text) {
      return doneText === text && !running;
    },
    fileChanged() {
      cancel();
    },
  };
}
