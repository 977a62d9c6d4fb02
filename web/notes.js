// notes.js: notes on the timeline (core/app/app.h "notes": the list lives in
// the app, which draws them on the timeline and the axis of every pane).
// This file is the page's part: the key `n` and then a click (a time) or a
// drag (a range) on the timeline, the text typed in a small input, and the
// Notes panel that lists them (time, duration of a range, text) where a
// click on a note goes to it, and its text can be edited or the note
// deleted. Note texts are the user's (or a link's, a saved file's): they
// only ever reach the DOM as textContent and input values, never as HTML.
//
// Times are microseconds in the view's timebase (window.strata.view(), the
// link's t=); the link keeps the notes (embed.js: notes=).

const DRAG_PX = 3; // a press that moves less than this is a click: a time

export function createNotes({ M, str, withCString, fmtDur }) {
  const $ = (id) => document.getElementById(id);
  const canvas = $('canvas');
  const stage = $('stage');
  const button = $('notes-button');
  const panel = $('notes');
  const list = $('notes-list');
  const close = $('notes-close');
  const hint = $('notes-hint');

  let armed = false; // `n` pressed: the next press on the timeline places a note
  let press = null; // {x, y, t0} while the button is down
  let input = null; // the text input of the note being placed

  const notes = () => JSON.parse(str(M._st_wasm_notes_json()));
  const el = (tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  };
  const timeAt = (x) => {
    const t = M._st_wasm_time_at(x);
    return Number.isFinite(t) ? t : null;
  };
  // The view's start as "time 0" of the list: the trace's first timestamp
  // is not known here, so a note shows its time as the link does (us).
  const fmtTime = (us) => `${String(+us.toFixed(3))} us`;

  function add({ t0, t1, text } = {}) {
    const a = Number(t0);
    const b = t1 === undefined || t1 === null ? NaN : Number(t1);
    const id = withCString(String(text ?? ''), (p) => M._st_wasm_note_add(a, b, p));
    if (!id) throw new Error('strata.addNote: needs a finite t0 (us) and fewer than 64 notes');
    changed();
    return notes().find((n) => n.id === id);
  }

  function remove(id) {
    const ok = !!M._st_wasm_note_remove(Number(id));
    if (ok) changed();
    return ok;
  }

  function setText(id, text) {
    const ok = !!withCString(String(text ?? ''), (p) => M._st_wasm_note_set_text(Number(id), p));
    if (ok) changed();
    return ok;
  }

  function go(id) {
    if (!M._st_wasm_note_go(Number(id))) throw new Error('strata.goToNote: no such note');
    return JSON.parse(str(M._st_wasm_view_json()));
  }

  // Replaces every note (the link's notes=, applied by embed.js).
  function replaceAll(items) {
    M._st_wasm_notes_clear();
    for (const n of items) withCString(n.text, (p) => M._st_wasm_note_add(n.t0, n.t1 ?? NaN, p));
    changed();
  }

  function changed() {
    if (!panel.hidden) render();
    const n = notes().length;
    button.textContent = n ? `Notes (${n})` : 'Notes';
    window.dispatchEvent(new CustomEvent('strata:notes'));
  }

  function render() {
    const all = notes();
    list.replaceChildren();
    hint.hidden = all.length > 0;
    for (const n of all) {
      const li = el('li', undefined, 'note');
      li.dataset.id = String(n.id);
      const when = el('button', fmtTime(n.t0_us), 'note-time');
      when.type = 'button';
      when.title = 'Go to this note';
      when.addEventListener('click', () => go(n.id));
      const dur = el('span', n.t1_us > n.t0_us ? fmtDur((n.t1_us - n.t0_us) * 1000) : '', 'note-dur');
      const text = el('input', undefined, 'note-text');
      text.type = 'text';
      text.value = n.text;
      text.maxLength = 200;
      text.setAttribute('aria-label', 'Note text');
      text.addEventListener('change', () => setText(n.id, text.value));
      text.addEventListener('keydown', (e) => e.stopPropagation()); // typing is not navigation
      const del = el('button', '×', 'note-delete');
      del.type = 'button';
      del.title = 'Delete this note';
      del.setAttribute('aria-label', 'Delete note');
      del.addEventListener('click', () => remove(n.id));
      li.append(when, dur, text, del);
      list.append(li);
    }
  }

  function toggle(show = panel.hidden) {
    panel.hidden = !show;
    button.setAttribute('aria-pressed', show ? 'true' : 'false');
    if (show) render();
  }

  // ---- placing a note: n, then a click or a drag, then its text ----------------

  function arm(on) {
    armed = on;
    canvas.classList.toggle('placing-note', on);
  }

  function askText(t0, t1, x, y) {
    input = el('input', undefined);
    input.id = 'note-input';
    input.type = 'text';
    input.maxLength = 200;
    input.placeholder = 'Note text, Enter';
    input.setAttribute('aria-label', 'Note text');
    const r = canvas.getBoundingClientRect(), s = stage.getBoundingClientRect();
    input.style.left = `${Math.round(Math.min(x, r.width - 220) + r.left - s.left)}px`;
    input.style.top = `${Math.round(y + r.top - s.top + 8)}px`;
    let done = false;
    const finish = (keep) => {
      if (done) return;
      done = true;
      const text = input.value;
      input.remove();
      input = null;
      if (keep) add({ t0, t1, text });
      canvas.focus();
    };
    input.addEventListener('keydown', (e) => {
      e.stopPropagation(); // typing is not navigation
      if (e.key === 'Enter') finish(true);
      else if (e.key === 'Escape') finish(false);
    });
    input.addEventListener('blur', () => finish(true));
    stage.append(input);
    input.focus();
  }

  // Capture phase on window: runs before the canvas's own handlers (the
  // core's select / drag), which never see a press that places a note.
  window.addEventListener('mousedown', (e) => {
    if (!armed || e.target !== canvas || e.button !== 0) return;
    const t0 = timeAt(e.offsetX);
    e.preventDefault();
    e.stopPropagation();
    if (t0 === null) return; // the gutter or the axis: still waiting for a time
    press = { x: e.offsetX, y: e.offsetY, t0 };
  }, true);
  window.addEventListener('mouseup', (e) => {
    if (!press) return;
    e.preventDefault();
    e.stopPropagation();
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left;
    const p = press;
    press = null;
    arm(false);
    const t1 = Math.abs(x - p.x) >= DRAG_PX ? timeAt(Math.max(0, Math.min(r.width - 1, x))) : null;
    askText(p.t0, t1 === null ? p.t0 : t1, Math.min(p.x, x), p.y);
  }, true);
  window.addEventListener('mousemove', (e) => { if (press) e.stopPropagation(); }, true);

  window.addEventListener('keydown', (e) => { // n: place a note; Esc: not now
    const t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    if (e.key === 'Escape' && armed) { arm(false); return; }
    if (e.key !== 'n' || e.ctrlKey || e.metaKey || e.altKey) return;
    if (!window.strata || !window.strata.traces().length) return;
    arm(!armed);
  });

  button.addEventListener('click', () => toggle());
  close.addEventListener('click', () => toggle(false));
  window.addEventListener('strata:loaded', () => changed()); // a new view drops the notes

  return { add, remove, setText, go, notes, replaceAll, toggle, armed: () => armed, shown: () => !panel.hidden };
}
