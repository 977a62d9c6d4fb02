// memory.js: the Overview's memory (issue 34): per device of the files
// shown, from `strata analyze --json`'s "memory" (core/analysis/memory.h): the
// peak of the allocated bytes and its time (a click shows the device's
// section around the peak), the allocations live at the peak by the op
// that made them (largest first), the bytes never freed, and the top
// allocating ops; then the peaks of the files' own memory counters
// ("memory_counters"). Names are untrusted: textContent only.

export function fmtBytes(b) {
  if (b === null || b === undefined) return '–';
  const a = Math.abs(b);
  if (a >= 2 ** 30) return `${(b / 2 ** 30).toFixed(2)} GiB`;
  if (a >= 2 ** 20) return `${(b / 2 ** 20).toFixed(1)} MiB`;
  if (a >= 2 ** 10) return `${(b / 2 ** 10).toFixed(1)} KiB`;
  return `${b} B`;
}

const opName = (op) => (op === '' ? '(no op)' : op);

/**
 * deps: {M, el, go, fmtUs, fmtCount, tableOf, wrapped}; d: the analysis.
 * Returns the section element.
 */
export function memorySection(d, { M, el, go, fmtUs, fmtCount, tableOf, wrapped }) {
  const sec = el('section', 'overview-memory');
  sec.append(el('h3', null, 'Memory'));
  const mem = d.memory || [];
  if (!mem.length) sec.append(el('p', 'note', 'No memory events (a PyTorch profile recorded with profile_memory=True has them).'));
  else {
    const [table, tb] = tableOf('overview-memory-devices', ['file', 'device', 'peak', 'at', 'live at peak (by op)', 'never freed', 'top allocating ops']);
    mem.forEach((m, i) => {
      const t = d.traces[m.trace] || {};
      const tr = el('tr');
      tr.dataset.mem = String(i);
      tr.append(el('td', 'name', t.group || t.file || ''), el('td', 'name', m.device));
      const peak = el('td', 'num', fmtBytes(m.peak_bytes));
      peak.dataset.fig = 'peak_bytes';
      peak.title = `${fmtCount(m.peak_bytes)} bytes (${m.from === 'bytes_sum' ? 'running sum of Bytes' : 'Total Allocated'}); reserved peak ${m.reserved_peak_bytes === null ? '–' : fmtBytes(m.reserved_peak_bytes)}`;
      const at = el('td');
      at.append(go(fmtUs(m.peak_us), 'peak', () => {
        const pad = Math.max(1, 0.01 * Math.abs(m.peak_us));
        M._st_wasm_memory_show(i, m.peak_us - pad, m.peak_us + pad);
      }, 'Show the device around its peak'));
      const live = el('td', 'name');
      live.dataset.fig = 'live_at_peak';
      for (const g of m.live_at_peak.slice(0, 5)) {
        const row = el('div');
        row.append(el('span', 'name', opName(g.op)), el('span', 'num', ` ${fmtBytes(g.bytes)} (${fmtCount(g.count)})`));
        live.append(row);
      }
      if (m.live_at_peak.length > 5) live.append(el('div', 'note', `+ ${m.live_at_peak.length - 5} more ops`));
      const unfreed = el('td', 'num', fmtBytes(m.unfreed_bytes));
      unfreed.dataset.fig = 'unfreed_bytes';
      unfreed.title = `${fmtCount(m.unfreed_count)} allocations still live at the end: ${m.still_live_at_end.slice(0, 5).map((g) => `${opName(g.op)} ${fmtBytes(g.bytes)}`).join(', ')}`;
      const top = el('td', 'name');
      top.dataset.fig = 'top_alloc_ops';
      for (const g of m.top_alloc_ops.slice(0, 3)) {
        const row = el('div');
        row.append(el('span', 'name', opName(g.op)), el('span', 'num', ` ${fmtBytes(g.bytes)}`));
        top.append(row);
      }
      tr.append(peak, at, live, unfreed, top);
      tb.append(tr);
    });
    sec.append(wrapped(table));
  }
  const counters = d.memory_counters || [];
  if (counters.length) {
    sec.append(el('h4', null, 'Memory counters (peaks)'));
    const ul = el('ul');
    ul.id = 'overview-memory';
    for (const m of counters) {
      const t = d.traces[m.trace] || {};
      const li = el('li');
      li.append(el('span', 'name', `${d.traces.length > 1 ? `${t.group} · ` : ''}${m.process ? `${m.process} · ` : ''}${m.name}`), el('span', 'num', ` ${fmtCount(m.peak)}`));
      ul.append(li);
    }
    sec.append(ul);
  }
  return sec;
}
