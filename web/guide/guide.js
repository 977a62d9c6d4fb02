// web/guide/guide.js: the user guide's viewer (guide/index.html). It reads one
// Markdown page of this folder (?p=NAME.md, default README.md) and draws it
// with DOM calls only: every piece of text goes in by createTextNode /
// textContent, never as HTML, so nothing in a page can become markup or
// script. The pages are the same files GitHub shows; links between them
// (`timeline.md#flow-arrows`) become `?p=timeline.md#flow-arrows` here, and
// headings get GitHub's ids, so an anchor works in both places.
//
// The Markdown understood is what the guide uses: ATX headings, paragraphs,
// bullet and ordered lists (nested by indentation, with paragraphs, tables
// and code inside items), fenced code, tables (GFM: `\|` for a pipe in a
// cell), block quotes, rules; inline: code spans, links, images, **strong**,
// *emphasis*, backslash escapes. Raw HTML is text.
//
// Links: to a page of this folder -> ?p=; to a picture of this folder ->
// as written; http(s) and mailto -> as written; anything else (a file of
// the repository, `../../tools/...`, which the site does not hold) is shown
// as its text, not as a link, with the path in its title.
//
// parse(), inline() and slug() touch no DOM: the tests run them in node.

export const PAGE_RE = /^[A-Za-z0-9_-]+\.md$/;

// ---- GitHub's heading ids ---------------------------------------------------------
// github-slugger: lower case, every character that is not a letter, a digit,
// a mark, a connector (`_`), a space or `-` dropped, each space a `-`; a
// repeated id gets -1, -2, ...
export function slug(text) {
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

export function slugger() {
  const seen = new Set();
  return (text) => {
    const base = slug(text);
    let id = base;
    for (let n = 1; seen.has(id); n++) id = `${base}-${n}`;
    seen.add(id);
    return id;
  };
}

// ---- blocks -------------------------------------------------------------------------

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const BULLET = /^( *)([-*+])( +)(?=\S)/;
const ORDERED = /^( *)(\d{1,9})([.)])( +)(?=\S)/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;
const QUOTE = /^ {0,3}> ?/;

const indentOf = (s) => s.length - s.trimStart().length;
const blank = (s) => s.trim() === '';

function listMarker(line) {
  let m = BULLET.exec(line);
  if (m) return { ordered: false, indent: m[1].length, width: m[0].length, bullet: m[2] };
  m = ORDERED.exec(line);
  if (m) return { ordered: true, indent: m[1].length, width: m[0].length, start: Number(m[2]), bullet: m[3] };
  return null;
}

/** Cells of a table row: split on pipes that are not escaped (`\|`). */
export function tableCells(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === '|') { cur += '|'; i++; continue; }
    if (s[i] === '|') { cells.push(cur.trim()); cur = ''; continue; }
    cur += s[i];
  }
  cells.push(cur.trim());
  return cells;
}

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || QUOTE.test(line) || RULE.test(line) ||
    (BULLET.test(line) && indentOf(line) < 4) || (ORDERED.exec(line)?.[2] === '1' && indentOf(line) < 4);
}

/** Markdown text -> blocks: {t: 'h', level, text} | {t: 'p', text} |
 *  {t: 'code', lang, text} | {t: 'list', ordered, start, items: [blocks]} |
 *  {t: 'table', head: [text], align: [..], rows: [[text]]} | {t: 'quote', blocks} | {t: 'hr'} */
