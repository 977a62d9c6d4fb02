// drop.js: traces dropped on the page. While files are dragged over it the
// drop overlay shows; a drop hands every file of it (folders walked) to
// open(files), and a drop that cannot be read to onError(err). Nothing here
// reads a file's bytes or touches the wasm module.

// Every file of a drop: plain files as they are, folders walked (a profile
// directory: plugins/profile/<run>/*.xplane.pb, rank-*.pt.trace.json.gz);
// which of them are traces is decided by the loader from their bytes, and
// the page lists the ones it skipped. Sorted by path, so ranks keep order.
async function droppedFiles(dt) {
  const items = Array.from(dt.items || []).filter((it) => it.kind === 'file');
  const entries = items.map((it) => (it.webkitGetAsEntry ? it.webkitGetAsEntry() : null));
  if (!entries.length || entries.some((e) => !e)) return Array.from(dt.files || []);
  const out = [];
  const fileOf = (entry) => new Promise((res, rej) => entry.file(res, rej));
  const readAll = async (dir) => {
    const reader = dir.createReader();
    const all = [];
    for (;;) { // readEntries returns at most ~100 at a time
      const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
      if (!batch.length) return all;
      all.push(...batch);
    }
  };
  const walk = async (entry, depth) => {
    if (entry.isFile) {
      const f = await fileOf(entry);
      out.push({ path: entry.fullPath || f.name, file: f });
    } else if (entry.isDirectory && depth < 16) {
      for (const child of await readAll(entry)) await walk(child, depth + 1);
    }
  };
  for (const e of entries) await walk(e, 0);
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out.map((o) => o.file);
}

// The window's drag and drop: overlay (the #drop-overlay element) shown while
// files are dragged over the page.
export function wireDrop({ overlay, open, onError }) {
  const hasFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');
  let depth = 0;
  window.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    overlay.hidden = false;
  });
  window.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  window.addEventListener('dragleave', (e) => {
    if (!hasFiles(e)) return;
    depth = Math.max(0, depth - 1);
    if (depth === 0) overlay.hidden = true;
  });
  window.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    droppedFiles(e.dataTransfer).then(open, onError);
  });
}
