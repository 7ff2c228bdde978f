
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
const SIZE = {pte: 1n << 12n, pmd: 1n << 21n, pud: 1n << 30n};
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in (attrs || {})) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function row(tbody, cells, attrs) {
  const tr = el('tr', attrs || {});
  for (const c of cells) tr.appendChild(el('td', {}, String(c)));
  tbody.appendChild(tr);
  return tr;
}
// checks: failures first, then skips and known deviations (TODO), then passes
(function () {
  const tb = document.querySelector('#checks tbody');
  const rank = t => (t.todo ? 1 : !t.ok ? 0 : t.skip ? 1 : 2);
  const tests = D.tests.slice().sort((a, b) => rank(a) - rank(b) || a.n - b.n);
  for (const t of tests)
    row(tb, [t.n, t.todo ? 'todo' : !t.ok ? 'not ok' : t.skip ? 'skip' : 'ok', t.name, t.reason],
        {class: t.todo ? 'skip' : !t.ok ? 'fail' : t.skip ? 'skip' : 'pass'});
})();
// facts
(function () {
  const tb = document.querySelector('#facts tbody');
  for (const f of D.facts) row(tb, [f[0], f[1]]);
})();
// per listing: counts from the runs, the PML4 grid, every run
for (const name of Object.keys(D.dumps)) {
  const d = D.dumps[name];
  const sec = document.getElementById('dump-' + name);
  const counts = {pte: 0n, pmd: 0n, pud: 0n};
  let bytes = 0n;
  for (const r of d.runs) {
    const size = BigInt(r.end) - BigInt(r.start);
    bytes += size;
    if (r.level in SIZE) counts[r.level] += size / SIZE[r.level];
  }
  for (const l of d.leaves) {
    const s = BigInt(l.size);
    for (const k in SIZE) if (SIZE[k] === s) counts[k] += 1n;
  }
  const ct = sec.querySelector('table.counts tbody');
  const tr = el('tr', {});
  for (const [k, v] of [['4k', counts.pte], ['2m', counts.pmd], ['1g', counts.pud]])
    tr.appendChild(el('td', {class: 'count', 'data-tables': name, 'data-size': k}, v.toString()));
  tr.appendChild(el('td', {class: 'bytes'}, bytes.toString()));
  tr.appendChild(el('td', {class: 'nruns'}, String(d.runs.length)));
  ct.appendChild(tr);
  const grid = sec.querySelector('.grid');
  for (let s = 0; s < 512; s++) {
    const info = d.slots[s];
    const c = el('div', {class: 'cell' + (info ? ' ' + info.main : ''), 'data-slot': String(s)});
    if (info) {
      c.title = 'slot ' + s + ': ' + info.total + ' mapped in ' + info.runs + ' run(s); ' +
        Object.entries(info.bytes).map(e => e[0] + ' ' + e[1]).join(', ') + '; leaves ' +
        Object.entries(info.levels).map(e => e[0] + ' ' + e[1]).join(', ') +
        (info.regions.length ? '; ' + info.regions.join(', ') : '');
      c.textContent = String(s);
    } else {
      c.title = 'slot ' + s + ': nothing mapped';
    }
    grid.appendChild(c);
  }
  const rb = sec.querySelector('table.runs tbody');
  for (const r of d.runs) {
    const tr = row(rb, [r.region || '', r.start, r.end, r.size_h, r.flags.join(' '), r.level, r.perm],
                   {class: 'run perm-' + r.perm, 'data-start': r.start, 'data-end': r.end});
    tr.addEventListener('click', () => {
      for (const rect of document.querySelectorAll('#map rect.run'))
        rect.style.opacity = rect.getAttribute('data-start') === r.start ? '1' : '0.25';
    });
  }
  const lb = sec.querySelector('table.leaflist tbody');
  if (lb) for (const l of d.leaves) row(lb, [l.region || '', l.va, l.pa, l.size, l.flags, l.cache]);
}
// findings
(function () {
  const tb = document.querySelector('#findings tbody');
  D.findings.forEach((f, i) =>
    row(tb, [i + 1, f.tables, f.kind, f.start, f.end, f.text], {class: 'finding'}));
})();
document.body.setAttribute('data-rendered', 'yes');
