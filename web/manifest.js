// manifest.js: a profile manifest (`strata manifest DIR -o profile.json`,
// tools/cli/cli_manifest.c) opened as one profile: its files fetched relative
// to the manifest's URL and shown together, as window.strata.open([...]) of
// those files shows them (app.js's doOpenMany: one timeline, offsets from
// the files' clocks), each file under the manifest's "group" (the wasm's
// st_wasm_set_group; `strata manifest` writes profile.h's names, the page's
// own).
//
// How the page knows: `?manifest=<url>` says so (the body must be a
// manifest); `?url=<url>` and window.strata.open(url) look at the first
// bytes of what they fetch: '{' with "strata_manifest" as the first key
// (what `strata manifest` writes) is a manifest, anything else a trace, read
// on from the bytes already fetched (nothing is fetched twice).
//
// A manifest is untrusted input. Refused with one line (the page stays as it
// was): not JSON, no "strata_manifest" key, a version other than 1, no
// "files" list, and any path that is not a relative path below the
// manifest ('..', '.', an empty segment, a leading '/', a backslash, a
// scheme, a control character): each path's segments are percent-encoded
// and resolved against the manifest's URL, so a file is always fetched
// from the manifest's own folder on its own origin. Entries the CLI could
// not read (an "error") are not fetched; the page names them in its
// per-file report with the CLI's one line. A profile that streams (its
// files' bytes past the heap budget, or ?stream=1) opens each file from
// the index the manifest names (app.js: no pass; checked against the file
// by HTTP Range, a stale one said and the file read instead). Nothing here
// touches the DOM.

export const MANIFEST_VERSION = 1;
const SNIFF_BYTES = 64; // '{', white space and "strata_manifest": enough to decide
const MAX_MANIFEST_BYTES = 64 << 20; // ~300,000 files' entries

const oneLine = (s) => String(s).replace(/\s+/g, ' ').trim();

function concat(parts, n) {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

// Whether bytes begin as `strata manifest` writes a manifest: an optional
// BOM, white space, '{', white space, "strata_manifest".
export function looksLikeManifest(u8) {
  const head = new TextDecoder().decode(u8.subarray(0, SNIFF_BYTES));
  return /^\uFEFF?\s*\{\s*"strata_manifest"/.test(head);
}

// The chunks of a fetched body, sniffed: {text} (the whole body, a
// manifest's: when `must`, or when its first bytes look like one) or
// {chunks} (an async iterator giving every byte again, the sniffed ones
// first).
export async function sniffManifest(chunks, must = false) {
  const it = chunks[Symbol.asyncIterator]();
  const parts = [];
  let n = 0;
  let done = false;
  while (n < SNIFF_BYTES) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    parts.push(r.value);
    n += r.value.length;
  }
  const head = concat(parts, n);
  if (!must && !looksLikeManifest(head)) return { chunks: replay(head, it, done) };
  const all = [head];
  while (!done) {
    const r = await it.next();
    if (r.done) break;
    n += r.value.length;
    if (n > MAX_MANIFEST_BYTES) {
      await it.return?.();
      throw new Error(`the manifest is larger than ${MAX_MANIFEST_BYTES >> 20} MiB`);
    }
    all.push(r.value);
  }
  return { text: new TextDecoder().decode(concat(all, n)) };
}

async function* replay(head, it, done) {
  let finished = done;
  try {
    if (head.length) yield head;
    while (!finished) {
      const r = await it.next();
      if (r.done) {
        finished = true;
        return;
      }
      yield r.value;
    }
  } finally {
    if (!finished) await it.return?.();
  }
}

// Why a manifest path is refused, or '' if it is a relative path below the manifest.
function pathProblem(p) {
  if (typeof p !== 'string' || !p) return 'no path';
  if (/[\u0000-\u001f\u007f]/.test(p)) return 'a control character';
  if (p.includes('\\')) return 'a backslash';
  if (p.startsWith('/')) return 'an absolute path';
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(p)) return 'a URL';
  const segs = p.split('/');
  if (segs.some((s) => s === '..')) return "'..'";
  if (segs.some((s) => s === '' || s === '.')) return "an empty or '.' segment";
  return '';
}

// The text of a manifest fetched from manifestUrl (absolute) -> {files:
// [{url, name, group, index, bytes}], skipped: [{name, message}], total}
// (index: the URL of the file's `.stx`, or null); throws an Error with one
// line when the manifest is refused (rules above: an index path too).
export function parseManifest(text, manifestUrl) {
  const label = shortName(manifestUrl);
  const refuse = (why) => new Error(`${label}: not a valid strata manifest: ${why}`);
  let m;
  try {
    m = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw refuse(`not JSON (${oneLine(e && e.message ? e.message : e)})`);
  }
  if (!m || typeof m !== 'object' || Array.isArray(m) || !('strata_manifest' in m)) {
    throw refuse('no "strata_manifest" key');
  }
  if (m.strata_manifest !== MANIFEST_VERSION) {
    throw refuse(`version ${oneLine(JSON.stringify(m.strata_manifest)).slice(0, 40)} (this page reads version ${MANIFEST_VERSION})`);
  }
  if (!Array.isArray(m.files) || !m.files.length) throw refuse('no "files" list');
  const base = new URL(manifestUrl);
  const dir = base.pathname.slice(0, base.pathname.lastIndexOf('/') + 1);
  // p's absolute URL, refused unless it is a relative path below the manifest
  const below = (p, shown) => {
    const why = pathProblem(p);
    if (why) throw refuse(`file ${shown}: ${why} (only relative paths below the manifest)`);
    const url = new URL(p.split('/').map(encodeURIComponent).join('/'), base);
    if (url.origin !== base.origin || !url.pathname.startsWith(dir)) throw refuse(`file ${shown}: not below the manifest`);
    return url.href;
  };
  const files = [];
  const skipped = [];
  for (const [i, f] of m.files.entries()) {
    const p = f && typeof f === 'object' ? f.path : undefined;
    const shown = typeof p === 'string' ? JSON.stringify(p.slice(0, 120)) : `#${i + 1}`;
    const url = below(p, shown);
    if (f.error !== undefined) {
      skipped.push({ name: p, message: `${p}: not read by strata manifest: ${oneLine(f.error)}` });
      continue;
    }
    // its index (`strata index`), checked as the path is
    const index = f.index == null ? null : below(f.index, `${shown}'s index`);
    const bytes = Number.isFinite(f.bytes) && f.bytes > 0 ? f.bytes : 0;
    files.push({ url, name: p, group: typeof f.group === 'string' ? f.group : null, index, bytes });
  }
  return { files, skipped, total: m.files.length };
}

function shortName(url) {
  try {
    const u = new URL(url);
    return decodeURIComponent(u.pathname.split('/').filter(Boolean).pop() || u.host);
  } catch {
    return String(url);
  }
}
