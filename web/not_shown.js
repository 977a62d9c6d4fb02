// not_shown.js: says what the open trace holds that strata does not draw,
// next to the trace's name ("12,003 packets not shown: 11,000 android_log,
// 1,003 heap_graph"), and, when nothing in the file can be drawn, says so
// over the timeline instead of leaving it empty. The counts come from the
// importer's metadata ({"not_shown": {...}}: core/import/perfetto/import_perfetto.h), which
// the Info panel lists too. Kind names come from the file's structure, not
// its text, but are still set with textContent only.

const fmt = (n) => Number(n).toLocaleString('en-US');

// The line for a metadata object, or '' when everything is shown.
export function notShownText(meta) {
  const ns = meta && typeof meta === 'object' ? meta.not_shown : null;
  if (!ns || typeof ns !== 'object') return '';
  const parts = [];
  const kinds = ns.kinds && typeof ns.kinds === 'object' ? Object.entries(ns.kinds) : [];
  kinds.sort((a, b) => b[1] - a[1]);
  const packets = Number(ns.packets) || 0, ftrace = Number(ns.ftrace_events) || 0;
  if (packets) {
    const list = kinds.map(([k, n]) => `${fmt(n)} ${k}`).join(', ');
    parts.push(`${fmt(packets)} packet${packets === 1 ? '' : 's'} not shown${list ? ': ' + list : ''}`);
  }
  if (ftrace) parts.push(`${fmt(ftrace)} ftrace event${ftrace === 1 ? '' : 's'} of other kinds not shown`);
  return parts.join('; ');
}

export function createNotShown({ M, str }) {
  const line = document.getElementById('not-shown');
  const nothing = document.getElementById('nothing-shown');
  function update() {
    let meta = null;
    try {
      meta = JSON.parse(str(M._st_wasm_trace_info_json()));
    } catch {
      meta = null;
    }
    const text = notShownText(meta);
    line.textContent = text;
    line.title = text;
    line.hidden = !text;
    const none = !!(meta && meta.not_shown && meta.not_shown.nothing_shown);
    nothing.textContent = none
      ? `Nothing in this file can be drawn${text ? ` (${text})` : ''}.`
      : '';
    nothing.hidden = !none;
  }
  window.addEventListener('strata:loaded', update);
  return { update };
}
