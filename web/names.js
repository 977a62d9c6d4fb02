// names.js: long names cut in the middle so that a table's names stay told
// apart (issue 29; the CLI's cli_short, tools/cli/cli.h, the same rule in
// README "Names you can tell apart"): a name longer than `width` characters
// keeps its first third, '…', and its end; when it differs from the table's
// other names inside the part cut (differsAt), the part from just before
// that point instead of the end, and '…' after it. The full name goes in
// the cell's title (hover). Names are untrusted: callers set textContent.

// Where names[i] first differs from the others: 1 + its longest common
// prefix with any other.
export function differsAt(names, i) {
  let best = 0;
  const a = names[i];
  for (let j = 0; j < names.length; j++) {
    if (j === i) continue;
    const b = names[j];
    const m = Math.min(a.length, b.length);
    let k = 0;
    while (k < m && a.charCodeAt(k) === b.charCodeAt(k)) k++;
    if (k > best) best = k;
  }
  return best + 1;
}

// name cut in the middle to at most `width` characters (d: differsAt).
export function shortName(name, width, d = 0) {
  const s = String(name);
  if (!width || s.length <= width || width < 12) return s;
  const head = Math.floor(width / 3);
  let room = width - head - 1; // after the first '…'
  let from = s.length - room;
  let to = s.length;
  if (d > head && d < from) { // the difference falls in the cut part
    room -= 1; // a second '…' at the end
    from = Math.max(head, d > 8 ? d - 8 : d);
    to = Math.min(s.length, from + room);
  }
  return `${s.slice(0, head)}…${s.slice(from, to)}${to < s.length ? '…' : ''}`;
}

// Every name of a table shortened, each keeping what tells it apart.
export function shortNames(names, width) {
  return names.map((n, i) => shortName(n, width, differsAt(names, i)));
}
