// info.js: the trace-info panel. What the open trace is (name, format, size,
// counts, time range, the importer's warnings) and its free-form top-level
// JSON (metadata, otherData, displayTimeUnit, ...: whatever the file carries
// besides its events), pretty-printed. Everything from the trace is set as
// textContent: names and values are untrusted. On top, the processes without
// events (no slice, instant, async slice, sample or counter value in any of
// their tracks: Kineto names every GPU of the machine), hidden from the
// timeline, with a button that shows them (window.strata.setShowEmpty).
const MAX_VALUE_CHARS = 20000;

export function createInfo({ M, str, traces }) {
  const button = document.getElementById('info-button');
  const panel = document.getElementById('trace-info');
  const body = document.getElementById('trace-info-body');
  const close = document.getElementById('trace-info-close');

  const el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
  const row = (dl, key, value) => {
    dl.append(el('dt', key), el('dd', value));
  };

  function metadata(handle) {
    const text = str(handle === undefined ? M._st_wasm_trace_info_json() : M._st_wasm_trace_info_json_of(handle));
    try {
      return { obj: JSON.parse(text), text };
    } catch {
      return { obj: null, text }; // cut at the importer's size cap: show it raw
    }
  }

  function render() {
    body.replaceChildren();
    const s = window.strata.stats();
    if (!s) {
      body.append(el('p', 'No trace is open.'));
      return;
    }
    emptyLine(body);
    const list = traces ? traces() : [];
    if (list.length < 2) {
      block(body, s, document.getElementById('trace-name').textContent || '(unnamed)');
      return;
    }
    // several files: one block each, with its offset on the shared timeline (editable)
    for (const t of list) {
      const sec = el('section', undefined, 'trace-block');
      sec.dataset.handle = String(t.handle);
      sec.append(el('h3', `${t.group}`, 'trace-block-title'));
      const ts = JSON.parse(str(M._st_wasm_trace_stats_json(t.handle)));
      if (ts) block(sec, ts, t.name, t);
      body.append(sec);
    }
  }

  // "7 processes without events, hidden [Show them]" (tracks.js's state).
  function emptyLine(body) {
    const st = window.strata.trackState ? window.strata.trackState() : null;
    if (!st || !st.empty) return;
    const n = st.empty.toLocaleString();
    const all = st.empty === st.processes;
    const p = el('p', undefined, 'empty-processes');
    p.id = 'empty-processes';
    const what = `${n} process${st.empty === 1 ? '' : 'es'} without events`;
    p.append(el('span', all ? `${what}: none has any, so all are shown.` : `${what}, ${st.show_empty ? 'shown' : 'hidden from the timeline'}.`));
    if (!all) {
      const b = el('button', st.show_empty ? 'Hide them' : 'Show them');
      b.type = 'button';
      b.id = 'empty-processes-toggle';
      b.addEventListener('click', () => window.strata.setShowEmpty(!st.show_empty));
      p.append(b);
    }
    body.append(p);
  }

  function offsetInput(t) {
    const input = el('input');
    input.type = 'number';
    input.step = 'any';
    input.value = String(t.offset_us);
    input.className = 'offset-input';
    input.setAttribute('aria-label', `offset of ${t.name} in microseconds`);
    input.addEventListener('change', () => {
      const v = Number(input.value);
      if (Number.isFinite(v) && M._st_wasm_set_offset(t.handle, v)) render();
      else input.value = String(t.offset_us);
    });
    return input;
  }

  function block(body, s, name, t) {
    const dl = el('dl');
    row(dl, 'trace', name);
    if (t) {
      const dd = el('dd');
      dd.append(offsetInput(t), el('span', ' us: where its time 0 is on the shared timeline'));
      dl.append(el('dt', 'offset'), dd);
    }
    row(dl, 'format', `${s.format}${s.compressed ? ' (gzip)' : ''}`);
    row(dl, 'size', `${s.bytes_in.toLocaleString()} bytes${s.compressed ? `, ${s.bytes_decoded.toLocaleString()} decoded` : ''}`);
    row(dl, 'events', `${s.events.toLocaleString()} (${s.slices.toLocaleString()} slices, ${s.instants.toLocaleString()} instants, ` +
      `${s.counter_samples.toLocaleString()} counter samples, ${s.async_slices.toLocaleString()} async, ${s.flows.toLocaleString()} flows)`);
    if (s.samples) row(dl, 'CPU samples', `${s.samples.toLocaleString()} (${s.stack_frames.toLocaleString()} stack frames)`);
    row(dl, 'processes / threads', `${s.processes} / ${s.threads}`);
    if (s.ts_min_us !== null) row(dl, 'timestamps (us, as in the file)', `${s.ts_min_us} … ${s.ts_max_us}`);
    for (const w of s.warnings || []) row(dl, `warning: ${w.kind}`, `${w.count}× (first at byte ${w.first_offset})`);
    body.append(dl);

    const meta = metadata(t ? t.handle : undefined);
    const keys = meta.obj && typeof meta.obj === 'object' ? Object.keys(meta.obj) : [];
    body.append(el('h3', keys.length || !meta.obj ? 'Metadata in the file' : 'No metadata in the file'));
    if (!meta.obj) {
      body.append(el('pre', meta.text.slice(0, MAX_VALUE_CHARS)));
      return;
    }
    const md = el('dl', undefined, 'meta');
    for (const k of keys) {
      const v = meta.obj[k];
      const text = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
      const dd = el('dd');
      dd.append(el('pre', text.length > MAX_VALUE_CHARS ? text.slice(0, MAX_VALUE_CHARS) + '…' : text));
      md.append(el('dt', k), dd);
    }
    body.append(md);
  }

  const show = (on) => {
    panel.hidden = !on;
    button.setAttribute('aria-pressed', on ? 'true' : 'false');
    if (on) render();
  };
  button.addEventListener('click', () => show(panel.hidden));
  close.addEventListener('click', () => show(false));
  window.addEventListener('strata:loaded', () => { if (!panel.hidden) render(); });
  window.addEventListener('strata:tracks', () => { if (!panel.hidden && !document.activeElement?.classList.contains('offset-input')) render(); });
  window.addEventListener('strata:offsets', () => { if (!panel.hidden && !panel.contains(document.activeElement)) render(); });
  return { show, render };
}
