// details.js: the details pane of the one selected event (#details): its
// name, category, times, process and thread, a CPU sample's stack, a memory
// block's size, a kernel's achieved TFLOP/s, its flows' other ends (a click
// selects and centres one), "Use as step", and its args, re-read from the
// file (file_args.js) and drawn by panels.js. Built from the core's JSON
// (st_wasm_selected_event_json). Event names and args are untrusted: they
// reach the DOM through textContent only.

import { fmtBytes } from './memory.js';

// el: the pane; traces(): the traces shown; argsFor(src, handle) and
// handleOf(ev): file_args.js; renderArgs(el, res): panels.js; figuresOf(name):
// roofline.js's figures of a kernel (or undefined); overview(): the overview
// panel (or null before it exists).
export function createDetails({ M, el, traces, argsFor, handleOf, renderArgs, figuresOf, overview }) {
  // The selected event's flows: one link per other end; a click selects it and
  // centres it (st_wasm_reveal). textContent only.
  function flowLinks(ev, dir) {
    const list = ev[`flows_${dir}`] || [];
    const total = ev[`flows_${dir}_count`] || 0;
    const box = document.createElement('div');
    box.className = `flows flows-${dir}`;
    if (!total) return box;
    const title = document.createElement('h3');
    title.textContent = `flows ${dir === 'out' ? 'out' : 'in'} (${total})`;
    box.append(title);
    for (const o of list) {
      const a = document.createElement('a');
      a.href = '#';
      a.className = 'flow-link';
      a.dataset.row = String(o.row);
      a.dataset.index = String(o.index);
      const where = [o.process, o.thread].filter(Boolean).join(' / ');
      // at its start from the trace's start, as the event's own "start" (the file's time on hover)
      a.textContent = `${dir === 'out' ? '→' : '←'} ${o.name || '(unnamed)'}${where ? `  (${where})` : ''}  @ ${o.start_text ?? `${o.ts_us} us`}`;
      a.title = `${o.ts_us} us in the file`;
      a.addEventListener('click', (e) => {
        e.preventDefault();
        M._st_wasm_reveal(o.row, o.index);
      });
      box.append(a);
    }
    if (total > list.length) {
      const more = document.createElement('div');
      more.textContent = `… and ${total - list.length} more`;
      box.append(more);
    }
    return box;
  }

  function fillDetails(ev, count) {
    el.replaceChildren();
    if (!ev) {
      el.hidden = true; // several events: the summary table (panels.js) shows them
      return;
    }
    const h = document.createElement('h2');
    h.textContent = ev.name || '(unnamed)';
    const table = document.createElement('table');
    const rows = [
      // streaming mode's summary: a stretch of events, named after its longest
      ['summary', ev.summary ? 'a stretch of this track\'s events (zoom in to read them); named after the longest, whose args are below' : undefined],
      ['file', ev.part !== undefined ? (traces()[ev.part] || {}).name : undefined],
      ['category', ev.cat],
      [ev.summary ? 'stretch starts' : 'start', ev.start_text],
      [ev.summary ? 'stretch spans' : 'duration', ev.dur_text],
      ['self time', ev.self_text],
      ['process', `${ev.process || ''} (pid ${ev.pid})`],
      ['thread', `${ev.thread || ''} (tid ${ev.tid})`],
      ['ts (file)', ev.ts_us != null ? `${ev.ts_us} us` : ''],
      // a memory snapshot's block (issue 34): its bytes and address (its stack: the category)
      ['block size', ev.block ? `${fmtBytes(ev.block.size)} (${ev.block.size} B)` : undefined],
      ['address', ev.block?.addr],
      // issue 33: a kernel's achieved figures, once the overview measured them
      ['TFLOP/s', figuresOf(ev.name)?.tflops],
      ['% of peak', figuresOf(ev.name)?.pct],
    ];
    for (const [k, v] of rows) {
      if (v === undefined || v === null || v === '') continue;
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      const td = document.createElement('td');
      th.textContent = k;
      td.textContent = String(v);
      tr.append(th, td);
      table.append(tr);
    }
    if (ev.stack) { // a CPU sample: its call stack, leaf first
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      const td = document.createElement('td');
      th.textContent = 'stack';
      td.className = 'stack';
      for (const f of ev.stack) td.append(Object.assign(document.createElement('div'), { textContent: f || '(unnamed)' }));
      if (ev.stack_depth > ev.stack.length) td.append(Object.assign(document.createElement('div'), { textContent: `… ${ev.stack_depth - ev.stack.length} more` }));
      tr.append(th, td);
      table.append(tr);
    }
    const args = document.createElement('div');
    args.className = 'args';
    args.textContent = 'args: reading…';
    el.append(h, table, flowLinks(ev, 'out'), flowLinks(ev, 'in'), args);
    const ov = overview();
    if (ev.name && ov) { // every event of this name becomes a step (the overview's analysis)
      const b = Object.assign(document.createElement('button'), { type: 'button', className: 'use-as-step', textContent: 'Use as step' });
      b.title = 'Make every event of this name a step: the overview analyses step by step with them';
      b.addEventListener('click', () => ov.useAsStep(ev.name));
      el.append(b);
    }
    el.hidden = false;
    const src = ev.src;
    argsFor(src, handleOf(ev)).then((res) => {
      if (!args.isConnected) return; // another selection replaced the panel
      renderArgs(args, res);
    });
  }

  return { fill: fillDetails };
}
