"use strict";
// The clusters of a simidx dedup report: filters, pages and diffs, drawn
// from the JSON of the page. Every ID and text goes into the document as
// text (textContent, text nodes), never as markup.
(function () {
  const PAGE = 50;         // clusters a page
  const MAX_EDITS = 2000;  // edits a word diff looks for before it gives up on the span
  const data = JSON.parse(document.getElementById("simidx-data").textContent);
  const clusters = data.clusters;
  const $ = (id) => document.getElementById(id);
  const list = $("list"), count = $("count");
  const minSim = $("min-sim"), minSize = $("min-size"), search = $("search");
  let shown = clusters, page = 0;
  const texts = new Map(); // chunks of texts parsed, by number
  const joined = new Map(); // texts joined from segments, by index

  for (const c of clusters) {
    let least = null;
    for (let i = 1; i < c.m.length; i++) {
      const s = c.m[i].s;
      if (s !== undefined && (least === null || s < least)) least = s;
    }
    c.least = least;
  }

  // el returns a new element with a class and children (strings become
  // text nodes).
  function el(tag, cls, ...children) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    for (const ch of children) {
      if (ch === null || ch === undefined) continue;
      e.append(typeof ch === "string" ? document.createTextNode(ch) : ch);
    }
    return e;
  }
  // sim truncates a similarity to two decimals, as simidx does: 0.5952 is 0.59.
  const sim = (s) => (Math.floor(s * 100 + 1e-9) / 100).toFixed(2);
  const num = (n) => n.toLocaleString("en-US");

  function passes(c, least, size, q) {
    if (c.m.length < size) return false;
    if (least > 0 && (c.least === null || c.least < least - 1e-9)) return false;
    if (q) {
      if (c.ids === undefined) c.ids = c.m.map((m) => m.i.toLowerCase()).join("\n");
      if (!c.ids.includes(q)) return false;
    }
    return true;
  }

  function apply() {
    const least = parseFloat(minSim.value) || 0;
    const size = parseInt(minSize.value, 10) || 2;
    const q = search.value.trim().toLowerCase();
    shown = (least > 0 || size > 2 || q) ? clusters.filter((c) => passes(c, least, size, q)) : clusters;
    page = 0;
    render();
  }

  function pages() { return Math.max(1, Math.ceil(shown.length / PAGE)); }

  function pager(nav) {
    const last = pages() - 1;
    const go = (p) => () => { page = p; render(); nav.scrollIntoView({ block: "nearest" }); };
    const b = (label, title, p, off) => {
      const x = el("button", null, label);
      x.type = "button"; x.title = title; x.disabled = off;
      x.addEventListener("click", go(p));
      return x;
    };
    nav.replaceChildren(
      b("«", "first page", 0, page === 0),
      b("‹", "previous page", page - 1, page === 0),
      el("span", "where", "page " + num(page + 1) + " of " + num(last + 1)),
      b("›", "next page", page + 1, page >= last),
      b("»", "last page", last, page >= last));
  }

  function render() {
    const from = page * PAGE, to = Math.min(shown.length, from + PAGE);
    if (clusters.length === 0) {
      count.textContent = "No clusters: no two documents are near duplicates under these settings.";
    } else if (shown.length === 0) {
      count.textContent = "No cluster passes the filters (of " + num(clusters.length) + ").";
    } else {
      count.textContent = "Clusters " + num(from + 1) + " to " + num(to) + " of " + num(shown.length) +
        (shown.length < clusters.length ? " (filtered from " + num(clusters.length) + ")" : "") + ", largest first.";
    }
    const frag = document.createDocumentFragment();
    for (let i = from; i < to; i++) frag.append(card(shown[i]));
    list.replaceChildren(frag);
    pager($("pager-top"));
    pager($("pager-bottom"));
  }

  function card(c) {
    const art = el("article", "cluster");
    art.dataset.cluster = c.n;
    const meta = num(c.m.length) + " documents" + (c.least !== null ? ", least similarity to the kept one " + sim(c.least) : "");
    art.append(el("h3", null, "Cluster " + c.n, el("span", "meta", meta)));
    const cols = el("colgroup", null, el("col", "role"), el("col", "id"));
    const head = el("tr", null, el("th", null, ""), el("th", null, "ID"));
    if (data.sim) { head.append(el("th", "num", "similarity")); cols.append(el("col", "sim")); }
    head.append(el("th", "num", "distance"), el("th", null, "exact"), el("th", "num", "bytes"), el("th", null, ""));
    cols.append(el("col", "dist"), el("col", "exact"), el("col", "bytes"), el("col", "act"));
    const body = el("tbody");
    const diff = el("div", "diff");
    diff.hidden = true;
    diff.id = "diff-" + c.n;
    const kept = c.m[0];
    c.m.forEach((m, i) => body.append(row(c, m, i, kept, diff)));
    art.append(el("table", "members", cols, el("thead", null, head), body), diff);
    return art;
  }

  function row(c, m, i, kept, diff) {
    const tr = el("tr", i === 0 ? "kept" : "drop");
    tr.append(el("td", "role", i === 0 ? "keep" : "drop"), el("td", "id", m.i));
    if (data.sim) {
      if (i > 0 && m.s !== undefined) {
        const bar = el("span", "simbar", el("span"));
        bar.firstChild.style.width = Math.round(m.s * 100) + "%";
        const td = el("td", "num", sim(m.s), bar);
        td.title = "similarity " + m.s;
        tr.append(td);
      } else tr.append(el("td", "num", i > 0 ? "-" : ""));
    }
    tr.append(el("td", "num", i > 0 ? String(m.d) : ""));
    tr.append(i > 0 && m.x !== undefined ? (m.x ? el("td", "exact", "exact") : el("td", null, "no")) : el("td", null, i > 0 ? "-" : ""));
    tr.append(el("td", "num", m.b !== undefined ? num(m.b) + (m.c ? " (cut)" : "") : ""));
    const td = el("td");
    if (i > 0) {
      const btn = el("button", "diff-button", "diff");
      btn.type = "button";
      btn.setAttribute("aria-expanded", "false");
      btn.setAttribute("aria-controls", diff.id);
      const why = noText(kept, "the kept member's") || noText(m, "its");
      if (why) { btn.disabled = true; btn.title = why; }
      else {
        btn.title = "show the differences between " + m.i + " and the kept " + kept.i;
        btn.addEventListener("click", () => toggle(c, m, tr, btn, diff));
      }
      td.append(btn);
    }
    tr.append(td);
    return tr;
  }

  function noText(m, whose) {
    if (m.t !== undefined) return "";
    if (!data.texts) return "no diff: the texts were not read in this run (give the INPUT to dedup)";
    switch (m.w) {
      case 1: return "no diff: " + whose + " text was not read in this run";
      case 2: return "no diff: " + whose + " text is left out, the report holds at most " + num(data.maxTexts) + " bytes of texts";
      case 3: return "no diff: " + whose + " document was added as a fingerprint, without text";
    }
    return "no diff: no text";
  }

  function toggle(c, m, tr, btn, diff) {
    const open = btn.getAttribute("aria-expanded") === "true";
    for (const b of tr.parentNode.querySelectorAll("button.diff-button")) b.setAttribute("aria-expanded", "false");
    for (const r of tr.parentNode.querySelectorAll("tr.open")) r.classList.remove("open");
    if (open) { diff.hidden = true; diff.replaceChildren(); return; }
    btn.setAttribute("aria-expanded", "true");
    tr.classList.add("open");
    diff.hidden = false;
    diff.replaceChildren(el("p", "count", "Comparing…"));
    loaded(() => diff.replaceChildren(diffView(c.m[0], m)));
  }

  // loaded calls f once the texts, at the end of the file, are parsed.
  function loaded(f) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", f, { once: true });
    else f();
  }

  // textAt returns text i, parsing its chunk of texts the first time. A
  // member's text that repeats passages of the kept member's is written
  // as {k: the kept text, s: segments}, each a string or a [start, end]
  // range of the kept text, joined here.
  function textAt(i) {
    const k = Math.floor(i / data.chunk);
    if (!texts.has(k)) texts.set(k, JSON.parse(document.getElementById("simidx-texts-" + k).textContent));
    const t = texts.get(k)[i % data.chunk];
    if (typeof t === "string") return t;
    if (!joined.has(i)) {
      const base = textAt(t.k);
      joined.set(i, t.s.map((x) => typeof x === "string" ? x : base.slice(x[0], x[1])).join(""));
    }
    return joined.get(i);
  }

  // tokens returns the words of text (runs of non-space characters) and
  // where they are.
  function tokens(text) {
    const words = [], start = [], end = [];
    const re = /\S+/g;
    let m;
    while ((m = re.exec(text)) !== null) {
      words.push(m[0]); start.push(m.index); end.push(m.index + m[0].length);
    }
    return { words, start, end };
  }

  // wordDiff marks the words of a missing from b and of b missing from a:
  // the complement of a longest common subsequence (Myers' O(ND) diff,
  // after the common head and tail). Beyond MAX_EDITS edits it marks the
  // whole middle span and says the diff is not complete.
  function wordDiff(a, b) {
    const n = a.length, m = b.length;
    const ma = new Uint8Array(n), mb = new Uint8Array(m);
    let s = 0;
    while (s < n && s < m && a[s] === b[s]) s++;
    let ea = n, eb = m;
    while (ea > s && eb > s && a[ea - 1] === b[eb - 1]) { ea--; eb--; }
    const N = ea - s, M = eb - s;
    if (N === 0 || M === 0) { ma.fill(1, s, ea); mb.fill(1, s, eb); return { a: ma, b: mb, complete: true }; }
    const max = Math.min(N + M, MAX_EDITS);
    const off = max + 1;
    const v = new Int32Array(2 * max + 3);
    const trace = [];
    let found = -1;
    for (let d = 0; d <= max && found < 0; d++) {
      trace.push(v.slice(off - d - 1, off + d + 2));
      for (let k = -d; k <= d; k += 2) {
        let x = (k === -d || (k !== d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
        let y = x - k;
        while (x < N && y < M && a[s + x] === b[s + y]) { x++; y++; }
        v[off + k] = x;
        if (x >= N && y >= M) { found = d; break; }
      }
    }
    if (found < 0) { ma.fill(1, s, ea); mb.fill(1, s, eb); return { a: ma, b: mb, complete: false }; }
    let x = N, y = M;
    for (let d = found; d > 0; d--) {
      const vd = trace[d]; // v before step d: diagonal k at k + d + 1
      const k = x - y;
      const down = k === -d || (k !== d && vd[k + d] < vd[k + d + 2]);
      const pk = down ? k + 1 : k - 1;
      const px = vd[pk + d + 1], py = px - pk;
      if (down) mb[s + py] = 1; else ma[s + px] = 1;
      x = px; y = py;
    }
    return { a: ma, b: mb, complete: true };
  }

  // textView returns text with its marked words in class cls and the
  // shared passages ps ([start, end, number, words]) highlighted, as runs of
  // spans.
  function textView(text, tok, marks, cls, ps) {
    ps = ps.slice().sort((x, y) => x[0] - y[0]);
    const box = el("div", "text");
    const frag = document.createDocumentFragment();
    let j = 0, last = 0, runStart = -1, runEnd = 0, runKey = "";
    const flush = () => {
      if (runStart < 0) return;
      const [mark, p] = runKey.split("|");
      const classes = [];
      if (mark === "1") classes.push(cls);
      const pn = parseInt(p, 10);
      if (pn >= 0) classes.push("shared", "p" + (pn % 2));
      const t = text.slice(runStart, runEnd);
      if (classes.length === 0) frag.append(document.createTextNode(t));
      else {
        const sp = el("span", classes.join(" "), t);
        if (pn >= 0) sp.title = "shared passage " + (pn + 1) + ", " + ps.find((q) => q[2] === pn)[3] + " words";
        frag.append(sp);
      }
      runStart = -1;
    };
    for (let i = 0; i < tok.words.length; i++) {
      const ws = tok.start[i], we = tok.end[i];
      while (j < ps.length && ps[j][1] <= ws) j++;
      const p = (j < ps.length && ps[j][0] < we) ? ps[j][2] : -1;
      const key = marks[i] + "|" + p;
      if (runStart >= 0 && key === runKey) { runEnd = last = we; continue; }
      flush();
      if (ws > last) frag.append(document.createTextNode(text.slice(last, ws)));
      runStart = ws; runEnd = last = we; runKey = key;
    }
    flush();
    if (last < text.length) frag.append(document.createTextNode(text.slice(last)));
    box.append(frag);
    return box;
  }

  function diffView(kept, m) {
    const a = textAt(kept.t), b = textAt(m.t);
    const ta = tokens(a), tb = tokens(b);
    const d = wordDiff(ta.words, tb.words);
    const ps = m.p || [];
    const left = textView(a, ta, d.a, "del", ps.map((p, i) => [p[0], p[1], i, p[4]]));
    const right = textView(b, tb, d.b, "ins", ps.map((p, i) => [p[2], p[3], i, p[4]]));
    let removed = 0, added = 0;
    for (const x of d.a) removed += x;
    for (const x of d.b) added += x;
    const legend = el("div", "legend",
      el("span", null, el("span", "sw del", "removed"), " " + num(removed) + " words only in the kept text"),
      el("span", null, el("span", "sw ins", "added"), " " + num(added) + " words only in " + m.i),
      el("span", null, el("span", "sw shared", "shared"), ps.length ? " the " + ps.length + " longest shared passages (of canonical words), the longest " + num(ps[0][4]) + " words" : " no shared passage of " + 3 + " words or more"));
    if (!d.complete) legend.append(el("span", "warning", "more than " + num(MAX_EDITS) + " edits: the differing span is marked whole"));
    const col = (title, member, view) => {
      const c = el("div", "col", el("h4", null, title), view);
      if (member.c) c.append(el("p", "note-cut", "cut to its first " + num(data.maxText) + " bytes of " + num(member.b)));
      return c;
    };
    return el("div", null, legend, el("div", "cols", col("kept: " + kept.i, kept, left), col("drop: " + m.i, m, right)));
  }

  $("filters").addEventListener("submit", (e) => e.preventDefault());
  $("filters").addEventListener("reset", () => setTimeout(apply, 0));
  for (const input of [minSim, minSize, search]) input.addEventListener("input", apply);
  if (!data.sim) { minSim.disabled = true; minSim.title = "the pairs have no similarity (an index without the MinHash layer)"; }

  render();
  // Ready: the first page drawn and painted (the bench measures this).
  requestAnimationFrame(() => setTimeout(() => {
    performance.mark("simidx-ready");
    document.documentElement.dataset.ready = String(performance.now());
  }, 0));
  window.simidxReport = { wordDiff, tokens, textAt };
})();