export function parse(md) {
  return blocks(md.replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n'));
}

function blocks(lines) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (blank(line)) { i++; continue; }
    let m;
    if ((m = FENCE.exec(line))) {
      const fence = m[2], ind = m[1].length, body = [];
      i++;
      while (i < lines.length && !(lines[i].trim().startsWith(fence[0].repeat(fence.length)) &&
                                   lines[i].trim().replace(new RegExp(`^\\${fence[0]}+`), '').trim() === '')) {
        body.push(lines[i].slice(Math.min(ind, indentOf(lines[i]))));
        i++;
      }
      i++; // the closing fence (or the end)
      out.push({ t: 'code', lang: m[3] || '', text: body.join('\n') });
      continue;
    }
    if ((m = HEADING.exec(line))) { out.push({ t: 'h', level: m[1].length, text: m[2] }); i++; continue; }
    if (RULE.test(line)) { out.push({ t: 'hr' }); i++; continue; }
    if (QUOTE.test(line)) {
      const body = [];
      while (i < lines.length && !blank(lines[i])) body.push(lines[i++].replace(QUOTE, ''));
      out.push({ t: 'quote', blocks: blocks(body) });
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1])) {
      const head = tableCells(line);
      const align = tableCells(lines[i + 1]).map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : c.startsWith(':') ? 'left' : ''));
      i += 2;
      const rows = [];
      while (i < lines.length && !blank(lines[i]) && lines[i].includes('|')) rows.push(tableCells(lines[i++]));
      out.push({ t: 'table', head, align, rows });
      continue;
    }
    const mk = listMarker(line);
    if (mk && mk.indent < 4) {
      const list = { t: 'list', ordered: mk.ordered, start: mk.start || 1, items: [] };
      while (i < lines.length) {
        const cur = listMarker(lines[i]);
        if (!cur || cur.ordered !== mk.ordered || cur.indent !== mk.indent) break;
        const body = [lines[i].slice(cur.width)];
        const content = cur.width;
        i++;
        let lastBlank = false;
        while (i < lines.length) {
          const l = lines[i];
          if (blank(l)) {
            let k = i + 1;
            while (k < lines.length && blank(lines[k])) k++;
            if (k < lines.length && indentOf(lines[k]) >= content) { body.push(''); i++; lastBlank = true; continue; }
            break;
          }
          if (indentOf(l) >= content) { body.push(l.slice(content)); i++; lastBlank = false; continue; }
          // a lazy continuation line of the item's paragraph
          if (!lastBlank && !listMarker(l) && !startsBlock(l)) { body.push(l.trim()); i++; continue; }
          break;
        }
        list.items.push(blocks(body));
        while (i < lines.length && blank(lines[i])) {
          const n = lines.slice(i).find((x) => !blank(x));
          const nm = n && listMarker(n);
          if (nm && nm.ordered === mk.ordered && nm.indent === mk.indent) i++;
          else break;
        }
      }
      out.push(list);
      continue;
    }
    const para = [line.trim()];
    i++;
    while (i < lines.length && !blank(lines[i]) && !startsBlock(lines[i]) &&
           !(lines[i].includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]))) {
      para.push(lines[i++].trim());
    }
    out.push({ t: 'p', text: para.join('\n') });
  }
  return out;
}

// ---- inline -------------------------------------------------------------------------

const PUNCT = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/;

/** The closing bracket of a `[` at i (nesting counted, escapes and code skipped), or -1. */
function closeBracket(s, i) {
  let depth = 0;
  for (let k = i; k < s.length; k++) {
    const c = s[k];
    if (c === '\\') { k++; continue; }
    if (c === '`') { const run = /^`+/.exec(s.slice(k))[0]; const end = s.indexOf(run, k + run.length); if (end > 0) k = end + run.length - 1; continue; }
    if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return k;
  }
  return -1;
}

/** The closing parenthesis of a `(` at i (nesting counted), or -1. */
function closeParen(s, i) {
  let depth = 0;
  for (let k = i; k < s.length; k++) {
    if (s[k] === '\\') { k++; continue; }
    if (s[k] === '(') depth++;
    else if (s[k] === ')' && --depth === 0) return k;
  }
  return -1;
}

/** Inline Markdown -> nodes: {t: 'text', v} | {t: 'code', v} | {t: 'strong' | 'em', c: [nodes]} |
 *  {t: 'link', href, c: [nodes]} | {t: 'img', src, alt} | {t: 'br'}. */
export function inline(s) {
  const out = [];
  let text = '';
  const flush = () => { if (text) out.push({ t: 'text', v: text }), (text = ''); };
  for (let i = 0; i < s.length;) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length && PUNCT.test(s[i + 1])) { text += s[i + 1]; i += 2; continue; }
    if (c === '`') {
      const run = /^`+/.exec(s.slice(i))[0];
      const end = s.indexOf(run, i + run.length);
      if (end > 0 && s[end + run.length] !== '`') {
        let v = s.slice(i + run.length, end).replace(/\n/g, ' ');
        if (v.length > 2 && v.startsWith(' ') && v.endsWith(' ') && v.trim()) v = v.slice(1, -1);
        flush(); out.push({ t: 'code', v }); i = end + run.length; continue;
      }
      text += run; i += run.length; continue;
    }
    const img = c === '!' && s[i + 1] === '[';
    if (c === '[' || img) {
      const open = img ? i + 1 : i;
      const close = closeBracket(s, open);
      if (close > 0 && s[close + 1] === '(') {
        const end = closeParen(s, close + 1);
        if (end > 0) {
          const label = s.slice(open + 1, close);
          const href = s.slice(close + 2, end).trim().replace(/\s+"[^"]*"$/, '');
          flush();
          out.push(img ? { t: 'img', src: href, alt: label } : { t: 'link', href, c: inline(label) });
          i = end + 1;
          continue;
        }
      }
    }
    if (c === '*' && s[i + 1] === '*') {
      const end = s.indexOf('**', i + 2);
      if (end > i + 2 && !/\s/.test(s[i + 2]) && !/\s/.test(s[end - 1])) {
        flush(); out.push({ t: 'strong', c: inline(s.slice(i + 2, end)) }); i = end + 2; continue;
      }
    }
    if (c === '*' && s[i + 1] && !/[\s*]/.test(s[i + 1])) {
      let end = i + 1;
      while ((end = s.indexOf('*', end)) > 0 && (s[end + 1] === '*' || /\s/.test(s[end - 1]))) end += s[end + 1] === '*' ? 2 : 1;
      if (end > i + 1) { flush(); out.push({ t: 'em', c: inline(s.slice(i + 1, end)) }); i = end + 1; continue; }
    }
    if (c === '\n') { text += ' '; i++; continue; }
    text += c;
    i++;
  }
  flush();
  return out;
}

