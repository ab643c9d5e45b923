// acp-proxy view: renders the trace data embedded in this page.
// Every string from the trace goes into the page as text (textContent or
// a text node), never as markup, and never into a URL; its bidirectional
// controls are shown, not applied (see visible).
(function () {
  "use strict";
  var ALL = JSON.parse(document.getElementById("acp-proxy-view-data").textContent);
  // A trace of several proxy runs (--record appends) has one data per
  // connection: the page shows the one #connection-N names, the first by
  // default, and a link to each.
  var conns = ALL.connections || [];
  var connIndex = 0;
  var pick = /^#connection-(\d+)$/.exec(location.hash);
  if (pick) connIndex = Math.min(Math.max(Number(pick[1]), 1), Math.max(conns.length, 1)) - 1;
  // A live page (acp-proxy --serve, view --follow) shows the newest
  // connection unless the address names one.
  else if (ALL.live) connIndex = Math.max(conns.length - 1, 0);
  var D = conns.length ? conns[connIndex] : ALL;
  window.addEventListener("hashchange", function () {
    if (/^#connection-\d+$/.test(location.hash)) location.reload();
  });
  // recorded: not replayed, but recorded through filters; after is what
  // the recording proxy sent.
  var filtered = D.filters.length > 0 || D.flags.length > 0 || D.recorded;
  var KIND_COLORS = {
    read: "#4e79a7", edit: "#f28e2b", "delete": "#e15759", move: "#76b7b2", search: "#59a14f",
    execute: "#7b57c9", think: "#9d9590", fetch: "#d4a72c", switch_mode: "#b07aa1", other: "#8c8c8c"
  };
  var SVGNS = "http://www.w3.org/2000/svg";

  // ---- helpers ----
  // visible is a text as the page shows it: each bidirectional control
  // character (embeddings, overrides, isolates, marks) as its name, such
  // as [U+202E], so that a command cannot be made to read reversed or out
  // of order.
  var BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
  function visible(text) {
    return text.replace(BIDI, function (c) { return "[U+" + ("000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + "]"; });
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = visible(String(text));
    return e;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      parent.appendChild(typeof c === "string" ? document.createTextNode(visible(c)) : c);
    }
    return parent;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    return e;
  }
  function bytes(n) {
    if (n >= 1048576) return (n / 1048576).toFixed(2) + " MB";
    if (n >= 1024) return (n / 1024).toFixed(1) + " KB";
    return n + " B";
  }
  function int(n) { return Number(n).toLocaleString("en-US"); }
  function secs(t) { return t < 10 ? t.toFixed(3) + " s" : t.toFixed(2) + " s"; }
  function kindColor(k) { return KIND_COLORS[k] || KIND_COLORS.other; }
  function beforeAfter(b, a, fmt) {
    var s = el("span");
    if (!filtered) return add(s, fmt(b));
    var cls = a < b ? "after less" : a > b ? "after more" : "after";
    return add(s, fmt(b), el("span", "arrow", "→"), el("span", cls, fmt(a)));
  }
  function ratio(a, b) { return b ? (a / b).toFixed(3) : "–"; }
  function info(v) {
    if (!v || typeof v !== "object") return "unknown";
    var name = v.title || v.name || "?";
    return v.version ? name + " " + v.version : name;
  }
  // agentName is the agent as it named itself, or, when it never did (it
  // died before it answered initialize), its command as recorded.
  function agentName(d) {
    var a = d.session.agentInfo;
    if (a && typeof a === "object") return info(a);
    if (d.recording && d.recording.agent) return d.recording.agent + " (never named itself)";
    return "unknown";
  }
  function pretty(v) { return JSON.stringify(v, null, 2); }

  // text renders an (elided) Text into a <pre>.
  function text(t, cls) {
    var pre = el("pre", cls);
    if (!t) return pre;
    add(pre, t.text);
    if (t.omittedBytes || t.omittedLines || t.tail) {
      add(pre, el("span", "elided", "… " + int(t.omittedLines) + " lines (" + bytes(t.omittedBytes) + ") not shown of " +
        int(t.lines) + " lines, " + bytes(t.bytes) + " …"), t.tail);
    }
    return pre;
  }
  // markdownish shows a text block as a client renders its markdown where
  // it matters here: a text that is one fenced code block (how agents send
  // command output) is shown as the code, in a code block.
  function markdownish(t) {
    var head = t.text, elided = !isWhole(t), tail = elided ? t.tail : "";
    var open = /^```[^\n`]*\n/.exec(head), close = /\n?```\s*$/;
    var end = elided ? tail : head;
    if (!open || !close.test(end) || (!elided && head.length < open[0].length + 3)) return text(t, "text");
    var code = { text: head.slice(open[0].length), tail: tail, bytes: t.bytes, lines: t.lines, omittedLines: t.omittedLines, omittedBytes: t.omittedBytes };
    if (elided) code.tail = tail.replace(close, "\n"); else code.text = code.text.replace(close, "\n");
    if (!elided && code.text.indexOf("```") >= 0) return text(t, "text"); // more than one block
    return text(code, "text code");
  }
  function isWhole(t) { return t && !t.tail && !t.omittedBytes && !t.omittedLines; }

  // lineDiff: the lines of a and b as [op, line] with op " ", "-" or "+".
  function lineDiff(a, b) {
    var n = a.length, m = b.length, i, j;
    if (n * m > 4000000) {
      return a.map(function (l) { return ["-", l]; }).concat(b.map(function (l) { return ["+", l]; }));
    }
    var w = m + 1, L = new Uint32Array((n + 1) * w);
    for (i = n - 1; i >= 0; i--) for (j = m - 1; j >= 0; j--)
      L[i * w + j] = a[i] === b[j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
    var out = [];
    i = 0; j = 0;
    while (i < n && j < m) {
      if (a[i] === b[j]) { out.push([" ", a[i]]); i++; j++; }
      else if (L[(i + 1) * w + j] >= L[i * w + j + 1]) out.push(["-", a[i++]]);
      else out.push(["+", b[j++]]);
    }
    while (i < n) out.push(["-", a[i++]]);
    while (j < m) out.push(["+", b[j++]]);
    return out;
  }
  function splitLines(s) {
    if (s === "") return [];
    var l = s.split("\n");
    if (l[l.length - 1] === "") l.pop();
    return l;
  }
  function diffView(ops) {
    var pre = el("pre", "diff");
    ops.forEach(function (o) {
      add(pre, el("span", "line" + (o[0] === "+" ? " add" : o[0] === "-" ? " del" : ""), o[0] + " " + o[1]));
    });
    return pre;
  }
  function panel(head, body) {
    var p = el("div", "panel"), h = el("div", "panel-head"), b = el("div", "panel-body");
    (Array.isArray(head) ? head : [head]).forEach(function (x) { add(h, x); });
    add(p, h, add(b, body));
    return p;
  }
  function details(summary, build, open) {
    var d = el("details");
    add(d, el("summary", null, summary));
    var built = false;
    function fill() { if (!built) { built = true; add(d, build()); } }
    if (open) { d.open = true; fill(); }
    d.addEventListener("toggle", fill);
    return d;
  }

  // ---- header and overview ----
  function renderHeader() {
    var h = document.getElementById("top"), s = D.session;
    add(h, add(el("h1"), "acp-proxy view · ", el("span", "trace", D.trace)));
    var sub = [agentName(D) + " ⇄ " + info(s.clientInfo)];
    if (s.protocolVersion !== undefined) sub.push("protocol " + JSON.stringify(s.protocolVersion));
    sub.push(secs(D.duration));
    sub.push(int(D.calls.length) + (D.calls.length === 1 ? " tool call" : " tool calls"));
    add(h, el("div", "sub", sub.join(" · ")));
    if (D.recording) add(h, el("div", "sub recording", (D.recording.recorded ? "recorded" : "run") + " by acp-proxy " + (D.recording.proxy || "(version unknown)") + " on " + D.recording.started + ": " + D.recording.command));
    var chips = el("div", "chips");
    if (!filtered) add(chips, el("span", "chip none", "no filters: what was received is what was delivered"));
    if (D.recorded) add(chips, el("span", "chip none", "recorded through filters: after is what the recording proxy sent"));
    D.flags.forEach(function (f) { add(chips, el("span", "chip", f)); });
    if (D.filters.length) add(chips, el("span", "chip none", "filters: " + D.filters.join(" → ")));
    add(h, chips);
    if (ALL.live) add(h, liveStatus(ALL.live));
    if (conns.length) add(h, connectionLinks());
  }

  // liveStatus says where a live page stands, and what it missed.
  function liveStatus(lv) {
    var box = el("div", "live-status");
    box.id = "live-status";
    var what = lv.running ? (liveLost ? "live · connection to acp-proxy lost, retrying" : "live · updating as messages pass") : "live · the session ended: this is all of it";
    if (liveFailed) what = "live · the live view failed and stopped (the proxy's log says why); the session goes on";
    else if (liveWaiting && lv.running) what = "live · waiting: " + liveWaiting + "; this page connects by itself when one is closed";
    add(box, el("span", "chip live" + (lv.running && !liveLost && !liveFailed && !liveWaiting ? " on" : ""), what));
    if (lv.missed) add(box, el("span", "chip warn", "the live view left out " + int(lv.missed) + " messages (" + bytes(lv.missedBytes) + ") it could not keep up with; the relay did not wait, and a trace (--record) has them all"));
    if (lv.cut) add(box, el("span", "chip warn", int(lv.cut) + (lv.cut === 1 ? " line" : " lines") + " too long to filter shown by the first 64 KiB only; a trace (--record) has them whole"));
    return box;
  }
  var liveLost = false, liveFailed = false, liveWaiting = "";

  // connectionLinks lists the trace's connections, the shown one marked.
  function connectionLinks() {
    var nav = add(el("nav", "connections"), el("span", null, "This trace holds " + conns.length + " connections (proxy runs): "));
    conns.forEach(function (c, i) {
      var label = (i + 1) + ". " + agentName(c) + " · " + int(c.calls.length) + (c.calls.length === 1 ? " call" : " calls") + " · " + secs(c.duration);
      var a = el(i === connIndex ? "strong" : "a", "conn", label);
      if (i !== connIndex) a.setAttribute("href", "#connection-" + (i + 1));
      add(nav, a);
    });
    return add(el("div"), nav, totals());
  }

  // totals are the whole trace's figures, over its connections.
  function totals() {
    var calls = 0;
    conns.forEach(function (c) { calls += c.calls.length; });
    var parts = [int(calls) + (calls === 1 ? " tool call" : " tool calls"), secs(ALL.duration)];
    ALL.directions.forEach(function (d) {
      var before = int(d.before.messages) + " messages, " + bytes(d.before.bytes);
      var after = int(d.after.messages) + " messages, " + bytes(d.after.bytes);
      parts.push(d.direction.replace("->", " → ") + ": " + (filtered ? before + " → " + after : before));
    });
    return el("div", "sub totals", "In all: " + parts.join(" · "));
  }

  function capsCard(title, caps, injectedWord) {
    var card = el("div");
    add(card, el("h3", null, title));
    if (!caps.before) return add(card, el("div", "muted", "not in the trace"));
    if (caps.changed.length) {
      var list = el("div");
      caps.changed.forEach(function (c) {
        var line;
        if (c.before === undefined) line = el("span", "inject", "+ " + c.path + " = " + JSON.stringify(c.after) + "  (" + injectedWord + ")");
        else if (c.after === undefined) line = el("span", "removed", "− " + c.path + " (removed by the proxy)");
        else line = el("span", "inject", "~ " + c.path + ": " + JSON.stringify(c.before) + " → " + JSON.stringify(c.after) + " (changed by the proxy)");
        add(list, line, el("br"));
      });
      add(card, list);
    } else if (filtered) {
      add(card, el("div", "muted", "passed on unchanged"));
    }
    add(card, el("pre", "capjson", pretty(caps.before)));
    return card;
  }

  function renderOverview() {
    var o = document.getElementById("overview"), s = D.session;
    var grid = el("div", "grid");
    var traffic = el("div");
    add(traffic, el("h3", null, filtered ? "Messages and bytes, before → after the filters" : "Messages and bytes"));
    var tb = el("table", "overview-traffic"), hr = el("tr");
    ["direction", "messages", "bytes"].concat(filtered ? ["ratio"] : []).forEach(function (x, i) { add(hr, el("th", i ? "num" : null, x)); });
    add(tb, hr);
    D.directions.forEach(function (d) {
      var tr = el("tr");
      add(tr, el("td", "mono", d.direction.replace("->", " → ")),
        add(el("td", "num"), beforeAfter(d.before.messages, d.after.messages, int)),
        add(el("td", "num"), beforeAfter(d.before.bytes, d.after.bytes, bytes)));
      if (filtered) add(tr, el("td", "num", ratio(d.after.bytes, d.before.bytes)));
      add(tb, tr);
    });
    add(traffic, tb);
    var kv = el("div", "kv");
    function row(k, v) { add(kv, el("div", null, k), el("div", "mono", v)); }
    row("agent", agentName(D));
    if (D.recording) row(D.recording.recorded ? "recorded as" : "run as", D.recording.command);
    row("client", info(s.clientInfo));
    row("session", s.sessionIds.join(", ") || "–");
    if (s.cwd) row("cwd", s.cwd);
    if (s.authMethods.length) row("auth", s.authMethods.join(", "));
    row("filters", D.filters.length ? D.filters.join(" → ") : D.recorded ? "those of the recording proxy" : "none");
    add(traffic, el("h3", null, "Session"), kv);
    add(grid, traffic,
      capsCard("Client capabilities (as the client advertised them)", s.clientCapabilities, "injected by the proxy"),
      capsCard("Agent capabilities (as the agent advertised them)", s.agentCapabilities, "added by the proxy"));
    add(o, grid);
  }

  // ---- timeline ----
  function renderTimeline() {
    var box = document.getElementById("timeline");
    var W = 1000, L = 118, R = 12, plotW = W - L - R;
    var tl = D.timeline, nb = tl.dirs.length ? tl.dirs[0].before.bytes.length : 0;
    var total = Math.max(D.duration, tl.width * nb, 0.001);
    var x = function (t) { return L + plotW * Math.min(1, Math.max(0, t / total)); };
    // tool-call lanes: greedy, so bars never overlap
    var lanes = [], laneOf = [];
    D.calls.forEach(function (c, i) {
      var x0 = x(c.start), x1 = Math.max(x(c.end), x0 + 3), k = 0;
      while (k < lanes.length && lanes[k] > x0 - 2) k++;
      lanes[k] = x1; laneOf[i] = k;
    });
    var laneH = 14, dirH = 56, gap = 14, top = 8;
    var callsTop = top + 2 * (dirH + gap);
    var H = callsTop + Math.max(1, lanes.length) * laneH + 30;
    var s = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img" });
    add(s, add(svg("title", {}), "Messages over time per direction, bytes before and after the filters (log scale), and tool calls"));
    tl.dirs.forEach(function (d, di) {
      var y0 = top + di * (dirH + gap), base = y0 + dirH;
      var max = 1;
      for (var i = 0; i < nb; i++) max = Math.max(max, d.before.bytes[i], d.after.bytes[i]);
      var lg = Math.log(1 + max);
      var h = function (v) { return v > 0 ? Math.max(1.5, dirH * Math.log(1 + v) / lg) : 0; };
      add(s, svg("rect", { x: L, y: y0, width: plotW, height: dirH, fill: "#f8f9fb" }));
      var label = svg("text", { x: L - 8, y: y0 + dirH / 2 - 2, "text-anchor": "end" });
      add(label, d.direction.replace("->", " → "));
      add(s, label);
      var fig = D.directions[di], counts = svg("text", { x: L - 8, y: y0 + dirH / 2 + 12, "text-anchor": "end", "class": "lane-figures" });
      add(counts, int(fig.before.messages) + (filtered ? " → " + int(fig.after.messages) : "") + " msgs");
      add(s, counts);
      var bw = plotW / nb;
      for (i = 0; i < nb; i++) {
        var b = d.before.bytes[i], a = d.after.bytes[i];
        if (!b && !a) continue;
        var g = svg("g", {});
        if (filtered) add(g, svg("rect", { x: L + i * bw, y: base - h(b), width: Math.max(bw - 0.6, 0.8), height: h(b), fill: "#c7cdd8" }));
        add(g, svg("rect", { x: L + i * bw + (filtered ? bw * 0.2 : 0), y: base - h(a), width: Math.max((filtered ? bw * 0.6 : bw - 0.6), 0.8), height: h(a), fill: di ? "#2f6fde" : "#12a37f" }));
        var tip = secs(i * tl.width) + "–" + secs((i + 1) * tl.width) + ": " +
          (filtered ? int(d.before.messages[i]) + " messages, " + bytes(b) + " before → " : "") +
          int(d.after.messages[i]) + " messages, " + bytes(a) + (filtered ? " after" : "");
        add(g, add(svg("title", {}), tip));
        add(s, g);
      }
    });
    var lbl = svg("text", { x: L - 8, y: callsTop + 10, "text-anchor": "end" });
    add(lbl, "tool calls");
    add(s, lbl);
    D.calls.forEach(function (c, i) {
      var x0 = x(c.start), x1 = Math.max(x(c.end), x0 + 3), y = callsTop + laneOf[i] * laneH;
      var attrs = { x: x0, y: y, width: x1 - x0, height: laneH - 4, rx: 2, fill: kindColor(c.kind), "class": "call-bar", "data-call": i };
      if (c.status === "failed") { attrs.stroke = "#b42318"; attrs["stroke-width"] = 2; }
      else if (c.status !== "completed") { attrs["fill-opacity"] = 0.45; attrs.stroke = kindColor(c.kind); attrs["stroke-dasharray"] = "3 2"; }
      var r = svg("rect", attrs);
      add(r, add(svg("title", {}), (c.title || c.id) + " · " + (c.kind || "other") + " · " + (c.status || "pending") + " · " +
        secs(c.start) + "–" + secs(c.end) + " · " + int(c.before.messages) + (filtered ? " → " + int(c.after.messages) : "") + " updates"));
      r.style.cursor = "pointer";
      r.addEventListener("click", function () { openCall(i, true); });
      add(s, r);
    });
    // axis
    var axisY = H - 18, step = niceStep(total / 8);
    add(s, svg("line", { x1: L, x2: L + plotW, y1: axisY, y2: axisY, stroke: "#98a2b3" }));
    for (var t = 0; t <= total + 1e-9; t += step) {
      add(s, svg("line", { x1: x(t), x2: x(t), y1: axisY, y2: axisY + 4, stroke: "#98a2b3" }));
      var tx = svg("text", { x: x(t), y: axisY + 15, "text-anchor": "middle" });
      add(tx, (step < 1 ? t.toFixed(step < 0.1 ? 2 : 1) : t.toFixed(0)) + " s");
      add(s, tx);
    }
    add(box, s);
    var legend = el("div", "legend");
    if (filtered) add(legend, add(el("span"), swatch("#c7cdd8"), "bytes before the filters"));
    add(legend, add(el("span"), swatch("#12a37f"), "client → agent" + (filtered ? " after" : "")),
      add(el("span"), swatch("#2f6fde"), "agent → client" + (filtered ? " after" : "")), el("span", "muted", "bar height: bytes per " + secs(tl.width) + ", log scale"));
    var kinds = {};
    D.calls.forEach(function (c) { kinds[c.kind || "other"] = true; });
    Object.keys(kinds).sort().forEach(function (k) { add(legend, add(el("span"), swatch(kindColor(k)), k)); });
    add(legend, el("span", "muted", "tool calls: solid completed, dashed pending, red outline failed"));
    add(box, legend);
  }
  function swatch(c) { var s = el("span", "swatch"); s.style.background = c; return s; }
  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-6)))), f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  }

  // ---- tool calls ----
  var callRows = [];
  function renderCalls() {
    var box = document.getElementById("calls");
    if (!D.calls.length) { add(box, el("div", "muted", "No tool calls.")); return; }
    var tb = el("table", "calls-table"), hr = el("tr");
    tb.setAttribute("data-count", D.calls.length);
    ["#", "title", "kind", "status", "duration", "updates", "bytes"].forEach(function (h, i) { add(hr, el("th", i >= 4 ? "num" : null, h)); });
    add(tb, add(el("thead"), hr));
    var body = el("tbody");
    D.calls.forEach(function (c, i) {
      var tr = el("tr", "call-row");
      tr.setAttribute("data-call", i);
      var kind = el("span", "kind", c.kind || "other");
      kind.style.background = kindColor(c.kind);
      add(tr, el("td", "num", i + 1),
        add(el("td"), el("div", "call-title", c.title || "(no title)"), el("div", "muted mono", c.id)),
        add(el("td"), kind),
        add(el("td"), el("span", "status status-" + (c.status || ""), c.status || "pending")),
        el("td", "num", secs(Math.max(0, c.end - c.start))),
        add(el("td", "num"), beforeAfter(c.before.messages, c.after.messages, int)),
        add(el("td", "num"), beforeAfter(c.before.bytes, c.after.bytes, bytes)));
      tr.addEventListener("click", function () { openCall(i, false); });
      add(body, tr);
      callRows.push({ row: tr, detail: null, call: c });
    });
    add(box, add(tb, body), callsLegend());
  }

  // callsLegend explains the table's colours.
  function callsLegend() {
    var legend = el("div", "legend");
    var kinds = {};
    D.calls.forEach(function (c) { kinds[c.kind || "other"] = true; });
    Object.keys(kinds).sort().forEach(function (k) { add(legend, add(el("span"), swatch(kindColor(k)), k)); });
    add(legend, add(el("span"), el("span", "status status-completed", "completed"), " ", el("span", "status status-in_progress", "pending"), " ", el("span", "status status-failed", "failed")));
    if (filtered) add(legend, add(el("span"), "before ", el("span", "arrow", "→"), " ", el("span", "after less", "after: less"), " / ", el("span", "after more", "more"), " / ", el("span", "after", "the same")));
    add(legend, el("span", "muted", "click a row for the call as the client saw it"));
    return legend;
  }

  function openCall(i, scroll) {
    var r = callRows[i];
    if (!r) return;
    if (!r.detail) {
      r.detail = el("tr", "call-detail");
      var td = el("td");
      td.colSpan = 7;
      add(r.detail, add(td, callDetail(r.call)));
      r.row.parentNode.insertBefore(r.detail, r.row.nextSibling);
      r.row.classList.add("open");
    } else if (scroll) {
      r.detail.classList.remove("hidden");
      r.row.classList.add("open");
    } else {
      r.detail.classList.toggle("hidden");
      r.row.classList.toggle("open", !r.detail.classList.contains("hidden"));
    }
    if (scroll) r.row.scrollIntoView({ block: "start" });
  }

  function callDetail(c) {
    var box = el("div", "detail");
    var after = c.final.after || c.final.before;
    if (filtered) add(box, callChange(c));
    var seen = c.raw.after.length ? c.raw.after : c.raw.before, skipped = c.raw.after.length ? c.raw.omitted[1] : c.raw.omitted[0];
    add(box, details("The updates as the client received them, one by one (" + int(after.updates) + ")", function () { return updatesSeen(seen, skipped); }, filtered));
    add(box, panel([el("strong", null, filtered ? "What the client saw at the end (after the filters)" : "What the client saw at the end"),
      el("span", "muted", int(after.updates) + " updates")], callState(after)));
    if (filtered && c.final.before) {
      add(box, details("What the client would have seen without the filters (" + int(c.final.before.updates) + " updates)",
        function () { return callState(c.final.before); }));
    }
    add(box, details(filtered ? "Raw updates: before → after the filters" : "Raw updates", function () { return rawCompare(c); }));
    return box;
  }

  // callChange says in one line what the filters did to the call.
  function callChange(c) {
    var b = c.before, a = c.after;
    var line = el("div", "call-change");
    if (b.messages === a.messages && b.bytes === a.bytes) return add(line, "The filters left this call's updates as the agent sent them: " + int(b.messages) + " updates, " + bytes(b.bytes) + ".");
    return add(line, "The agent sent ", el("strong", null, int(b.messages) + " updates, " + bytes(b.bytes)), "; the client received ",
      el("strong", "after", int(a.messages) + " updates, " + bytes(a.bytes)), " (" + ratio(a.bytes, b.bytes) + " of the bytes).");
  }

  // updateText is what a client shows of one update: its content's text
  // and the terminal output it streams.
  function updateText(msg) {
    var u = msg && msg.params && (msg.params.update || msg.params.toolCall);
    if (!u) return "";
    var parts = [];
    (Array.isArray(u.content) ? u.content : []).forEach(function (item) {
      if (item && item.type === "content" && item.content && typeof item.content.text === "string") parts.push(item.content.text);
      if (item && item.type === "diff") parts.push("diff " + item.path);
    });
    var to = u._meta && u._meta.terminal_output;
    if (to && typeof to.data === "string") parts.push(to.data);
    return parts.join("\n");
  }

  // updatesSeen lists updates as a client receives them: when, what state
  // they set, and the text each shows (a live tail while a command runs).
  function updatesSeen(msgs, omitted) {
    var box = el("div", "updates-seen");
    msgs.forEach(function (m, k) {
      if (k === 3 && omitted) add(box, el("div", "elided", "… " + int(omitted) + " updates in between not shown …"));
      var u = m.msg && m.msg.params && (m.msg.params.update || m.msg.params.toolCall) || {};
      var head = ["t = " + secs(m.t), u.sessionUpdate || (m.msg && m.msg.method) || "", u.status || "", bytes(m.bytes)].filter(Boolean).join(" · ");
      var body = updateText(m.msg);
      add(box, el("div", "raw-head", head), body ? el("pre", "text seen", body) : el("div", "muted", "no text"));
    });
    if (!msgs.length) add(box, el("div", "muted", "none"));
    return box;
  }

  function callState(st) {
    var box = el("div", "state");
    var meta = el("div", "muted");
    add(meta, (st.title || "(no title)") + " · " + (st.kind || "other") + " · " + (st.status || "pending"));
    add(box, meta);
    if (st.locations.length) add(box, el("div", "mono", "locations: " + st.locations.join(", ")));
    var shownTerms = {};
    st.content.forEach(function (item) {
      if (item.type === "content") {
        add(box, el("h3", null, item.block === "text" ? "text" : item.block + " block"), item.block === "text" ? markdownish(item.text) : text(item.text, "text"));
      } else if (item.type === "diff") {
        add(box, diff(item));
      } else if (item.type === "terminal") {
        shownTerms[item.terminalId] = true;
        add(box, terminal(item.terminalId, st.terminals));
      } else {
        add(box, el("h3", null, item.type), text(item.text));
      }
    });
    st.terminals.forEach(function (t) { if (!shownTerms[t.id]) add(box, terminal(t.id, st.terminals, true)); });
    if (!st.content.length) add(box, el("div", "muted", "no content" + (st.rawOutput ? " (a client such as Zed shows rawOutput instead)" : "")));
    if (st.rawInput) add(box, details("rawInput", function () { return text(st.rawInput); }));
    if (st.rawOutput) add(box, details("rawOutput", function () { return text(st.rawOutput); }, !st.content.length));
    return box;
  }

  function diff(item) {
    var box = el("div", "diff-box");
    var head = add(el("h3"), "diff ", el("span", "mono path", item.path), item.oldText ? "" : el("span", "muted", "  (new file)"));
    add(box, head);
    var oldT = item.oldText ? item.oldText : { text: "", bytes: 0, lines: 0 };
    if (isWhole(oldT) && isWhole(item.newText)) {
      add(box, diffView(lineDiff(splitLines(oldT.text), splitLines(item.newText.text))));
    } else {
      if (item.oldText) add(box, el("div", "muted", "oldText"), text(item.oldText, "diff"));
      add(box, el("div", "muted", "newText"), text(item.newText, "diff"));
    }
    return box;
  }

  function terminal(id, terms, unreferenced) {
    var t = null;
    terms.forEach(function (x) { if (x.id === id) t = x; });
    var box = el("div", "terminal-box");
    add(box, el("h3", null, "terminal " + id + (unreferenced ? " (output streamed under _meta)" : "")));
    if (!t) {
      add(box, el("div", "muted", "Its output is not in the trace: the client ran the command itself (terminal/*) or nothing was streamed."));
      return box;
    }
    add(box, text(t.output, "term"));
    if (t.exited) add(box, el("div", "muted", "exited: exit code " + (t.exitCode === undefined ? "?" : JSON.stringify(t.exitCode)) +
      (t.signal !== undefined && t.signal !== null ? ", signal " + JSON.stringify(t.signal) : "")));
    return box;
  }

  function rawCompare(c) {
    var grid = el("div", filtered ? "raw-grid" : "");
    // Pairs are by source: a delivered update names the received one it
    // was made from (q); one a timer released stands alone.
    var byT = {};
    c.raw.before.forEach(function (m) { if (m.msg) byT[m.q] = pretty(m.msg); });
    var afterT = {};
    c.raw.after.forEach(function (m) { if (m.msg && !m.tm && afterT[m.q] === undefined) afterT[m.q] = pretty(m.msg); });
    function column(title, msgs, omitted, other, sign) {
      var col = el("div");
      add(col, el("h3", null, title));
      msgs.forEach(function (m, k) {
        if (k === 3 && omitted) add(col, el("div", "elided", "… " + int(omitted) + " updates in between not shown …"));
        var box = el("div", "raw-msg"), body = m.msg ? pretty(m.msg) : null;
        var note = "";
        var pair = m.tm ? undefined : other[m.q];
        if (filtered && body !== null) {
          if (m.tm) note = " · released by a filter's timer after message #" + (m.q + 1);
          else if (pair === undefined) note = sign === "+" ? " · added by a filter" : " · held or dropped by a filter";
          else if (pair === body) note = " · unchanged";
          else note = " · changed";
        }
        add(box, el("div", "raw-head", "message #" + (m.q + 1) + " · t = " + m.t.toFixed(6) + " s · " + bytes(m.bytes) + note));
        if (body === null) add(box, text(m.line));
        else if (filtered && pair !== undefined && pair !== body) {
          var ops = lineDiff(splitLines(sign === "+" ? pair : body), splitLines(sign === "+" ? body : pair));
          var pre = el("pre", "diff");
          ops.forEach(function (o) {
            if (o[0] !== " " && o[0] !== sign) return;
            add(pre, el("span", "line" + (o[0] === "+" ? " add" : o[0] === "-" ? " del" : ""), o[1]));
          });
          add(box, pre);
        } else add(box, el("pre", null, body));
        add(col, box);
      });
      if (!msgs.length) add(col, el("div", "muted", "none"));
      return col;
    }
    add(grid, column(filtered ? "Agent sent (before)" : "Updates", c.raw.before, c.raw.omitted[0], afterT, "-"));
    if (filtered) add(grid, column("Client received (after)", c.raw.after, c.raw.omitted[1], byT, "+"));
    return grid;
  }

  // ---- conversation ----
  var eventRows = [];
  function renderConversation() {
    var box = document.getElementById("conversation");
    if (!D.conversation.length) { add(box, el("div", "muted", "Nothing said.")); return; }
    D.conversation.forEach(function (e) {
      var row = el("div", "event ev-" + e.kind);
      var body = el("div", "body");
      if (e.title) add(body, el("div", e.kind === "permission" ? "call-title" : null, e.title));
      if (e.text) add(body, text(e.text));
      if (e.kind === "permission") {
        if (e.options) add(body, el("div", "muted", "options: " + e.options.join(" · ")));
        add(body, el("div", "answer", e.answer ? "answered at " + secs(e.answerT) + ": " + e.answer : "not answered in the trace"));
      }
      add(row, el("div", "t", secs(e.t)), el("div", "k", e.kind), body);
      add(box, row);
      eventRows.push({ row: row, e: e, hay: ((e.title || "") + " " + (e.text ? e.text.text + " " + (e.text.tail || "") : "") + " " + (e.answer || "")).toLowerCase() });
    });
  }

  // ---- messages, search and filters ----
  var state = { q: "", dir: "all", method: "all", side: "all" };
  var MAX_ROWS = 400;
  function renderControls() {
    var c = document.getElementById("controls");
    var q = el("input");
    q.type = "search"; q.placeholder = "Search tool calls, conversation and messages…"; q.id = "search";
    var dir = select("dir-filter", [["all", "both directions"], ["0", "client → agent"], ["1", "agent → client"]]);
    var methods = {};
    D.messages.forEach(function (m) { methods[m.m] = (methods[m.m] || 0) + 1; });
    var mopts = [["all", "all methods"]].concat(Object.keys(methods).sort().map(function (k) { return [k, k + " (" + methods[k] + ")"]; }));
    var meth = select("method-filter", mopts);
    add(c, q, dir, meth);
    var side = null;
    if (filtered) {
      side = select("side-filter", [["all", "before and after"], ["b", "received (before)"], ["a", "delivered (after)"]]);
      add(c, side);
    }
    var count = el("span", "muted");
    count.id = "match-count";
    add(c, count);
    function update() {
      state.q = q.value.trim().toLowerCase(); state.dir = dir.value; state.method = meth.value; state.side = side ? side.value : "all";
      applyFilters();
    }
    [q, dir, meth].concat(side ? [side] : []).forEach(function (x) { x.addEventListener("input", update); x.addEventListener("change", update); });
  }
  function select(id, opts) {
    var s = el("select");
    s.id = id;
    opts.forEach(function (o) { var op = el("option", null, o[1]); op.value = o[0]; add(s, op); });
    return s;
  }

  function applyFilters() {
    var q = state.q;
    callRows.forEach(function (r) {
      var c = r.call;
      var hit = !q || ((c.title || "") + " " + c.id + " " + (c.kind || "") + " " + (c.status || "")).toLowerCase().indexOf(q) >= 0;
      r.row.classList.toggle("hidden", !hit);
      // an open row's detail comes back with it when the search is cleared
      if (r.detail) r.detail.classList.toggle("hidden", !hit || !r.row.classList.contains("open"));
    });
    eventRows.forEach(function (r) {
      var dirOK = state.dir === "all" || r.e.dir === (state.dir === "0" ? "client->agent" : "agent->client");
      r.row.classList.toggle("hidden", !(dirOK && (!q || r.hay.indexOf(q) >= 0)));
    });
    renderMessages();
  }

  function renderMessages() {
    var box = document.getElementById("messages");
    box.textContent = "";
    var q = state.q, shown = 0, matched = 0;
    var tb = el("table"), hr = el("tr");
    ["t", filtered ? "side" : null, "direction", "message", "bytes", "tool call", "what"].forEach(function (h) {
      if (h !== null) add(hr, el("th", h === "bytes" ? "num" : null, h));
    });
    add(tb, hr);
    for (var i = 0; i < D.messages.length; i++) {
      var m = D.messages[i];
      if (state.dir !== "all" && String(m.d) !== state.dir) continue;
      if (state.method !== "all" && m.m !== state.method) continue;
      if (state.side !== "all" && m.s !== state.side) continue;
      var call = m.c >= 0 ? D.calls[m.c] : null;
      if (q && (m.m + " " + (m.x || "") + " " + (call ? (call.title || "") + " " + call.id : "")).toLowerCase().indexOf(q) < 0) continue;
      matched++;
      if (shown >= MAX_ROWS) continue;
      shown++;
      var tr = el("tr", "msg-row");
      add(tr, el("td", "num", secs(m.t)));
      // Each received message (#n) is followed by what the filters made of it.
      if (filtered) add(tr, el("td", "side-" + m.s, m.s === "b" ? "before #" + (m.q + 1) : m.tm ? "after: held, released after #" + (m.q + 1) : "after #" + (m.q + 1)));
      var ct = el("td", "call", call ? call.title || call.id : "");
      if (call) ct.title = visible(call.title || call.id);
      add(tr, el("td", "dir", m.d ? "agent → client" : "client → agent"), el("td", "mono label", m.m), el("td", "num", bytes(m.n)),
        ct, el("td", "what", m.x || ""));
      add(tb, tr);
    }
    add(box, tb);
    if (matched > shown) add(box, el("div", "more-note", "Showing the first " + int(shown) + " of " + int(matched) + " matching messages; search or filter to narrow them."));
    if (D.messagesOmitted) add(box, el("div", "more-note", int(D.messagesOmitted) + " messages from the middle of a long trace are not in this page (the figures above count them)."));
    var cnt = document.getElementById("match-count");
    if (cnt) cnt.textContent = int(matched) + " of " + int(D.messages.length) + " messages";
  }

  // ---- live updates ----
  // Each update is the whole data so far: a page that fell behind or
  // reconnected is simply up to date again. What the reader opened,
  // searched and scrolled to stays.
  var liveVersion = 0;
  function liveUpdate(all) {
    ALL = all;
    conns = ALL.connections || [];
    if (!pick) connIndex = Math.max(conns.length - 1, 0);
    D = conns.length ? conns[Math.min(connIndex, conns.length - 1)] : ALL;
    filtered = D.filters.length > 0 || D.flags.length > 0 || D.recorded;
    var open = {};
    callRows.forEach(function (r) { if (r.detail && !r.detail.classList.contains("hidden")) open[r.call.id] = true; });
    var y = window.scrollY, focused = document.activeElement && document.activeElement.id;
    ["top", "overview", "timeline", "controls", "calls", "conversation"].forEach(function (id) { document.getElementById(id).textContent = ""; });
    callRows = []; eventRows = [];
    renderHeader(); renderOverview(); renderTimeline(); renderControls(); renderCalls(); renderConversation();
    callRows.forEach(function (r, i) { if (open[r.call.id]) openCall(i, false); });
    restoreControls(focused);
    applyFilters();
    window.scrollTo(0, y);
    document.documentElement.setAttribute("data-live-version", String(++liveVersion));
  }
  function restoreControls(focused) {
    document.getElementById("search").value = searchText;
    [["dir-filter", "dir"], ["method-filter", "method"], ["side-filter", "side"]].forEach(function (p) {
      var e = document.getElementById(p[0]);
      if (!e) { state[p[1]] = "all"; return; }
      if (Array.prototype.some.call(e.options, function (o) { return o.value === state[p[1]]; })) e.value = state[p[1]];
      else state[p[1]] = e.value;
    });
    var f = focused && document.getElementById(focused);
    if (f) f.focus();
  }
  var searchText = "";
  document.addEventListener("input", function (ev) { if (ev.target && ev.target.id === "search") searchText = ev.target.value; });
  function listen() {
    if (!ALL.live || !ALL.live.running || typeof EventSource === "undefined") return;
    var es = new EventSource("events" + location.search);
    // Only the newest data is drawn: a page slower to draw than the
    // updates come skips to the latest instead of falling behind.
    var newest = null;
    es.addEventListener("data", function (ev) {
      liveLost = false;
      liveWaiting = "";
      var first = newest === null;
      newest = ev.data;
      if (first) setTimeout(function () { var d = newest; newest = null; liveUpdate(JSON.parse(d)); }, 0);
    });
    es.addEventListener("end", function () { es.close(); });
    // Too many pages are open: the server asks this one to try again
    // later, which the browser does by itself.
    es.addEventListener("busy", function (ev) {
      liveWaiting = String(ev.data);
      var old = document.getElementById("live-status");
      if (old) old.parentNode.replaceChild(liveStatus(ALL.live), old);
    });
    es.addEventListener("failed", function () {
      es.close();
      liveFailed = true;
      var old = document.getElementById("live-status");
      if (old) old.parentNode.replaceChild(liveStatus(ALL.live), old);
    });
    es.addEventListener("error", function () {
      if (!ALL.live.running || liveWaiting) return;
      liveLost = true;
      var old = document.getElementById("live-status");
      if (old) old.parentNode.replaceChild(liveStatus(ALL.live), old);
    });
  }

  try {
    renderHeader();
    renderOverview();
    renderTimeline();
    renderControls();
    renderCalls();
    renderConversation();
    renderMessages();
    document.documentElement.setAttribute("data-render-ms", String(Math.round(performance.now())));
    document.documentElement.setAttribute("data-ready", "1");
    listen();
  } catch (err) {
    var main = document.querySelector("main");
    main.insertBefore(el("pre", "ev-error", "This page could not be rendered: " + err), main.firstChild);
    throw err;
  }
})();
