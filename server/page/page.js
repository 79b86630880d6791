"use strict";
// The page of simidx serve: a client of its JSON API. Every ID and text
// goes into the document as text (textContent, text nodes), never as
// markup.
(function () {
  const $ = (id) => document.getElementById(id);
  const writes = document.body.dataset.writes === "true";
  const status = $("status");
  const MIN_WORDS = 3; // the fewest words of a passage shown
  let matchFor = ""; // the ID whose text the compare form asks for

  function el(tag, cls, ...children) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    for (const ch of children) {
      if (ch === null || ch === undefined) continue;
      e.append(typeof ch === "string" ? document.createTextNode(ch) : ch);
    }
    return e;
  }
  const sim = (s) => (Math.floor(s * 100 + 1e-9) / 100).toFixed(2);
  const num = (n) => Number(n).toLocaleString("en-US");

  function say(msg, kind) {
    status.hidden = !msg;
    status.className = "status" + (kind ? " " + kind : "");
    status.textContent = msg || "";
  }

  // api calls the server and returns its JSON, or throws its error.
  async function api(method, path, body) {
    const init = { method, headers: {} };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
    const r = await fetch(path, init);
    let v = null;
    try { v = await r.json(); } catch (e) { v = null; }
    if (!r.ok) {
      const err = new Error((v && v.error) || (r.status + " " + r.statusText));
      err.body = v;
      throw err;
    }
    return v;
  }

  // docPath is the path of a stored document's endpoint: "." and ".."
  // escaped too, which a URL would otherwise resolve.
  function docPath(id) {
    const seg = (id === "." || id === "..") ? id.replace(/\./g, "%2E") : encodeURIComponent(id);
    return "v1/documents/" + seg;
  }

  function params(names) {
    const q = new URLSearchParams();
    for (const [name, input] of names) {
      const v = $(input).value.trim();
      if (v !== "") q.set(name, v);
    }
    const s = q.toString();
    return s ? "?" + s : "";
  }

  // table returns a table of the matches, each ID a button that shows its
  // neighbours, with a button to compare it when compare is set.
  function matchTable(matches, compare) {
    if (matches.length === 0) return el("p", "muted", "No near duplicate.");
    const hasSim = matches.some((m) => m.similarity !== undefined);
    const head = el("tr", null, el("th", null, "ID"));
    if (hasSim) head.append(el("th", "num", "similarity"));
    head.append(el("th", "num", "distance"), el("th", null, "exact"), el("th", null, ""));
    const body = el("tbody");
    for (const m of matches) {
      const id = el("button", "link", m.id);
      id.type = "button";
      id.title = "show the near duplicates of " + m.id;
      id.addEventListener("click", () => showSimilar(m.id));
      const tr = el("tr", null, el("td", "id", id));
      if (hasSim) {
        const td = el("td", "num", m.similarity !== undefined ? sim(m.similarity) : "-");
        if (m.similarity !== undefined) td.title = "similarity " + m.similarity;
        tr.append(td);
      }
      tr.append(el("td", "num", String(m.distance)));
      tr.append(m.exact === undefined ? el("td", null, "-") : m.exact ? el("td", "exact", "exact") : el("td", null, "no"));
      const act = el("td");
      if (compare) {
        const b = el("button", null, "shared passages…");
        b.type = "button";
        b.title = "compare the checked text with the text of " + m.id;
        b.addEventListener("click", () => askText(m.id));
        act.append(b);
      }
      tr.append(act);
      body.append(tr);
    }
    return el("table", null, el("thead", null, head), body);
  }

  async function query(e) {
    e.preventDefault();
    const text = $("text").value;
    if (!text.trim()) { say("Give a text to check.", "error"); return; }
    say("Looking up…");
    try {
      const v = await api("POST", "v1/query" + params([["min_similarity", "min-sim"], ["k", "k"], ["limit", "limit"]]), { text });
      $("matches").replaceChildren(el("h3", null, num(v.matches.length) + (v.matches.length === 1 ? " match" : " matches")), matchTable(v.matches, true));
      say("");
    } catch (err) { say(err.message, "error"); }
  }

  function askText(id) {
    matchFor = id;
    $("other-label").textContent = "The text of " + id + " (the index keeps no texts: paste it, or open its file)";
    $("passages").scrollIntoView({ block: "start" });
    $("other").focus();
  }

  // byteToIndex returns the indexes in text (UTF-16 code units) of the
  // UTF-8 byte offsets offs.
  function byteToIndex(text, offs) {
    const order = offs.map((_, i) => i).sort((a, b) => offs[a] - offs[b]);
    const out = new Array(offs.length);
    let b = 0, i = 0, k = 0;
    for (const ch of text) {
      while (k < order.length && offs[order[k]] <= b) out[order[k++]] = i;
      const cp = ch.codePointAt(0);
      b += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      i += ch.length;
    }
    while (k < order.length) out[order[k++]] = i;
    return out;
  }

  // marked returns text with the ranges [start, end, label] highlighted.
  function marked(text, ranges) {
    ranges = ranges.slice().sort((a, b) => a[0] - b[0]);
    const box = el("div", "text");
    let pos = 0;
    for (const [s0, e, label, n] of ranges) {
      const s = Math.max(s0, pos);
      if (s >= e) continue;
      if (s > pos) box.append(document.createTextNode(text.slice(pos, s)));
      const sp = el("span", "shared p" + (n % 2), text.slice(s, e));
      sp.title = label;
      box.append(sp);
      pos = e;
    }
    if (pos < text.length) box.append(document.createTextNode(text.slice(pos)));
    return box;
  }

  async function compare(e) {
    e.preventDefault();
    const a = $("text").value, b = $("other").value;
    if (!a.trim() || !b.trim()) { say("Give both texts: the checked text above and the other here.", "error"); return; }
    say("Comparing…");
    try {
      const v = await api("POST", "v1/compare?passages=20", { a, b });
      const m = el("dl", "measures");
      const fig = (label, value) => m.append(el("div", null, el("dt", null, label), el("dd", null, value)));
      fig("Jaccard", sim(v.jaccard));
      if (v.similarity !== undefined) fig("estimated similarity", sim(v.similarity));
      fig("share of the checked text in the other", sim(v.containment_a));
      fig("share of the other in the checked text", sim(v.containment_b));
      fig("distance", String(v.distance));
      fig("exact copy", v.exact ? "yes" : "no");
      // The passages of MIN_WORDS words or more, longest first.
      const ps = v.passages.filter((p) => p.words >= MIN_WORDS);
      const pa = byteToIndex(a, ps.flatMap((p) => [p.a_start, p.a_end]));
      const pb = byteToIndex(b, ps.flatMap((p) => [p.b_start, p.b_end]));
      const label = (i) => "shared passage " + (i + 1) + ", " + ps[i].words + " words";
      const ra = ps.map((p, i) => [pa[2 * i], pa[2 * i + 1], label(i), i]);
      const rb = ps.map((p, i) => [pb[2 * i], pb[2 * i + 1], label(i), i]);
      const other = matchFor ? "the text of " + matchFor : "the other text";
      $("comparison").replaceChildren(m,
        el("p", "muted", ps.length ? "The " + ps.length + " longest passages of " + MIN_WORDS + " words or more that the two texts share, highlighted (the longest " + num(ps[0].words) + " words)." : "The texts share no passage of " + MIN_WORDS + " words or more."),
        el("div", "cols", el("div", null, el("h3", null, "the checked text"), marked(a, ra)), el("div", null, el("h3", null, other), marked(b, rb))));
      say("");
    } catch (err) { say(err.message, "error"); }
  }

  async function showSimilar(id) {
    $("doc-id").value = id;
    say("Looking up " + id + "…");
    try {
      const [doc, v] = await Promise.all([api("GET", docPath(id)), api("GET", docPath(id) + "/similar" + params([["min_similarity", "min-sim"], ["k", "k"], ["limit", "limit"]]))]);
      const out = [el("h3", null, "Near duplicates of " + id), el("p", "muted", "fingerprint " + doc.fingerprint + (doc.precomputed ? " (added as a fingerprint, without text)" : "")), matchTable(v.matches, false)];
      if (writes) {
        const del = el("button", "danger", "Delete " + id);
        del.type = "button";
        del.addEventListener("click", () => remove(id));
        out.push(el("div", "row writes", del));
      }
      $("similar-results").replaceChildren(...out);
      $("neighbours").scrollIntoView({ block: "start" });
      say("");
    } catch (err) { say(err.message, "error"); }
  }

  async function remove(id) {
    if (!confirm("Delete " + id + " from the index?")) return;
    try {
      const v = await api("DELETE", docPath(id));
      $("similar-results").replaceChildren(el("p", "muted", v.deleted ? "Deleted " + id + "." : id + " was not in the index."));
      say("Deleted " + id + ".", "ok");
      stats();
    } catch (err) { say(err.message, "error"); }
  }

  async function add(e) {
    e.preventDefault();
    const id = $("add-id").value, text = $("text").value;
    if (!id || !text.trim()) { say("Give the text above and an ID to add it as.", "error"); return; }
    try {
      const v = await api("POST", "v1/documents" + ($("add-unique").checked ? "?if_unique=true" : ""), [{ id, text }]);
      say("Added " + id + " (" + num(v.added) + " document).", "ok");
      stats();
    } catch (err) {
      say(err.message, "error");
      const dup = err.body && err.body.duplicates && err.body.duplicates[0];
      if (dup) $("matches").replaceChildren(el("h3", null, "Not added: its near duplicates"), matchTable(dup.matches, true));
    }
  }

  async function stats() {
    try {
      const s = await api("GET", "v1/stats");
      const sh = (s.text && s.text.shingle) || {};
      const minhash = s.minhash ? "MinHash on (K=" + s.minhash_k + ", " + s.bands + " bands)" : "no MinHash layer";
      $("index-line").textContent = s.path + ": " + num(s.docs) + " documents; " + s.method + ", k=" + s.max_distance + ", " + minhash;
      const rows = [
        ["path", s.path], ["documents", num(s.docs)], ["empty (no words)", num(s.empty)],
        ["method", s.method], ["max distance (k)", s.max_distance + " bits"], ["MinHash layer", minhash],
        ["shingles", sh.size + " " + sh.unit], ["shingle sets stored", s.store_shingles ? "yes (verify=true works)" : "no"],
        ["file", num(s.file_bytes) + " bytes"], ["journal operations pending", num(s.journal_pending)],
        ["writes from this page", writes ? "on (--page-writes)" : "off"],
      ];
      $("stats-table").replaceChildren(el("table", null, el("tbody", null, ...rows.map(([k, v]) => el("tr", null, el("th", null, k), el("td", null, String(v)))))));
    } catch (err) { say(err.message, "error"); }
  }

  function loadFile(input, target) {
    input.addEventListener("change", async () => {
      const f = input.files[0];
      if (!f) return;
      $(target).value = await f.text();
    });
  }

  $("query-form").addEventListener("submit", query);
  $("compare-form").addEventListener("submit", compare);
  $("similar-form").addEventListener("submit", (e) => { e.preventDefault(); showSimilar($("doc-id").value); });
  $("refresh").addEventListener("click", stats);
  if (writes && $("add-form")) $("add-form").addEventListener("submit", add);
  loadFile($("file"), "text");
  loadFile($("other-file"), "other");
  stats();
})();
