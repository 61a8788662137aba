/* wavemetrics report: the page's own script (inlined; no request leaves the page).
 * Reads the JSON of #wm-data (views/page_data.py describes its shape), draws the
 * timeline and the histogram with plotly.js, and keeps the filters, the chosen wave
 * and the theme in the URL's fragment. Input text only ever reaches the page as
 * textContent, or escaped as entities for plotly's labels. */
(function () {
  "use strict";
  if (window.performance && performance.mark) { performance.mark("wm-start"); }
  var root = document.documentElement;
  var params = new URLSearchParams(location.hash.replace(/^#/, ""));

  function saveState() {
    var text = params.toString();
    history.replaceState(null, "", text ? "#" + text : location.pathname + location.search);
  }

  // -- theme --------------------------------------------------------------------------
  var themeButton = document.getElementById("theme");
  var redraws = [];
  function setTheme(dark, remember) {
    root.setAttribute("data-theme", dark ? "dark" : "light");
    themeButton.setAttribute("aria-pressed", dark ? "true" : "false");
    themeButton.textContent = dark ? "light theme" : "dark theme";
    if (remember) { params.set("theme", dark ? "dark" : "light"); saveState(); }
    redraws.forEach(function (redraw) { redraw(); });
  }
  var prefersDark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  themeButton.addEventListener("click", function () {
    setTheme(root.getAttribute("data-theme") !== "dark", true);
  });
  setTheme(params.get("theme") ? params.get("theme") === "dark" : prefersDark, false);

  var dataElement = document.getElementById("wm-data");
  if (!dataElement || typeof Plotly === "undefined") { return; }
  var data = JSON.parse(dataElement.textContent);
  var waves = data.waves, calls = data.calls, lanes = data.lanes, tools = data.tools;
  var buckets = data.buckets;
  var waveCount = waves.start.length;
  var perCall = calls.wave.length > 0 || waveCount === 0;

  function css(name) { return getComputedStyle(root).getPropertyValue(name).trim(); }
  // plotly reads its labels as a little HTML: input text goes in as entities
  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;")
      .replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function seconds(ms) { return ms === null ? "n/a" : (ms / 1000).toFixed(3) + " s"; }
  function iso(offset) {
    if (offset === null) { return "n/a"; }
    var moment = new Date(data.origin_ms + offset);
    return isNaN(moment.getTime()) ? "n/a" : moment.toISOString().replace(".000Z", "Z");
  }
  // plotly's date axis reads ms since the epoch, but a number of up to 4 digits as a
  // year: such times (a test trace's) go to it as ISO texts, which it parses more slowly
  function when(offset) {
    var ms = data.origin_ms + offset, moment = new Date(ms);
    if (isNaN(moment.getTime())) { return null; }
    return Math.abs(ms) >= 1e5 ? ms : moment.toISOString();
  }
  function serialText(run) {
    return "serial run " + (run + 1) + " of the lane (single read-only calls, one turn" +
      " each: missed batching, an upper bound)";
  }
  function waveName(w) { return "wave " + waves.number[w] + " of " + lanes[waves.lane[w]].label; }

  // -- lanes: rows on the y axis, sub-agent lanes under their session's first ----------
  // past COMPACT lanes, each lane is one row (a wave's calls overlap) and only every
  // step-th lane is named on the axis (hover and the lane filter name them all)
  var COMPACT = 100;
  var compact = lanes.length > COMPACT;
  var step = compact ? Math.ceil(lanes.length / 60) : 1;
  lanes.forEach(function (lane) { if (compact) { lane.rows = 1; } });
  if (compact) {
    var said = document.createElement("p");
    said.className = "aggregated";
    said.id = "compact-lanes";
    said.textContent = "Aggregated: " + lanes.length + " lanes are more than " + COMPACT +
      ", so each lane is one row and every " + step + "th lane is named on the axis" +
      " (hover a bar, or filter by lane, for the others).";
    document.querySelector(".zoom").before(said);
  }
  var laneTop = [], tickValues = [], tickText = [], rowsTotal = 0;
  lanes.forEach(function (lane, index) {
    laneTop.push(rowsTotal);
    if (index % step === 0) {
      tickValues.push(rowsTotal + (lane.rows - 1) / 2);
      tickText.push(esc((lane.sub ? "\u21b3 " : "") + lane.label));
    }
    rowsTotal += lane.rows + (compact ? 0 : 1);
  });
  // the left margin fits the widest lane name on the axis, measured on a canvas in the
  // axis's font: plotly's own automargin measures every label in the SVG and lays the
  // plot out twice (about 0.2 s on a fleet of 1,800 files: docs/performance.md)
  var labelMargin = (function () {
    var context = document.createElement("canvas").getContext("2d");
    if (!context) { return 220; }
    context.font = '12px "Open Sans", verdana, arial, sans-serif';
    var widest = 0;
    tickText.forEach(function (text) {
      var plain = text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"")
        .replace(/&amp;/g, "&");
      widest = Math.max(widest, context.measureText(plain).width);
    });
    return Math.min(Math.max(220, Math.ceil(widest) + 24), 560);
  }());

  // -- filters -------------------------------------------------------------------------
  var laneSelect = document.getElementById("f-lane");
  var toolSelect = document.getElementById("f-tool");
  var sizeInput = document.getElementById("f-size");
  var bucketBoxes = Array.prototype.slice.call(document.querySelectorAll("input[name=bucket]"));
  lanes.forEach(function (lane, index) {
    var option = document.createElement("option");
    option.value = String(index);
    option.textContent = (lane.sub ? "\u21b3 " : "") + lane.label;
    laneSelect.appendChild(option);
  });
  tools.map(function (name, index) { return [name, index]; })
    .sort(function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0; })
    .forEach(function (pair) {
      var option = document.createElement("option");
      option.value = String(pair[1]);
      option.textContent = pair[0];
      toolSelect.appendChild(option);
    });
  function readFilters() {
    var chosen = params.get("bucket");
    var on = chosen === null ? buckets.slice() : chosen.split(",");
    bucketBoxes.forEach(function (box) { box.checked = on.indexOf(box.value) >= 0; });
    laneSelect.value = params.get("lane") || "";
    toolSelect.value = params.get("tool") || "";
    sizeInput.value = params.get("min") || "1";
    if (laneSelect.value !== (params.get("lane") || "")) { laneSelect.value = ""; }
    if (toolSelect.value !== (params.get("tool") || "")) { toolSelect.value = ""; }
  }
  function filters() {
    return {
      buckets: bucketBoxes.filter(function (b) { return b.checked; })
        .map(function (b) { return buckets.indexOf(b.value); }),
      lane: laneSelect.value === "" ? -1 : Number(laneSelect.value),
      tool: toolSelect.value === "" ? -1 : Number(toolSelect.value),
      min: Math.max(1, Number(sizeInput.value) || 1)
    };
  }
  function passes(w, f, ignoreBucket) {
    if (!ignoreBucket && f.buckets.indexOf(waves.bucket[w]) < 0) { return false; }
    if (f.lane >= 0 && waves.lane[w] !== f.lane) { return false; }
    if (f.tool >= 0 && waves.tools[w].indexOf(f.tool) < 0) { return false; }
    return waves.size[w] >= f.min;
  }
  function writeFilters(f) {
    var all = f.buckets.length === buckets.length;
    if (all) { params.delete("bucket"); } else {
      params.set("bucket", f.buckets.map(function (b) { return buckets[b]; }).join(","));
    }
    [["lane", f.lane], ["tool", f.tool]].forEach(function (pair) {
      if (pair[1] < 0) { params.delete(pair[0]); } else { params.set(pair[0], String(pair[1])); }
    });
    if (f.min > 1) { params.set("min", String(f.min)); } else { params.delete("min"); }
    saveState();
  }

  // -- the timeline ------------------------------------------------------------------
  var timeline = document.getElementById("timeline");
  var shown = [];  // the waves that pass the filters, in lane then time order
  var current = -1;  // position in shown of the chosen wave
  var fullRange = null;

  function bucketColour(b) { return css("--" + buckets[b]); }
  function themeLayout() {
    return { paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      font: { color: css("--fg"), size: 12 } };
  }
  // where each call (per-call drawing) or wave (aggregated) is drawn: [trace, point],
  // for the hover a keyboard user gets (Plotly.Fx.hover) when a wave is chosen
  var callPoint = {}, wavePoint = {};
  function timelineTraces(f) {
    var traces = [];
    var visible = {};
    callPoint = {};
    wavePoint = {};
    shown.forEach(function (w) { visible[w] = true; });
    if (!perCall) {  // aggregated: each bucket's waves as one line trace (one SVG path)
      buckets.forEach(function (name, b) {
        var line = { type: "scatter", mode: "lines", name: name + " wave", x: [], y: [],
          hovertext: [], hoverinfo: "text", connectgaps: false, showlegend: false,
          line: { color: bucketColour(b), width: compact ? 3 : 8 } };
        shown.forEach(function (w) {
          if (waves.bucket[w] !== b || waves.start[w] === null || when(waves.start[w]) === null) {
            return;
          }
          var y = laneTop[waves.lane[w]] + (lanes[waves.lane[w]].rows - 1) / 2;
          var text = esc(waveName(w)) + "<br>" + name + ", " + waves.size[w] + " calls, start " +
            iso(waves.start[w]) + "<br>span " + seconds(waves.span[w]) + ", saving " +
            seconds(waves.saved[w]);
          wavePoint[w] = [traces.length, line.x.length];
          line.x.push(when(waves.start[w]), when(waves.start[w] + (waves.span[w] || 0)), null);
          line.y.push(y, y, null);
          line.hovertext.push(text, text, "");
        });
        traces.push(line);
      });
      return traces;
    }
    buckets.forEach(function (name, b) {
      var band = { type: "bar", orientation: "h", name: name + " wave", base: [], x: [], y: [],
        width: [], customdata: [], hovertext: [], showlegend: false,
        hoverinfo: "skip",
        marker: { color: bucketColour(b), opacity: 0.16,
          line: { color: bucketColour(b), width: 1.5 } } };
      shown.forEach(function (w) {
        if (waves.bucket[w] !== b || waves.start[w] === null || when(waves.start[w]) === null) {
          return;
        }
        var lane = lanes[waves.lane[w]];
        band.base.push(when(waves.start[w]));
        band.x.push(Math.max(waves.span[w] || 0, 0));
        band.y.push(laneTop[waves.lane[w]] + (lane.rows - 1) / 2);
        band.width.push(lane.rows - 0.15);
        band.customdata.push(w);
        band.hovertext.push(esc(waveName(w)) + "<br>" + name + ", " + waves.size[w] +
          " calls, start " + iso(waves.start[w]) + "<br>span " + seconds(waves.span[w]) +
          ", saving " + seconds(waves.saved[w]));
      });
      traces.push(band);
    });
    // per bucket: the plain call bars, then the calls in a serial run of single
    // read-only calls (docs/metrics.md section 9), outlined and hatched in --serial
    buckets.forEach(function (name, b) {
      var bars = { type: "bar", orientation: "h", name: name + " call", base: [], x: [], y: [],
        customdata: [], hovertext: [], hoverinfo: "text", width: 0.72,
        marker: { color: bucketColour(b), line: { color: bucketColour(b), width: 1 } } };
      var serial = { type: "bar", orientation: "h", name: name + " serial call", base: [],
        x: [], y: [], customdata: [], hovertext: [], hoverinfo: "text", width: 0.72,
        marker: { color: bucketColour(b), line: { color: css("--serial"), width: 2.5 },
          pattern: { shape: "/", fillmode: "overlay", fgcolor: css("--serial"), size: 6,
            solidity: 0.3 } } };
      for (var c = 0; c < calls.wave.length; c++) {
        var w = calls.wave[c];
        if (!visible[w] || waves.bucket[w] !== b || calls.start[c] === null ||
            when(calls.start[c]) === null) { continue; }
        var run = calls.run[c], into = run >= 0 ? serial : bars;
        callPoint[c] = [traces.length + (run >= 0 ? 1 : 0), into.x.length];
        into.base.push(when(calls.start[c]));
        into.x.push(calls.dur[c] || 0);
        into.y.push(laneTop[waves.lane[w]] + (compact ? 0 : calls.row[c]));
        into.customdata.push(c);
        into.hovertext.push("<b>" + esc(tools[calls.tool[c]]) + "</b><br>start " +
          iso(calls.start[c]) + "<br>duration " + seconds(calls.dur[c]) + "<br>" +
          esc(waveName(w)) + " (" + name + ", " + waves.size[w] + " calls)<br>wave saving " +
          seconds(waves.saved[w]) + (run >= 0 ? "<br>" + serialText(run) : ""));
      }
      traces.push(bars, serial);
    });
    return traces;
  }
  function timelineLayout() {
    var height = Math.max(220, Math.min(2400, 70 + rowsTotal * (compact ? 4 : 16)));
    var layout = themeLayout();
    layout.height = height;
    layout.margin = { l: labelMargin, r: 20, t: 10, b: 40 };
    layout.barmode = "overlay";
    layout.hovermode = "closest";
    layout.dragmode = "zoom";
    layout.showlegend = false;
    layout.xaxis = { type: "date", gridcolor: css("--grid"), title: { text: "time (UTC)" } };
    layout.yaxis = { autorange: "reversed", tickvals: tickValues, ticktext: tickText,
      zeroline: false, showgrid: false, fixedrange: true, automargin: false };
    layout.shapes = [];
    layout.hoverlabel = { align: "left" };
    return layout;
  }
  var config = { displaylogo: false, responsive: true, scrollZoom: false,
    modeBarButtonsToRemove: ["toImage", "sendDataToCloud", "lasso2d", "select2d"] };

  function counts(f) {
    var perBucket = [0, 0, 0];
    for (var w = 0; w < waveCount; w++) { if (passes(w, f, true)) { perBucket[waves.bucket[w]]++; } }
    buckets.forEach(function (name, b) {
      document.querySelector("[data-count=" + name + "]").textContent = "(" + perBucket[b] + ")";
    });
  }
  function shownCalls() {
    var n = 0;
    shown.forEach(function (w) { n += waves.size[w]; });
    return n;
  }
  function update(keepWave) {
    var f = filters();
    writeFilters(f);
    shown = [];
    for (var w = 0; w < waveCount; w++) { if (passes(w, f, false)) { shown.push(w); } }
    counts(f);
    document.getElementById("shown").textContent = shown.length + " of " + waveCount +
      " waves shown (" + shownCalls() + " calls)";
    Plotly.react(timeline, timelineTraces(f), timelineLayout(), config);
    tagTraces();
    fullRange = timeline._fullLayout.xaxis.range.slice();
    topWaves();
    var wanted = keepWave && params.has("wave") ? Number(params.get("wave")) : NaN;
    current = shown.indexOf(wanted);
    if (current >= 0) { choose(current, false); } else { params.delete("wave"); saveState(); }
  }

  // -- the chosen wave: detail, highlight, zoom ---------------------------------------
  var detail = document.getElementById("wave-detail");
  function choose(position, focusDetail) {
    if (!shown.length) { detail.textContent = "No wave passes the filters."; return; }
    current = (position + shown.length) % shown.length;
    var w = shown[current];
    params.set("wave", String(w));
    saveState();
    detail.textContent = "";
    var head = document.createElement("p");
    head.textContent = "Wave " + (current + 1) + " of " + shown.length + " shown: " +
      waveName(w) + ", " + buckets[waves.bucket[w]] + ", " + waves.size[w] + " calls, start " +
      iso(waves.start[w]) + ", span " + seconds(waves.span[w]) + ", saving " +
      seconds(waves.saved[w]) + (waves.bucket[w] === 0 ? "" : " (not counted: not non_eval)");
    detail.appendChild(head);
    var list = document.createElement("ol");
    // the wave's calls, in drawing order: listed here, and stepped through by hoverCall
    waveCalls = [];
    for (var k = 0; k < calls.wave.length; k++) { if (calls.wave[k] === w) { waveCalls.push(k); } }
    if (perCall) {
      waveCalls.forEach(function (c) {
        var item = document.createElement("li");
        item.textContent = tools[calls.tool[c]] + ", start " + iso(calls.start[c]) +
          ", duration " + seconds(calls.dur[c]) +
          (calls.run[c] >= 0 ? ", " + serialText(calls.run[c]) : "");
        list.appendChild(item);
      });
    } else {
      waves.tools[w].forEach(function (t) {
        var item = document.createElement("li");
        item.textContent = tools[t];
        list.appendChild(item);
      });
    }
    detail.appendChild(list);
    var start = data.origin_ms + waves.start[w], span = Math.max(waves.span[w] || 0, 1);
    var pad = Math.max(span * 0.6, 500);
    var lane = lanes[waves.lane[w]], top = laneTop[waves.lane[w]];
    var axis = timeline._fullLayout.xaxis;
    Plotly.relayout(timeline, {
      "xaxis.range": [axis.l2r(start - pad), axis.l2r(start + span + pad)],
      shapes: [{ type: "rect", xref: "x", yref: "y", x0: axis.l2r(start),
        x1: axis.l2r(start + span), y0: top - 0.5, y1: top + lane.rows - 0.5,
        line: { color: css("--focus"), width: 3 }, fillcolor: "rgba(0,0,0,0)" }]
    });
    Array.prototype.forEach.call(document.querySelectorAll("#top-waves tr.current"),
      function (row) { row.classList.remove("current"); });
    var row = document.querySelector("#top-waves tr[data-wave='" + w + "']");
    if (row) { row.classList.add("current"); }
    hoverCall(0);
    if (focusDetail) { detail.focus(); }
  }
  // the chosen wave's hover label: its first call's (or, aggregated, the wave's), then
  // the arrow keys on the focused timeline step through its calls: what hovering with a
  // mouse shows (tool, start, duration, wave, the wave's saving), by keyboard
  var waveCalls = [], callCursor = 0;
  function hoverCall(position) {
    if (current < 0 || !shown.length) { return; }
    var point;
    if (perCall && waveCalls.length) {
      callCursor = (position + waveCalls.length) % waveCalls.length;
      point = callPoint[waveCalls[callCursor]];
    } else {
      point = wavePoint[shown[current]];
    }
    if (point) { Plotly.Fx.hover(timeline, [{ curveNumber: point[0], pointNumber: point[1] }]); }
  }
  timeline.addEventListener("keydown", function (event) {
    if (event.key === "ArrowRight" || event.key === "ArrowDown") { hoverCall(callCursor + 1); }
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") { hoverCall(callCursor - 1); }
    else if (event.key === "Escape") { Plotly.Fx.unhover(timeline); }
    else { return; }
    event.preventDefault();
  });
  document.getElementById("wave-next").addEventListener("click", function () { choose(current + 1, false); });
  document.getElementById("wave-prev").addEventListener("click", function () {
    choose(current < 0 ? -1 : current - 1, false);
  });
  document.addEventListener("keydown", function (event) {
    var tag = (event.target && event.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || event.ctrlKey ||
        event.metaKey || event.altKey) { return; }
    if (event.key === "n") { choose(current + 1, false); event.preventDefault(); }
    if (event.key === "p") { choose(current < 0 ? -1 : current - 1, false); event.preventDefault(); }
  });

  // -- zoom buttons ---------------------------------------------------------------------
  function zoom(factor) {
    var axis = timeline._fullLayout.xaxis;
    var low = axis.r2l(axis.range[0]), high = axis.r2l(axis.range[1]);
    var middle = (low + high) / 2, half = (high - low) * factor / 2;
    Plotly.relayout(timeline, { "xaxis.range": [axis.l2r(middle - half), axis.l2r(middle + half)] });
  }
  document.getElementById("zoom-in").addEventListener("click", function () { zoom(0.5); });
  document.getElementById("zoom-out").addEventListener("click", function () { zoom(2); });
  document.getElementById("zoom-reset").addEventListener("click", function () {
    Plotly.relayout(timeline, { "xaxis.autorange": true, shapes: [] });
  });

  // -- the waves that saved most --------------------------------------------------------
  function topWaves() {
    var body = document.querySelector("#top-waves tbody");
    body.textContent = "";
    var ranked = shown.filter(function (w) { return waves.saved[w] !== null; })
      .sort(function (a, b) { return waves.saved[b] - waves.saved[a] || a - b; }).slice(0, 50);
    ranked.forEach(function (w) {
      var row = document.createElement("tr");
      row.setAttribute("data-wave", String(w));
      var first = document.createElement("td");
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = "show wave " + waves.number[w];
      button.addEventListener("click", function () { choose(shown.indexOf(w), true); });
      first.appendChild(button);
      row.appendChild(first);
      var names = {};
      waves.tools[w].forEach(function (t) { names[tools[t]] = (names[tools[t]] || 0) + 1; });
      var toolText = Object.keys(names).map(function (n) {
        return names[n] > 1 ? n + " x" + names[n] : n;
      }).join(", ");
      [lanes[waves.lane[w]].label, buckets[waves.bucket[w]], String(waves.size[w]),
        (waves.span[w] === null ? "n/a" : (waves.span[w] / 1000).toFixed(3)),
        (waves.saved[w] / 1000).toFixed(3), toolText].forEach(function (text, i) {
        var cell = document.createElement("td");
        cell.textContent = text;
        if (i === 0 || i === 5) { cell.className = "name"; }
        row.appendChild(cell);
      });
      body.appendChild(row);
    });
  }

  // -- the histogram ------------------------------------------------------------------
  var histogramElement = document.getElementById("histogram");
  var rows = Array.prototype.map.call(document.querySelectorAll("#histogram-table tbody tr"),
    function (row) { return Array.prototype.map.call(row.cells, function (c) { return Number(c.textContent); }); });
  function drawHistogram() {
    var traces = buckets.map(function (name, b) {
      return { type: "bar", name: name, x: rows.map(function (r) { return String(r[0]); }),
        y: rows.map(function (r) { return r[b + 1]; }), marker: { color: bucketColour(b) } };
    });
    var layout = themeLayout();
    layout.barmode = "stack";
    layout.height = 260;
    layout.margin = { l: 50, r: 10, t: 10, b: 40 };
    layout.xaxis = { type: "category", title: { text: "calls in the wave" } };
    layout.yaxis = { title: { text: "waves" }, gridcolor: css("--grid") };
    Plotly.react(histogramElement, traces, layout, config);
  }

  [laneSelect, toolSelect, sizeInput].forEach(function (control) {
    control.addEventListener("change", function () { update(false); });
  });
  sizeInput.addEventListener("input", function () { update(false); });
  bucketBoxes.forEach(function (box) { box.addEventListener("change", function () { update(false); }); });
  document.getElementById("f-reset").addEventListener("click", function () {
    ["bucket", "lane", "tool", "min", "wave"].forEach(function (key) { params.delete(key); });
    readFilters();
    update(false);
  });
  window.addEventListener("hashchange", function () {
    params = new URLSearchParams(location.hash.replace(/^#/, ""));
    readFilters();
    update(true);
  });
  // each bar trace's group says what it draws (data-trace: call or wave; data-serial on
  // the calls of serial runs), for tests and for user style sheets; after each drawing
  function tagTraces() {
    Array.prototype.forEach.call(timeline.querySelectorAll(".barlayer .trace.bars"), function (g) {
      var cd = g.__data__, trace = cd && cd[0] && cd[0].trace;
      if (!trace) { return; }
      g.setAttribute("data-trace", / call$/.test(trace.name) ? "call" : "wave");
      if (/ serial call$/.test(trace.name)) { g.setAttribute("data-serial", "true"); }
      else { g.removeAttribute("data-serial"); }
    });
  }
  redraws.push(function () { update(true); drawHistogram(); });
  readFilters();
  update(true);
  drawHistogram();
  if (window.performance && performance.mark) { performance.mark("wm-ready"); }
  root.setAttribute("data-ready", "true");
}());