/** A heading's text as GitHub slugs it: the inline text without its markup. */
export function plain(nodes) {
  return nodes.map((n) => (n.t === 'text' || n.t === 'code' ? n.v : n.t === 'img' ? n.alt : n.c ? plain(n.c) : '')).join('');
}

/** Where a link of the guide goes on the site: {href} or {text: path} (no link). */
export function target(href) {
  if (/^(https?:|mailto:)/i.test(href)) return { href, external: true };
  if (href.startsWith('#')) return { href };
  const m = /^([^#?/]+\.md)(#.*)?$/.exec(href);
  if (m && PAGE_RE.test(m[1])) return { href: `?p=${m[1]}${m[2] || ''}` };
  if (/^[A-Za-z0-9_][A-Za-z0-9_./-]*$/.test(href) && !href.split('/').includes('..')) return { href };
  return { text: href };
}

// ---- DOM ----------------------------------------------------------------------------

function el(doc, tag, cls) {
  const e = doc.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

function drawInline(doc, parent, nodes) {
  for (const n of nodes) {
    if (n.t === 'text') parent.appendChild(doc.createTextNode(n.v));
    else if (n.t === 'code') { const e = el(doc, 'code'); e.textContent = n.v; parent.appendChild(e); }
    else if (n.t === 'strong' || n.t === 'em') { const e = el(doc, n.t); drawInline(doc, e, n.c); parent.appendChild(e); }
    else if (n.t === 'img') {
      const to = target(n.src);
      if (to.href && !to.external && !to.href.startsWith('?') && !to.href.startsWith('#')) {
        const e = el(doc, 'img');
        e.alt = n.alt;
        e.src = to.href;
        parent.appendChild(e);
      } else {
        parent.appendChild(doc.createTextNode(n.alt));
      }
    } else if (n.t === 'link') {
      const to = target(n.href);
      if (to.href) {
        const e = el(doc, 'a');
        e.href = to.href;
        if (to.external) e.rel = 'noopener noreferrer';
        drawInline(doc, e, n.c);
        parent.appendChild(e);
      } else {
        const e = el(doc, 'span', 'repo-path');
        if (!/^[a-z][a-z0-9+.-]*:/i.test(to.text)) e.title = `in strata's source repository: ${to.text.replace(/^(\.\.\/)+/, '')}`;
        drawInline(doc, e, n.c);
        parent.appendChild(e);
      }
    }
  }
}

function drawBlocks(doc, parent, list, ids) {
  for (const b of list) {
    if (b.t === 'h') {
      const e = el(doc, `h${b.level}`);
      const nodes = inline(b.text);
      e.id = ids(plain(nodes));
      drawInline(doc, e, nodes);
      parent.appendChild(e);
    } else if (b.t === 'p') {
      const e = el(doc, 'p');
      drawInline(doc, e, inline(b.text));
      parent.appendChild(e);
    } else if (b.t === 'code') {
      const pre = el(doc, 'pre');
      const code = el(doc, 'code');
      code.textContent = b.text;
      pre.appendChild(code);
      parent.appendChild(pre);
    } else if (b.t === 'list') {
      const e = el(doc, b.ordered ? 'ol' : 'ul');
      if (b.ordered && b.start !== 1) e.start = b.start;
      for (const item of b.items) {
        const li = el(doc, 'li');
        drawBlocks(doc, li, item, ids);
        e.appendChild(li);
      }
      parent.appendChild(e);
    } else if (b.t === 'table') {
      const wrap = el(doc, 'div', 'table-wrap');
      const table = el(doc, 'table');
      const thead = el(doc, 'thead');
      const tr = el(doc, 'tr');
      b.head.forEach((cell, k) => {
        const th = el(doc, 'th');
        if (b.align[k]) th.style.textAlign = b.align[k];
        drawInline(doc, th, inline(cell));
        tr.appendChild(th);
      });
      thead.appendChild(tr);
      table.appendChild(thead);
      const tbody = el(doc, 'tbody');
      for (const row of b.rows) {
        const r = el(doc, 'tr');
        b.head.forEach((_, k) => {
          const td = el(doc, 'td');
          if (b.align[k]) td.style.textAlign = b.align[k];
          drawInline(doc, td, inline(row[k] ?? ''));
          r.appendChild(td);
        });
        tbody.appendChild(r);
      }
      table.appendChild(tbody);
      wrap.appendChild(table);
      parent.appendChild(wrap);
    } else if (b.t === 'quote') {
      const e = el(doc, 'blockquote');
      drawBlocks(doc, e, b.blocks, ids);
      parent.appendChild(e);
    } else if (b.t === 'hr') {
      parent.appendChild(el(doc, 'hr'));
    }
  }
}

/** Draws Markdown text into `parent` (emptied first); returns the page's first heading's text. */
export function render(md, parent) {
  const doc = parent.ownerDocument;
  parent.replaceChildren();
  const list = parse(md);
  drawBlocks(doc, parent, list, slugger());
  const h = list.find((b) => b.t === 'h');
  return h ? plain(inline(h.text)) : '';
}

// ---- the page -----------------------------------------------------------------------

async function show() {
  const main = document.getElementById('guide');
  const name = new URLSearchParams(location.search).get('p') || 'README.md';
  document.documentElement.dataset.state = 'loading';
  try {
    if (!PAGE_RE.test(name)) throw new Error(`no page "${name}" in the guide`);
    const res = await fetch(name);
    if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
    const title = render(await res.text(), main);
    document.title = title ? `${title} – strata guide` : 'strata guide';
    document.documentElement.dataset.page = name;
    document.documentElement.dataset.state = 'ready';
    // to the anchor, again as each picture above it loads and moves it (unless
    // the reader has scrolled meanwhile)
    const id = decodeURIComponent(location.hash.slice(1));
    if (id && document.getElementById(id)) {
      let moved = false;
      for (const ev of ['wheel', 'keydown', 'touchstart', 'mousedown']) addEventListener(ev, () => (moved = true), { once: true, passive: true });
      const go = () => moved || document.getElementById(id).scrollIntoView();
      go();
      for (const img of main.querySelectorAll('img')) if (!img.complete) img.addEventListener('load', go, { once: true });
    }
  } catch (e) {
    main.replaceChildren();
    const p = el(document, 'p', 'error');
    p.textContent = `The guide's page could not be read (${e.message || e}). The pages are the Markdown files beside this one: `;
    const a = el(document, 'a');
    a.href = 'README.md';
    a.textContent = 'README.md';
    p.appendChild(a);
    p.appendChild(document.createTextNode(' lists them.'));
    main.appendChild(p);
    document.documentElement.dataset.state = 'error';
  }
}

if (typeof document !== 'undefined' && document.getElementById('guide')) show();
