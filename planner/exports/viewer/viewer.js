"use strict";
// The plan viewer (planner/viewer, docs/viewer.md): reads the data block of this page, draws
// the floor on a canvas and answers "where does this cable go". Text from the plan reaches the
// page only through textContent and the canvas, never as markup.
(() => {
  const $ = (id) => document.getElementById(id);
  const NUMBER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
  const num = (v, digits) => (v === null || v === undefined || Number.isNaN(v)) ? "" :
    (digits === undefined ? NUMBER.format(v) :
      v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }));
  let CURRENCY = "USD";   // ISO 4217 code of the plan's prices (summary cost.price_basis)
  const money = (v) => CURRENCY + " " + num(v, 2);
  const COMPACT = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 2 });
  const short = (v) => (v === null || v === undefined || Number.isNaN(v)) ? "" : COMPACT.format(v);
  const ROUTE_CAP = 20000;     // routes drawn at once for "routes of filtered cables"
  const ROW_H = 26;            // px per row of the cable lists
  // ColorBrewer Set3, as wiring.pdf colours electrical groups (group % 12)
  const GROUPS = ["#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69",
    "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"];
  // ColorBrewer YlOrRd (9 classes) for counts and kW; one darker step for "over budget"
  const RAMP = ["#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c",
    "#bd0026", "#800026"];
  const OVER = "#3f007d";
  const UNMEASURED = "#f1f5f9";   // cabinets without routers: not a failure group
  // patch racks: violet, apart from every cabinet colour above
  const PATCH_RACK_FILL = "#ede9fe", PATCH_RACK_EDGE = "#6d28d9";

  function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "text") e.textContent = v;
      else if (k === "class") e.className = v;
      else if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
      else if (k === "data") Object.assign(e.dataset, v);
      else e.setAttribute(k, v);
    }
    for (const kid of kids.flat()) {
      if (kid !== null && kid !== undefined && kid !== false) {
        e.append(kid instanceof Node ? kid : String(kid));
      }
    }
    return e;
  }
  const link = (text, hash, props) => el("a", Object.assign({ href: hash, text }, props || {}));
  const hashOf = (kind, value) => "#" + kind + "=" + encodeURIComponent(value);

  // ------------------------------------------------------------------ the data block
  const TYPES = { u1: Uint8Array, i1: Int8Array, u2: Uint16Array, i2: Int16Array, i4: Int32Array,
    f8: Float64Array };

  async function inflate(text) {
    let bytes;
    if (typeof Uint8Array.fromBase64 === "function") bytes = Uint8Array.fromBase64(text);
    else {
      const bin = atob(text);
      bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    }
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  function column(spec, rows, buffer, base, tables) {
    const view = spec.dtype ? new TYPES[spec.dtype](buffer, base + spec.offset, rows) : null;
    if (spec.type === "num") {
      let data = view;
      if (spec.scale || "null" in spec) {
        const scale = spec.scale || 1, nil = "null" in spec ? spec.null : NaN;
        data = new Float64Array(rows);
        for (let i = 0; i < rows; i++) data[i] = view[i] === nil ? NaN : view[i] / scale;
      }
      return { type: "num", data, text: (i) => Number.isNaN(data[i]) ? "" : String(data[i]) };
    }
    if (spec.type === "ref") {
      const other = tables[spec.table].cols[spec.column];
      return { type: "ref", codes: view, table: spec.table,
        text: (i) => view[i] < 0 ? "" : other.text(view[i]) };
    }
    if (spec.type === "seq") {
      // runs of numbered names: row k of a run is prefix + (first + k) padded to width digits
      const runs = [];
      let from = 0;
      for (const [prefix, width, first, count] of spec.runs) {
        runs.push([from, from + count, prefix, width, first]);
        from += count;
      }
      return { type: "seq", codes: null, text: (i) => {
        for (const [lo, hi, prefix, width, first] of runs) {
          if (i >= lo && i < hi) return prefix + String(first + i - lo).padStart(width, "0");
        }
        return "";
      } };
    }
    const values = spec.values;
    if (!view) return { type: "str", values, codes: null, text: (i) => values[i] };
    return { type: "str", values, codes: view, text: (i) => values[view[i]] };
  }

  class Table {
    constructor(spec, buffer, base, tables) {
      this.rows = spec.rows;
      this.names = spec.columns.map((c) => c.name);
      this.cols = {};
      for (const c of spec.columns) this.cols[c.name] = column(c, spec.rows, buffer, base, tables);
    }
    has(name) { return name in this.cols; }
    num(name) { return this.cols[name].data; }
    text(name, i) { return this.cols[name].text(i); }
    // dictionary codes and values of a text column (built once for plain text columns)
    dict(name) {
      const c = this.cols[name];
      if (c.dict) return c.dict;
      if (c.type === "str" && c.codes) c.dict = { codes: c.codes, values: c.values };
      else {
        const index = new Map(), values = [], codes = new Int32Array(this.rows);
        for (let i = 0; i < this.rows; i++) {
          const t = c.text(i);
          let k = index.get(t);
          if (k === undefined) { k = values.length; index.set(t, k); values.push(t); }
          codes[i] = k;
        }
        c.dict = { codes, values };
      }
      return c.dict;
    }
  }

  function decode(bytes) {
    const n = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + n)));
    const base = bytes.byteOffset + ((4 + n + 7) & ~7);
    const tables = {};
    for (const [name, spec] of Object.entries(header.tables)) {
      tables[name] = new Table(spec, bytes.buffer, base, tables);
    }
    return { meta: header.meta, tables };
  }

  // ------------------------------------------------------------------ the plan model
  let P;   // everything the views read, built by model()

  function rowCodes(table, name, target) {
    // row numbers in ``target`` of a text column that names them (ref columns are already)
    const c = table.cols[name];
    if (c.type === "ref") return c.codes;
    const index = new Map();
    for (let i = 0; i < target.rows; i++) index.set(target.text("name", i), i);
    const out = new Int32Array(table.rows);
    for (let i = 0; i < table.rows; i++) {
      const k = index.get(c.text(i));
      out[i] = k === undefined ? -1 : k;
    }
    return out;
  }

  function model(data) {
    const t = data.tables, meta = data.meta;
    const cab = t.cabinets, shape = t.cabinet_shapes, cables = t.cables, dev = t.devices;
    const nCab = cab.rows, nCables = cables.rows;
    const aCab = rowCodes(cables, "a_cabinet", cab), bCab = rowCodes(cables, "b_cabinet", cab);
    // cables of each cabinet (both ends; a cable inside one cabinet once)
    const start = new Int32Array(nCab + 1);
    for (let i = 0; i < nCables; i++) {
      start[aCab[i] + 1]++;
      if (bCab[i] !== aCab[i]) start[bCab[i] + 1]++;
    }
    for (let c = 0; c < nCab; c++) start[c + 1] += start[c];
    const fill = start.slice(0, nCab), list = new Int32Array(start[nCab]);
    for (let i = 0; i < nCables; i++) {
      list[fill[aCab[i]]++] = i;
      if (bCab[i] !== aCab[i]) list[fill[bCab[i]]++] = i;
    }
    const devCab = rowCodes(dev, "cabinet", cab);
    const devStart = new Int32Array(nCab + 1);
    for (let i = 0; i < dev.rows; i++) devStart[devCab[i] + 1]++;
    for (let c = 0; c < nCab; c++) devStart[c + 1] += devStart[c];
    const devFill = devStart.slice(0, nCab), devList = new Int32Array(dev.rows);
    for (let i = 0; i < dev.rows; i++) devList[devFill[devCab[i]]++] = i;
    const counts = t.routes.num("points"), routeStart = new Float64Array(nCables + 1);
    for (let i = 0; i < nCables; i++) routeStart[i + 1] = routeStart[i] + counts[i];
    const cabIndex = new Map();
    for (let c = 0; c < nCab; c++) cabIndex.set(cab.text("name", c), c);
    const budget = meta.kw_budget || null;
    const racks = meta.floor.patch_racks || [], rackIndex = new Map();
    racks.forEach((r, k) => { rackIndex.set(r.name, k); for (const p of r.panels) rackIndex.set(p[0], k); });
    return {
      racks, rackIndex,
      meta, summary: meta.summary, geo: meta.floor, cab, shape, cables, dev, bom: t.bom,
      nCab, nCables, aCab, bCab, cabStart: start, cabList: list, devCab, devStart, devList,
      routeStart, routeNode: t.route_points.cols.node.data, nodeX: t.route_nodes.num("x"),
      routeStep: t.route_points.dict("step"), routeMetres: t.route_points.num("metres"),
      nodeY: t.route_nodes.num("y"), routeKind: t.routes.dict("kind"), cabIndex,
      x: shape.num("x"), y: shape.num("y"), front: shape.num("front"),
      group: cab.has("group") ? cab.num("group") : null,
      kw: cab.has("kw") ? cab.num("kw") : null, kwBudget: budget,
      aDev: rowCodes(cables, "a_device", dev), bDev: rowCodes(cables, "b_device", dev),
      devIndex: null, searchIndex: null,
      fail: failureModel(t, meta, cab, nCab),
    };
  }

  // ------------------------------------------------------------------ resilience layer
  function failureModel(t, meta, cab, nCab) {
    // θ after each cabinet fails (over the intact θ; NaN: not a failure group) and every tray
    // segment with its cables (planner/exports/viewer/resilience.py)
    const info = meta.resilience || { cabinet: { measured: false, why: "" }, tray: { measured: false, why: "" } };
    const ratio = new Float64Array(nCab).fill(NaN), theta = new Float64Array(nCab).fill(NaN);
    const lost = new Float64Array(nCab).fill(NaN), cut = new Float64Array(nCab).fill(NaN);
    const fc = t.fail_cabinets;
    if (fc && fc.rows && fc.has("theta_ratio")) {
      const rows = rowCodes(fc, "cabinet", cab), r = fc.num("theta_ratio"), th = fc.num("theta");
      const l = fc.num("endpoints_lost"), p = fc.num("pairs_cut");
      for (let k = 0; k < fc.rows; k++) {
        if (rows[k] < 0) continue;
        ratio[rows[k]] = r[k]; theta[rows[k]] = th[k]; lost[rows[k]] = l[k]; cut[rows[k]] = p[k];
      }
    }
    const ft = t.fail_trays, nTray = ft ? ft.rows : 0, trayStart = new Int32Array(nTray + 1);
    if (nTray) { const n = ft.num("cables"); for (let k = 0; k < nTray; k++) trayStart[k + 1] = trayStart[k] + n[k]; }
    const measuredTray = nTray > 0 && ft.has("theta_ratio");
    const trayIndex = new Map();
    for (let k = 0; k < nTray; k++) trayIndex.set(ft.text("name", k), k);
    return {
      info, ratio, theta, lost, cut, nTray, trayStart, trayIndex, trays: ft,
      trayCables: nTray ? t.fail_tray_cables.num("cable") : new Int32Array(0),
      trayRatio: measuredTray ? ft.num("theta_ratio") : null,
      trayTheta: measuredTray ? ft.num("theta") : null,
      trayCut: measuredTray ? ft.num("pairs_cut") : null,
      trayPaths: info.tray_paths || {},
    };
  }

  function ratioRange(values) {
    // the θ ratios a ramp spans: the worst measured (darkest) to the best (lightest), so the
    // groups that matter most stand out however close they are; the legend gives both ends
    let lo = Infinity, hi = -Infinity;
    for (const r of values || []) if (!Number.isNaN(r)) { lo = Math.min(lo, r); hi = Math.max(hi, r); }
    return lo === Infinity ? [0, 1] : [lo, hi];
  }

  function rangeDigits(lo, hi) {   // enough decimals to tell the two ends of a ramp apart
    return hi > lo ? Math.min(6, Math.max(3, Math.ceil(-Math.log10(hi - lo)) + 1)) : 3;
  }

  function ratioColour(r, lo, hi) {
    if (Number.isNaN(r)) return UNMEASURED;
    const f = hi > lo ? (hi - r) / (hi - lo) : 0;     // 0 at the best, 1 at the worst
    return RAMP[Math.min(RAMP.length - 1, Math.max(0, Math.floor(f * RAMP.length)))];
  }

  function trayPoints(k) {
    const name = P.fail.trays.text("name", k), path = P.fail.trayPaths[name];
    if (path) return path;
    const t = P.fail.trays;
    return [[t.num("x0")[k], t.num("y0")[k]], [t.num("x1")[k], t.num("y1")[k]]];
  }

  function drawTrays(X, Y) {
    // every tray segment that carries a network cable, in the colour of θ after it fails
    const [lo, hi] = ratioRange(P.fail.trayRatio);
    ctx.lineCap = "butt";
    for (let k = 0; k < P.fail.nTray; k++) {
      const pts = trayPoints(k);
      const colour = P.fail.trayRatio ? ratioColour(P.fail.trayRatio[k], lo, hi) : "#475569";
      const edge = k === view.selTray ? "#ea580c" : "#102a43";
      for (const [style, width] of [[edge, 8], [colour, 5]]) {
        ctx.strokeStyle = style;
        ctx.lineWidth = k === view.selTray ? width + 4 : width;
        ctx.beginPath();
        pts.forEach(([px, py], i) => (i ? ctx.lineTo(X(px), Y(py)) : ctx.moveTo(X(px), Y(py))));
        ctx.stroke();
      }
    }
  }

  function trayAt(px, py) {
    // the tray segment drawn within 6 px of a screen point (the nearest), or -1
    let best = -1, bestD = 6;
    for (let k = 0; k < P.fail.nTray; k++) {
      const pts = trayPoints(k);
      for (let i = 1; i < pts.length; i++) {
        const ax = pts[i - 1][0] * cam.s + cam.ox, ay = pts[i - 1][1] * cam.s + cam.oy;
        const bx = pts[i][0] * cam.s + cam.ox, by = pts[i][1] * cam.s + cam.oy;
        const dx = bx - ax, dy = by - ay, len = dx * dx + dy * dy;
        const u = len ? Math.min(1, Math.max(0, ((px - ax) * dx + (py - ay) * dy) / len)) : 0;
        const d = Math.hypot(px - ax - u * dx, py - ay - u * dy);
        if (d < bestD) { bestD = d; best = k; }
      }
    }
    return best;
  }

  function ratioText(ratio, theta) {
    return num(ratio, 3) + " of intact (θ " + num(theta, 3) + ")";
  }

  // ------------------------------------------------------------------ cable filter
  const filter = { media: null, sku: null, kind: null, route: null, min: null, max: null };
  let matches = null;        // Int32Array of cable rows passing the filter
  let cabCount = null;       // filtered cables per cabinet

  function field(key, title, dicts) {
    // a filter over one or more text columns with one list of values: part numbers are the
    // cable's (or its fibre's) and the transceivers' at each end; "" (no part) is no value
    const values = [...new Set(dicts.flatMap((d) => d.values))].filter((v) => v !== "").sort();
    const index = new Map(values.map((v, k) => [v, k]));
    const columns = dicts.map((d) => [d.codes, Int32Array.from(d.values, (v) => index.has(v) ? index.get(v) : -1)]);
    const counts = new Int32Array(values.length), seen = [];
    for (let i = 0; i < P.nCables; i++) {
      seen.length = 0;
      for (const [codes, map] of columns) {
        const k = map[codes[i]];
        if (k >= 0 && !seen.includes(k)) { counts[k]++; seen.push(k); }
      }
    }
    return { key, title, values, columns, counts };
  }

  function filterFields() {
    if (!P.fields) {
      const c = P.cables, parts = P.meta.part_columns.filter((n) => c.has(n));
      P.fields = [field("media", "Media", [c.dict("media")]), field("kind", "Kind", [c.dict("kind")]),
        field("sku", "Part number", parts.map((n) => c.dict(n))),
        field("route", "Route kind", [P.routeKind])].filter((f) => f.values.length > 0);
    }
    return P.fields;
  }

  function applyFilter() {
    const n = P.nCables, length = P.cables.num("length_m");
    const tests = filterFields().filter((f) => filter[f.key]).map((f) => [f.columns, filter[f.key]]);
    const lo = filter.min === null ? -Infinity : filter.min;
    const hi = filter.max === null ? Infinity : filter.max;
    const out = new Int32Array(n);
    let m = 0;
    outer: for (let i = 0; i < n; i++) {
      for (const [columns, allowed] of tests) {
        let hit = false;
        for (const [codes, map] of columns) if (allowed.has(map[codes[i]])) { hit = true; break; }
        if (!hit) continue outer;
      }
      const len = length[i];
      if (len < lo || len > hi) continue;
      out[m++] = i;
    }
    matches = out.subarray(0, m);
    recount();
  }

  // ------------------------------------------------------------------ floor view
  const canvas = $("floor"), ctx = canvas.getContext("2d");
  const cam = { s: 1, ox: 0, oy: 0, fit: 1 };
  const view = { colour: "group", routes: false, trays: false, selCab: -1, selDev: -1, selRack: -1,
    selTray: -1, traced: -1 };
  let pending = false;

  function requestDraw() {
    if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; draw(); }); }
  }

  function worldBounds() {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const h of P.geo.halls) {
      x0 = Math.min(x0, h.x0); y0 = Math.min(y0, h.y0);
      x1 = Math.max(x1, h.x1); y1 = Math.max(y1, h.y1);
    }
    for (const l of P.geo.links) {
      for (const [x, y] of l.points) {
        x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
      }
    }
    return [x0, y0, x1, y1];
  }

  function fitTo(x0, y0, x1, y1, maxScale) {
    // fit a world box into the canvas below the tool bar and above the legend
    const w = canvas.clientWidth, pad = 24;
    const top = $("floor-tools").offsetHeight + 34, bottom = $("legend").offsetHeight + 16;
    const h = Math.max(canvas.clientHeight - top - bottom, 40);
    const s = Math.min((w - 2 * pad) / Math.max(x1 - x0, 1e-6),
      h / Math.max(y1 - y0, 1e-6), maxScale || Infinity);
    cam.s = Math.max(s, 1e-6);
    cam.ox = w / 2 - cam.s * (x0 + x1) / 2;
    cam.oy = top + h / 2 - cam.s * (y0 + y1) / 2;
    requestDraw();
  }

  function fitAll() {
    const b = worldBounds();
    fitTo(...b);
    cam.fit = cam.s;
  }

  function resize() {
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    canvas.width = Math.max(1, Math.round(w * dpr));
    canvas.height = Math.max(1, Math.round(h * dpr));
    requestDraw();
  }

  function zoomAt(px, py, factor) {
    const s = Math.min(Math.max(cam.s * factor, cam.fit / 8), 600);
    const f = s / cam.s;
    cam.ox = px - (px - cam.ox) * f;
    cam.oy = py - (py - cam.oy) * f;
    cam.s = s;
    requestDraw();
  }

  function cabinetColours() {
    // one colour per cabinet, and the legend for it
    const n = P.nCab, colour = new Array(n);
    if (view.colour === "kw" && P.kw) {
      const budget = P.kwBudget || Math.max(...P.kw, 1e-9);
      for (let c = 0; c < n; c++) {
        const r = P.kw[c] / budget;
        colour[c] = r > 1 + 1e-9 ? OVER : RAMP[Math.min(RAMP.length - 1, Math.floor(r * RAMP.length))];
      }
      return { colour, legend: ["kW", 0, budget, P.kwBudget ? "budget" : "peak"] };
    }
    if (view.colour === "cables") {
      let top = 1;
      for (let c = 0; c < n; c++) top = Math.max(top, cabCount[c]);
      for (let c = 0; c < n; c++) {
        colour[c] = cabCount[c] === 0 ? "#ffffff" :
          RAMP[Math.min(RAMP.length - 1, Math.floor(cabCount[c] / top * (RAMP.length - 1e-9)))];
      }
      return { colour, legend: ["cables", 0, top, "most"] };
    }
    if (view.colour === "theta" && P.fail.info.cabinet.measured) {
      const [lo, hi] = ratioRange(P.fail.ratio);
      for (let c = 0; c < n; c++) colour[c] = ratioColour(P.fail.ratio[c], lo, hi);
      return { colour, legend: ["theta", lo, hi, "θ after the cabinet fails / intact θ"] };
    }
    for (let c = 0; c < n; c++) colour[c] = P.group ? GROUPS[P.group[c] % GROUPS.length] : GROUPS[0];
    return { colour, legend: null };
  }

  function drawRoute(i) {
    const a = P.routeStart[i], b = P.routeStart[i + 1];
    for (let k = a; k < b; k++) {
      const node = P.routeNode[k];
      const sx = P.nodeX[node] * cam.s + cam.ox, sy = P.nodeY[node] * cam.s + cam.oy;
      if (k === a) ctx.moveTo(sx, sy); else ctx.lineTo(sx, sy);
    }
  }

  const stats = { drawMs: 0, draws: 0, indexMs: null };   // read by benchmarks/bench_viewer.py

  function draw() {
    const started = performance.now();
    const dpr = window.devicePixelRatio || 1, W = canvas.clientWidth, H = canvas.clientHeight;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#e4e7eb";
    ctx.fillRect(0, 0, W, H);
    const s = cam.s, X = (x) => x * s + cam.ox, Y = (y) => y * s + cam.oy;
    const geo = P.geo;
    ctx.lineWidth = 1;
    for (const h of geo.halls) {
      ctx.fillStyle = "#ffffff";
      ctx.strokeStyle = "#52606d";
      ctx.fillRect(X(h.x0), Y(h.y0), (h.x1 - h.x0) * s, (h.y1 - h.y0) * s);
      ctx.strokeRect(X(h.x0), Y(h.y0), (h.x1 - h.x0) * s, (h.y1 - h.y0) * s);
    }
    for (const a of geo.aisles) {
      ctx.fillStyle = a.kind === "cold" ? "#dbeafe" : a.kind === "hot" ? "#fee2e2" : "#f1f5f9";
      ctx.fillRect(X(a.x0), Y(a.y0), (a.x1 - a.x0) * s, (a.y1 - a.y0) * s);
    }
    const w = geo.cabinet_width_m, d = geo.cabinet_depth_m, pw = w * s, pd = d * s;
    // aisle names once they are legible
    if (geo.aisles.length && (geo.aisles[0].y1 - geo.aisles[0].y0) * s >= 12) {
      ctx.font = "11px system-ui, sans-serif";
      ctx.textBaseline = "middle";
      for (const a of geo.aisles) {
        if (a.kind !== "hot" && a.kind !== "cold") continue;
        ctx.fillStyle = a.kind === "cold" ? "#1e40af" : "#b91c1c";
        ctx.fillText(a.kind + " aisle", X(a.x1) + 4, Y((a.y0 + a.y1) / 2));
      }
    }
    // hall connections, through the gaps between halls; the meet-me room where they meet
    ctx.strokeStyle = "#7c3aed";
    ctx.fillStyle = "#5b21b6";
    ctx.font = "12px system-ui, sans-serif";
    ctx.textBaseline = "bottom";
    ctx.lineWidth = 2;
    for (const l of geo.links) {
      ctx.setLineDash([6, 4]);
      ctx.beginPath();
      l.points.forEach(([px, py], k) => (k ? ctx.lineTo(X(px), Y(py)) : ctx.moveTo(X(px), Y(py))));
      ctx.stroke();
      ctx.setLineDash([]);
      if (l.length_m !== null) {
        const [px, py] = l.points[Math.floor(l.points.length / 2)];
        ctx.fillText(num(l.length_m) + " m", X(px) + 4, Y(py) - 2);
      }
    }
    if (geo.meet_me) {
      const m = geo.meet_me;
      ctx.fillRect(X(m.x) - 6, Y(m.y) - 6, 12, 12);
      ctx.fillText("meet-me room: " + num(m.link_m) + " m hall to hall", X(m.x) + 10, Y(m.y) - 4);
    }
    drawMarked(X, Y, w, d, pw, pd);
    // cabinets, batched by colour; only those on screen
    const { colour, legend } = cabinetColours();
    const buckets = new Map();
    const visible = [];
    const x = P.x, y = P.y;
    for (let c = 0; c < P.nCab; c++) {
      const sx = X(x[c] - w / 2), sy = Y(y[c] - d / 2);
      if (sx > W || sy > H || sx + pw < 0 || sy + pd < 0) continue;
      visible.push(c);
      let b = buckets.get(colour[c]);
      if (!b) { b = []; buckets.set(colour[c], b); }
      b.push(c);
    }
    const gap = pw > 6 ? 0.5 : 0;
    for (const [fill, cabs] of buckets) {
      ctx.fillStyle = fill;
      ctx.beginPath();
      for (const c of cabs) {
        ctx.rect(X(x[c] - w / 2) + gap, Y(y[c] - d / 2) + gap, Math.max(pw - 2 * gap, 1),
          Math.max(pd - 2 * gap, 1));
      }
      ctx.fill();
    }
    if (pw > 5) {
      ctx.strokeStyle = "#52606d";
      ctx.lineWidth = 0.6;
      ctx.beginPath();
      for (const c of visible) ctx.rect(X(x[c] - w / 2) + gap, Y(y[c] - d / 2) + gap, pw - 2 * gap, pd - 2 * gap);
      ctx.stroke();
      // fronts: a bar on the side the cabinet faces
      ctx.strokeStyle = "#102a43";
      ctx.lineWidth = Math.max(1.5, Math.min(4, 0.08 * s));
      ctx.beginPath();
      for (const c of visible) {
        const f = P.front[c];
        if (!f) continue;
        const fy = Y(y[c] + f * d / 2) - f * (gap + ctx.lineWidth / 2);
        ctx.moveTo(X(x[c] - w / 2) + gap + 1, fy);
        ctx.lineTo(X(x[c] + w / 2) - gap - 1, fy);
      }
      ctx.stroke();
    }
    // overhead trays over the cabinets, see-through
    if (geo.trays.length) {
      ctx.strokeStyle = "rgba(71, 85, 105, 0.55)";
      ctx.lineWidth = Math.max(1, Math.min(6, 0.3 * s));
      ctx.beginPath();
      for (const t of geo.trays) { ctx.moveTo(X(t.x0), Y(t.y0)); ctx.lineTo(X(t.x1), Y(t.y1)); }
      ctx.stroke();
    }
    if (view.trays) drawTrays(X, Y);
    drawPatchRacks(X, Y);
    canvas.dataset.cabinetsDrawn = String(visible.length);
    // row names at the row ends, cabinet names inside cabinets once legible
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    if (pd >= 10) {
      ctx.fillStyle = "#334e68";
      ctx.font = "600 " + Math.min(16, pd * 0.6) + "px system-ui, sans-serif";
      for (const r of geo.rows) ctx.fillText(r.name, X(r.x0) - Math.min(16, pd * 0.6), Y((r.y0 + r.y1) / 2));
    }
    if (pw >= 22) {
      const size = Math.min(13, pw / 3.3);
      ctx.font = size + "px system-ui, sans-serif";
      ctx.fillStyle = "#102a43";
      for (const c of visible) ctx.fillText(P.cab.text("name", c), X(x[c]), Y(y[c]), pw - 2);
    }
    if (P.geo.halls.length > 1 || s * (P.geo.halls[0].x1 - P.geo.halls[0].x0) > 200) {
      ctx.textAlign = "left";
      ctx.textBaseline = "bottom";
      ctx.font = "600 13px system-ui, sans-serif";
      for (const h of geo.halls) {      // on a white tab, clear of the hall connections
        const tw = ctx.measureText(h.name).width;
        ctx.fillStyle = "rgba(255, 255, 255, 0.9)";
        ctx.fillRect(X(h.x1) - tw - 8, Y(h.y0) - 18, tw + 6, 16);
        ctx.fillStyle = "#243b53";
        ctx.fillText(h.name, X(h.x1) - tw - 5, Y(h.y0) - 3);
      }
    }
    // routes of the filtered cables
    if (view.routes && matches) {
      ctx.strokeStyle = "rgba(29, 78, 216, 0.25)";
      ctx.lineWidth = 1;
      ctx.beginPath();
      // at most ROUTE_CAP routes, spread evenly over the filtered cables
      const step = Math.max(1, matches.length / ROUTE_CAP);
      for (let k = 0; k < matches.length; k += step) drawRoute(matches[Math.floor(k)]);
      ctx.stroke();
    }
    // selection and the traced cable
    if (view.selCab >= 0) {
      const c = view.selCab;
      ctx.strokeStyle = "#1d4ed8";
      ctx.lineWidth = 3;
      ctx.strokeRect(X(x[c] - w / 2) - 2, Y(y[c] - d / 2) - 2, pw + 4, pd + 4);
    }
    if (view.traced >= 0) drawTrace(view.traced, X, Y, w, d, pw, pd);
    legendFor(legend);
    stats.drawMs = performance.now() - started;
    stats.draws++;
  }

  // Marked positions of an existing room (floor field hall.positions: a building column, a
  // cooling unit, a door clearance, another tenant's cabinets): grey boxes hatched with
  // diagonals, nothing placed there; their kind (blocked / occupied / reserved) inside once
  // legible, and the floor's note below it when that fits too.
  function drawMarked(X, Y, w, d, pw, pd) {
    const marks = P.geo.marked || [];
    if (!marks.length) return;
    ctx.fillStyle = "#cbd2d9";
    ctx.strokeStyle = "#7b8794";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const m of marks) ctx.rect(X(m.x - w / 2), Y(m.y - d / 2), pw, pd);
    ctx.fill();
    ctx.stroke();
    if (pw >= 6) {
      ctx.beginPath();
      for (const m of marks) {
        const x0 = X(m.x - w / 2), y0 = Y(m.y - d / 2), step = Math.max(pw, pd) / 4;
        for (let k = 1; k < 8; k++) {
          const t = k * step, ax = x0 + Math.max(0, t - pd), ay = y0 + Math.min(t, pd);
          const bx = x0 + Math.min(t, pw), by = y0 + Math.max(0, t - pw);
          if (bx > ax) { ctx.moveTo(ax, ay); ctx.lineTo(bx, by); }
        }
      }
      ctx.stroke();
    }
    const font = Math.min(11, pw / 4.5);
    if (font >= 7) {
      ctx.font = "600 " + font + "px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillStyle = "#323f4b";
      for (const m of marks) {
        ctx.fillText(m.kind, X(m.x), Y(m.y) - (pd >= 3.5 * font ? font * 0.6 : 0));
        if (m.note && pd >= 3.5 * font && ctx.measureText(m.note).width <= pw - 4) {
          ctx.fillText(m.note, X(m.x), Y(m.y) + font * 0.6);
        }
      }
    }
  }

  // Patch racks of structured cabling: a violet square on the floor position each stands on (in
  // its row under its cross tray, or in the entry row), the rack's width on a side, so it stays
  // on its own footprint at any zoom; its name inside it once legible; the selected one ringed.
  function rackSize(r) { return r.size_m * cam.s; }

  // what a rack's square says: its name where that fits, else its place without the hall and
  // row (A-P0.2 -> P0.2, H2-ENTRY.3 -> ENTRY.3; the row is the square's own), else nothing (the
  // hover names it)
  function rackTag(name, room) {
    if (ctx.measureText(name).width <= room) return name;
    const short = name.slice(name.lastIndexOf("-") + 1);
    return ctx.measureText(short).width <= room ? short : "";
  }

  function drawPatchRacks(X, Y) {
    if (!P.racks.length) return;
    const size = rackSize(P.racks[0]);
    ctx.fillStyle = size >= 6 ? PATCH_RACK_FILL : PATCH_RACK_EDGE;
    for (const r of P.racks) ctx.fillRect(X(r.x) - size / 2, Y(r.y) - size / 2, size, size);
    if (size >= 6) {
      ctx.strokeStyle = PATCH_RACK_EDGE;
      ctx.lineWidth = 1;
      for (const r of P.racks) ctx.strokeRect(X(r.x) - size / 2 + 0.5, Y(r.y) - size / 2 + 0.5, size - 1, size - 1);
    }
    // the name in the lower half of the square, inside its edge: it covers no cabinet, rack or
    // aisle, and the square's centre keeps the rack's colour
    const font = Math.min(11, size / 3.3);
    if (font >= 7) {
      ctx.fillStyle = PATCH_RACK_EDGE;
      ctx.font = "600 " + font + "px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.textBaseline = "bottom";
      for (const r of P.racks) {
        const tag = rackTag(r.name, size - 4);
        if (tag) ctx.fillText(tag, X(r.x), Y(r.y) + size / 2 - 2);
      }
    }
    if (view.selRack >= 0) {
      const r = P.racks[view.selRack];
      ctx.strokeStyle = "#1d4ed8";
      ctx.lineWidth = 3;
      ctx.strokeRect(X(r.x) - size / 2 - 3, Y(r.y) - size / 2 - 3, size + 6, size + 6);
    }
  }

  function rackAt(px, py) {
    if (!P.racks.length) return -1;
    const half = rackSize(P.racks[0]) / 2 + 1;
    for (let k = P.racks.length - 1; k >= 0; k--) {
      const r = P.racks[k];
      if (Math.abs(r.x * cam.s + cam.ox - px) <= half && Math.abs(r.y * cam.s + cam.oy - py) <= half) return k;
    }
    return -1;
  }

  function drawTrace(i, X, Y, w, d, pw, pd) {
    ctx.lineJoin = "round";
    ctx.lineCap = "round";
    for (const [style, width] of [["#ffffff", 7], ["#ea580c", 3.5]]) {
      ctx.strokeStyle = style;
      ctx.lineWidth = width;
      ctx.beginPath();
      drawRoute(i);
      ctx.stroke();
    }
    const ends = [[P.aCab[i], "A"], [P.bCab[i], "B"]];
    if (ends[0][0] === ends[1][0]) ends.length = 1;
    ctx.font = "700 12px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (const [c, tag] of ends) {
      ctx.strokeStyle = "#ea580c";
      ctx.lineWidth = 3;
      ctx.strokeRect(X(P.x[c] - w / 2) - 2, Y(P.y[c] - d / 2) - 2, pw + 4, pd + 4);
      // the tag sits over the cabinet's back edge (A) or front edge (B), clear of the names
      const r = 10, cx = X(P.x[c]), cy = Y(P.y[c]) + (tag === "A" ? -1 : 1) * (pd / 2 + r + 4);
      ctx.fillStyle = "#ea580c";
      ctx.beginPath(); ctx.arc(cx, cy, r, 0, 2 * Math.PI); ctx.fill();
      ctx.fillStyle = "#ffffff";
      ctx.fillText(tag, cx, cy + 0.5);
    }
  }

  function legendFor(legend) {
    const box = $("legend");
    const key = view.colour + (legend ? legend.join() : "") + (view.routes ? matches.length : "") +
      (view.trays ? "trays" : "");
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.replaceChildren();
    if (legend && legend[0] === "theta") {
      const ramp = el("span", { class: "ramp" }), info = P.fail.info.cabinet;
      ramp.style.background = "linear-gradient(to right, " + RAMP.slice().reverse().join(", ") + ")";
      const c = P.cabIndex.get(info.worst);
      const digits = rangeDigits(legend[1], legend[2]);
      box.append(el("span", { text: "Colour: " + legend[3] + " " + num(legend[1], digits) + " (worst)" }), ramp,
        el("span", { text: num(legend[2], digits) + " (best)" }),
        el("div", { class: "worst", text: "Worst cabinet: " + info.worst + " keeps " +
          ratioText(P.fail.ratio[c], P.fail.theta[c]) + (info.theta_kind === "exact" ? "" : "; upper bounds") }));
      if (P.fail.ratio.some((r) => Number.isNaN(r))) {
        const sw = el("span", { class: "swatch" });
        sw.style.background = UNMEASURED;
        box.append(sw, el("span", { text: "not measured (no routers: not a failure group)" }));
      }
    } else if (!legend) {
      const groups = P.group ? new Set(P.group).size : 1;
      box.append(el("span", { text: "Colour: electrical group (" + num(groups) + " groups)" }));
    } else {
      const ramp = el("span", { class: "ramp" });
      ramp.style.background = "linear-gradient(to right, " + RAMP.join(", ") + ")";
      box.append(el("span", { text: "Colour: " + legend[0] + " " + num(legend[1]) }), ramp,
        el("span", { text: num(legend[2]) + " (" + legend[3] + ")" }));
      if (legend[0] === "kW" && P.kwBudget) {
        const sw = el("span", { class: "swatch" });
        sw.style.background = OVER;
        box.append(sw, el("span", { text: "over budget" }));
      }
    }
    const kinds = new Set(P.geo.aisles.map((a) => a.kind));
    for (const [kind, fill] of [["cold", "#dbeafe"], ["hot", "#fee2e2"]]) {
      if (!kinds.has(kind)) continue;
      const sw = el("span", { class: "swatch" });
      sw.style.background = fill;
      box.append(sw, el("span", { text: kind + " aisle" }));
    }
    if (P.geo.rows.some((r) => r.front)) box.append(el("span", { text: "  ▬ cabinet front" }));
    if ((P.geo.marked || []).length) {
      const sw = el("span", { class: "swatch" });
      sw.style.background = "#cbd2d9";
      box.append(sw, el("span", { text: "marked position (blocked, occupied, reserved): nothing placed" }));
    }
    if (view.trays) {
      const t = P.fail.info.tray;
      const [lo, hi] = ratioRange(P.fail.trayRatio);
      box.append(el("div", { text: t.measured ? "Tray segments coloured on the same ramp by θ after each " +
        "fails / intact, from " + num(lo, rangeDigits(lo, hi)) + " (worst: " + t.worst + ") to " +
        num(hi, rangeDigits(lo, hi)) + " (best)" +
        "; click one for what it carries" : "Tray segments: click one for what it carries (θ after " +
        "failure not measured: " + t.why + ")" }));
    }
    if (view.routes) {
      const shown = Math.min(matches.length, ROUTE_CAP);
      box.append(el("div", { text: "Routes of " + num(shown) + (shown < matches.length ?
        " of " + num(matches.length) : "") + " filtered cables" }));
    }
  }

  function cabinetAt(px, py) {
    const wx = (px - cam.ox) / cam.s, wy = (py - cam.oy) / cam.s;
    const w = P.geo.cabinet_width_m / 2, d = P.geo.cabinet_depth_m / 2;
    for (let c = 0; c < P.nCab; c++) {
      if (Math.abs(P.x[c] - wx) <= w && Math.abs(P.y[c] - wy) <= d) return c;
    }
    return -1;
  }

  function hover(px, py) {
    const tip = $("hover"), k = rackAt(px, py), t = view.trays && k < 0 ? trayAt(px, py) : -1;
    const c = k >= 0 || t >= 0 ? -1 : cabinetAt(px, py);
    if (c < 0 && k < 0 && t < 0) { tip.hidden = true; return; }
    if (t >= 0) {
      tip.textContent = trayLines(t).join("\n");
      tip.hidden = false;
      tip.style.left = Math.min(px + 14, canvas.clientWidth - 160) + "px";
      tip.style.top = (py + 14) + "px";
      return;
    }
    const lines = k >= 0 ? rackLines(P.racks[k]) : [P.cab.text("name", c)];
    for (const k of ["hall", "group", "routers", "endpoints", "kw", "ru_used"]) {
      if (P.cab.has(k)) lines.push(k.replace("_", " ") + ": " + P.cab.text(k, c));
    }
    if (c >= 0) lines.push("cables (filtered): " + num(cabCount[c]));
    if (c >= 0 && view.colour === "theta") {
      lines.push(Number.isNaN(P.fail.ratio[c]) ? "θ after failure: not measured (no routers)" :
        "θ after it fails: " + ratioText(P.fail.ratio[c], P.fail.theta[c]));
    }
    tip.textContent = lines.join("\n");
    tip.hidden = false;
    tip.style.left = Math.min(px + 14, canvas.clientWidth - 160) + "px";
    tip.style.top = (py + 14) + "px";
  }

  function wireFloor() {
    const pointers = new Map();
    let moved = 0, pinch = null;
    canvas.addEventListener("pointerdown", (e) => {
      try { canvas.setPointerCapture(e.pointerId); } catch (err) { /* pointer already gone */ }
      pointers.set(e.pointerId, [e.offsetX, e.offsetY]);
      moved = 0;
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        pinch = { dist: Math.hypot(a[0] - b[0], a[1] - b[1]) };
      }
      canvas.classList.add("dragging");
    });
    canvas.addEventListener("pointermove", (e) => {
      const prev = pointers.get(e.pointerId);
      if (!prev) {
        if (e.pointerType === "mouse") hover(e.offsetX, e.offsetY);
        return;
      }
      const now = [e.offsetX, e.offsetY];
      pointers.set(e.pointerId, now);
      if (pointers.size === 1) {
        cam.ox += now[0] - prev[0];
        cam.oy += now[1] - prev[1];
        moved += Math.abs(now[0] - prev[0]) + Math.abs(now[1] - prev[1]);
        requestDraw();
      } else if (pointers.size === 2 && pinch) {
        const [a, b] = [...pointers.values()];
        const dist = Math.hypot(a[0] - b[0], a[1] - b[1]);
        const mx = (a[0] + b[0]) / 2, my = (a[1] + b[1]) / 2;
        cam.ox += (now[0] - prev[0]) / 2;
        cam.oy += (now[1] - prev[1]) / 2;
        if (pinch.dist > 0) zoomAt(mx, my, dist / pinch.dist);
        pinch.dist = dist;
        moved += 10;
      }
      $("hover").hidden = true;
    });
    const up = (e) => {
      if (!pointers.has(e.pointerId)) return;
      pointers.delete(e.pointerId);
      if (pointers.size < 2) pinch = null;
      if (pointers.size === 0) canvas.classList.remove("dragging");
      if (moved < 6 && e.type === "pointerup" && pointers.size === 0) {
        const k = rackAt(e.offsetX, e.offsetY), c = k >= 0 ? -1 : cabinetAt(e.offsetX, e.offsetY);
        const t = view.trays && k < 0 ? trayAt(e.offsetX, e.offsetY) : -1;
        if (t >= 0) go(hashOf("tray", P.fail.trays.text("name", t)));
        else if (k >= 0) go(hashOf("rack", P.racks[k].name));
        else if (c >= 0) go(hashOf("cabinet", P.cab.text("name", c)));
      }
    };
    canvas.addEventListener("pointerup", up);
    canvas.addEventListener("pointercancel", up);
    canvas.addEventListener("pointerleave", () => { $("hover").hidden = true; });
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      const scale = e.deltaMode === 1 ? 0.05 : 0.0015;
      zoomAt(e.offsetX, e.offsetY, Math.exp(-e.deltaY * scale));
    }, { passive: false });
    canvas.addEventListener("dblclick", (e) => zoomAt(e.offsetX, e.offsetY, 2));
    $("fit").addEventListener("click", fitAll);
    $("zoom-in").addEventListener("click", () => zoomAt(canvas.clientWidth / 2, canvas.clientHeight / 2, 1.6));
    $("zoom-out").addEventListener("click", () => zoomAt(canvas.clientWidth / 2, canvas.clientHeight / 2, 1 / 1.6));
    const colourBy = $("colour-by");
    if (!P.kw) {
      const option = colourBy.querySelector("option[value=kw]");
      option.disabled = true;
      option.textContent = "cabinet kW (not in this plan)";
    }
    if (!P.fail.info.cabinet.measured) {
      const option = colourBy.querySelector("option[value=theta]");
      option.disabled = true;
      option.textContent = "θ after cabinet failure (not measured: " + P.fail.info.cabinet.why + ")";
    }
    colourBy.addEventListener("change", () => { view.colour = colourBy.value; requestDraw(); });
    const trays = $("show-trays");
    trays.disabled = P.fail.nTray === 0;
    if (trays.disabled) {
      trays.parentElement.title = "tray segments: not measured (" + P.fail.info.tray.why + ")";
      trays.parentElement.lastChild.textContent = " tray segments (not measured)";
    }
    trays.addEventListener("change", (e) => { view.trays = e.target.checked; requestDraw(); });
    $("show-routes").addEventListener("change", (e) => { view.routes = e.target.checked; requestDraw(); });
    new ResizeObserver(resize).observe(canvas);
  }

  // Fit the view to the cabinets (with two cabinets' margin) and the box [x0, y0, x1, y1].
  function zoomToCabinets(cabs, box = [Infinity, Infinity, -Infinity, -Infinity]) {
    let [x0, y0, x1, y1] = box;
    const w = P.geo.cabinet_width_m, d = P.geo.cabinet_depth_m;
    for (const c of cabs) {
      x0 = Math.min(x0, P.x[c] - 2 * w); x1 = Math.max(x1, P.x[c] + 2 * w);
      y0 = Math.min(y0, P.y[c] - 2 * d); y1 = Math.max(y1, P.y[c] + 2 * d);
    }
    fitTo(x0, y0, x1, y1, Math.max(cam.fit, 60));
  }

  function zoomToRoute(i) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let k = P.routeStart[i]; k < P.routeStart[i + 1]; k++) {
      const node = P.routeNode[k];
      x0 = Math.min(x0, P.nodeX[node]); x1 = Math.max(x1, P.nodeX[node]);
      y0 = Math.min(y0, P.nodeY[node]); y1 = Math.max(y1, P.nodeY[node]);
    }
    zoomToCabinets([P.aCab[i], P.bCab[i]], [x0, y0, x1, y1]);
  }

  // ------------------------------------------------------------------ panels
  function showPanel(name) {
    for (const p of document.querySelectorAll(".panel")) p.hidden = p.id !== "panel-" + name;
    for (const b of document.querySelectorAll("#tabs button")) {
      b.classList.toggle("active", b.dataset.panel === name);
    }
    $("panel").scrollTop = 0;
  }

  function basisText(b) {   // summary.json cost.price_basis in plain words
    const sh = b.shares || {}, who = [b.source, b.date].filter((t) => t).join(", ");
    return num(100 * (sh.estimate ?? 1), 1) + " % of the total is estimated" +
      (who ? " (" + who + ")" : "") + "; " + num(100 * (sh.list || 0), 1) + " % list prices, " +
      num(100 * (sh.quote || 0), 1) + " % quoted; prices in " + (b.currency || "USD");
  }

  function kvTable(rows) {
    return el("table", { class: "kv" }, rows.filter((r) => r).map(([k, v]) =>
      el("tr", null, el("td", { text: k }), el("td", null, v instanceof Node ? v : String(v)))));
  }

  function flatten(value, prefix, out) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) flatten(v, prefix ? prefix + "." + k : k, out);
    } else {
      out.push([prefix, Array.isArray(value) ? JSON.stringify(value) :
        typeof value === "number" ? num(value, Number.isInteger(value) ? 0 : undefined) :
          String(value)]);
    }
    return out;
  }

  function tagged(node, name) {
    node.dataset.table = name;
    return node;
  }

  function bomRowsOf(predicate) {
    const rows = [];
    for (let i = 0; i < P.bom.rows; i++) if (predicate(i)) rows.push(i);
    return rows;
  }

  function renderSummary() {
    const s = P.summary, panel = $("panel-summary");
    const top = s.topology || {}, cost = s.cost || {}, power = s.power || {};
    const cab = s.cables || {}, place = s.placement || {};
    const tile = (k, v) => el("div", { class: "tile" }, el("div", { class: "v", text: v }),
      el("div", { class: "k", text: k }));
    const bomLink = (text, rows) => rows.length ?
      link(text, hashOf("bom", rows.join(",")), { class: "bom-link" }) : text;
    // one row per class of the bill of materials (planner.costing.bom.COST_LINES): they add
    // up to the total; each links to its BOM lines
    const costRows = (P.meta.cost_lines || []).map(([key, words, items]) => [words,
      bomLink(money(cost[key] || 0), bomRowsOf((i) => items.includes(P.bom.text("item", i))))]);
    const parts = [
      el("h2", { text: P.meta.title }),
      el("p", { class: "sub", text: num(P.nCab) + " cabinets · " + num(P.nCables) + " cables" }),
      el("div", { class: "tiles" },
        tile("endpoints", num(top.endpoints)), tile("routers", num(top.routers)),
        tile("cables", num(cab.total)), tile("total cost", CURRENCY + " " + short(cost.total)),
        tile("cost per endpoint", money(cost.per_endpoint)),
        tile("power", num(power.total_w / 1000, 1) + " kW"),
        tile("W per endpoint", num(power.per_endpoint_w, 1)),
        tile("links between groups (bound)", num(place.optical) + " (" + num(place.optical_lower_bound) + ")")),
      el("h3", { text: "Cost" }),
      tagged(kvTable([...costRows, ["total", money(cost.total)],
        ["per endpoint", money(cost.per_endpoint)]]), "cost"),
      cost.price_basis ? el("p", { class: "sub", text: basisText(cost.price_basis) }) : null,
      el("h3", { text: "Power" }),
      kvTable(Object.entries(power).map(([k, v]) => [k.replace(/_w$/, " (W)").replace(/_/g, " "),
        num(v, 1)])),
      ...room(s.floor || {}, power),
      el("h3", { text: "Cable mix" }), cableMix(cab),
      el("h3", { text: "Placement quality" }),
      kvTable([["method", place.method], ["strategy", place.strategy],
        ["cabinets / groups", num(place.cabinets) + " / " + num(place.groups)],
        ["links leaving electrical groups", num(place.optical)],
        ["lower bound", num(place.optical_lower_bound) + " (" + place.lower_bound_kind + ")"],
        ["gap", num(100 * (place.gap || 0), 2) + " %"],
        ["placement time", num(place.runtime_s, 1) + " s" + (place.time_capped ? " (time-capped)" : "")]]),
    ];
    if (s.performance && typeof s.performance === "object") {
      // the headline figures where the plan has them, then every performance value
      const p = s.performance, get = (...path) => path.reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), p);
      const headline = [
        ["hops (average / diameter)", get("hops", "average"), get("hops", "diameter")],
        ["zero-load latency ns (average / max)", get("latency_ns", "average"), get("latency_ns", "max")],
        ["bisection Tb/s", get("bisection", "tbps")],
        ["uniform throughput θ", get("uniform", "theta"), get("uniform", "kind")],
      ].filter((r) => r[1] !== undefined && r[1] !== null)
        .map(([k, a, b]) => [k, num(a) + (b !== undefined && b !== null ? " / " + (typeof b === "number" ? num(b) : b) : "")]);
      parts.push(el("h3", { text: "Performance" }), kvTable(headline),
        el("details", null, el("summary", { text: "Every performance value" }), kvTable(flatten(p, "", []))));
    }
    parts.push(el("details", null, el("summary", { text: "Every value of summary.json" }),
      kvTable(flatten(s, "", []))));
    parts.push(el("p", { class: "sub" }, "Files beside this page: ",
      ...["cables.csv", "bom.xlsx", "wiring.pdf", "summary.json"].flatMap((f, k) =>
        [k ? " · " : "", el("a", { href: f, text: f })])));
    panel.replaceChildren(...parts);
  }

  function room(f, power) {
    // the halls the plan fills, where the plan's summary describes them
    if (!f.halls) return [];
    return [el("h3", { text: "Room" }), kvTable([
      ["halls", num(f.halls)],
      ["hall size", num(f.hall_rows) + " rows × " + num(f.hall_cabinets_per_row) + " cabinets, " +
        num(f.hall_width_m, 1) + " × " + num(f.hall_depth_m, 1) + " m"],
      ["footprint", num(f.footprint_m2, 0) + " m²"],
      power.peak_cabinet_kw !== undefined ? ["peak cabinet", num(power.peak_cabinet_kw, 2) + " kW" +
        (f.cabinet_kw_budget ? " of " + num(f.cabinet_kw_budget) + " kW budget" : "")] : null])];
  }

  function cableMix(c) {
    const head = el("tr", null, ...["", "cables", "electrical", "optical", "length (m)",
      "longest (m)"].map((h, k) => el("th", { class: k ? "n" : "", text: h })));
    const rows = ["network", "endpoint"].filter((k) => c[k]).map((k) => el("tr", null,
      el("td", { text: k }), ...[c[k].count, c[k].electrical, c[k].optical, c[k].length_m,
        c[k].max_length_m].map((v) => el("td", { class: "n", text: num(v) }))));
    const partSet = new Set((filterFields().find((f) => f.key === "sku") || { values: [] }).values);
    const bySku = Object.entries(c.by_sku || {}).map(([sku, count]) => {
      const lines = bomRowsOf((i) => P.bom.text("sku", i) === sku);
      return el("tr", null, el("td", null, lines.length ?
        link(sku, hashOf("bom", lines.join(",")), { class: "bom-link" }) : sku),
      el("td", { class: "n", text: num(count) }),
      el("td", null, partSet.has(sku) ? link("show cables", "#cables", { on: { click: (e) => {
        e.preventDefault(); setFilter({ sku: [sku] }); go("#cables");
      } } }) : "trunk (trunks.csv)"));
    });
    // route kinds: from the plan's summary where it counts them, else counted here
    let kinds = c.route_kind;
    if (!kinds) {
      kinds = {};
      for (let i = 0; i < P.nCables; i++) {
        const k = P.routeKind.values[P.routeKind.codes[i]];
        kinds[k] = (kinds[k] || 0) + 1;
      }
    }
    const order = ["cabinet", "row", "cross-row", "cross-hall"];
    const rank = (k) => (order.includes(k) ? order.indexOf(k) : order.length);
    const byRoute = Object.entries(kinds).filter(([, n]) => n > 0).sort((a, b) => rank(a[0]) - rank(b[0]))
      .map(([kind, count]) => el("tr", null,
      el("td", { text: kind }), el("td", { class: "n", text: num(count) }),
      el("td", null, link("show cables", "#cables", { on: { click: (e) => {
        e.preventDefault(); setFilter({ route: [kind] }); go("#cables");
      } } }))));
    return el("div", null, el("table", { class: "grid" }, head, ...rows),
      el("table", { class: "grid" }, el("tr", null, el("th", { text: "part number" }),
        el("th", { class: "n", text: "pieces" }), el("th")), ...bySku),
      el("table", { class: "grid" }, el("tr", null, el("th", { text: "route" }),
        el("th", { class: "n", text: "cables" }), el("th")), ...byRoute));
  }

  function renderBom(highlight) {
    const b = P.bom, panel = $("panel-bom");
    const money2 = new Set(["unit_price", "extended_price"]);
    // the description goes under the part number; every other column as it is
    const names = b.names.filter((n) => n !== "description");
    const title = (n) => n === "sku" ? "part number" : n === "length_m" ? "length m" : n.replace(/_/g, " ");
    const head = el("tr", null, ...names.map((n) => el("th", { class: b.cols[n].type === "num" ? "n" : "",
      text: title(n) })), el("th"));
    const rows = [], parts = new Set((filterFields().find((f) => f.key === "sku") || { values: [] }).values);
    for (let i = 0; i < b.rows; i++) {
      const cells = names.map((n) => {
        const col = b.cols[n];
        if (n === "sku" && b.has("description")) {
          return el("td", null, el("div", { class: "sku", text: col.text(i) }),
            el("div", { class: "desc", text: b.text("description", i) }));
        }
        if (col.type !== "num") return el("td", { text: col.text(i) });
        const v = col.data[i];
        return el("td", { class: "n", text: money2.has(n) ? money(v) : num(v) });
      });
      // the cables that use this line's part (at this ordered length, for lengths)
      const part = b.text("sku", i), len = b.has("length_m") ? b.num("length_m")[i] : NaN;
      const action = parts.has(part) ? link("cables", "#cables", { on: { click: (e) => {
        e.preventDefault();
        setFilter(Number.isNaN(len) ? { sku: [part] } : { sku: [part], orderLength: len });
        go("#cables");
      } } }) : "";
      rows.push(el("tr", { id: "bom-" + i, class: highlight.has(i) ? "hit" : "" }, ...cells,
        el("td", null, action)));
    }
    let total = 0;
    const ext = b.num("extended_price");
    for (let i = 0; i < b.rows; i++) total += ext[i];
    panel.replaceChildren(el("h2", { text: "Bill of materials" }),
      el("p", { class: "sub", text: num(b.rows) + " lines · " + money(total) + " · as in " }, el("a", { href: "bom.xlsx", text: "bom.xlsx" })),
      el("div", { class: "scroll-x" }, el("table", { class: "grid" }, head, ...rows)));
    const first = [...highlight][0];
    if (first !== undefined) requestAnimationFrame(() => $("bom-" + first)?.scrollIntoView({ block: "center" }));
  }

  // a scrolling list that builds only the rows in view
  function virtualList(rows, columns, onPick, selected) {
    const box = el("div", { class: "vlist" });
    const template = columns.map((c) => c.width + "px").join(" ");
    const width = columns.reduce((a, c) => a + c.width, 0);
    const head = el("div", { class: "head" }, ...columns.map((c) => el("span", { class: c.num ? "n" : "", text: c.title })));
    head.style.gridTemplateColumns = template;
    head.style.width = width + "px";
    const body = el("div");
    body.style.position = "relative";
    body.style.height = rows.length * ROW_H + "px";
    body.style.width = width + "px";
    box.append(head, body);
    let shown = "";
    const render = () => {
      const first = Math.max(0, Math.floor(box.scrollTop / ROW_H) - 5);
      const last = Math.min(rows.length, first + Math.ceil((box.clientHeight || 420) / ROW_H) + 10);
      const key = first + ":" + last;
      if (key === shown) return;
      shown = key;
      const out = [];
      for (let k = first; k < last; k++) {
        const i = rows[k];
        const row = el("div", { class: "row" + (i === selected ? " sel" : ""), data: { row: String(i) } },
          ...columns.map((c) => el("span", { class: c.num ? "n" : "", text: c.get(i) })));
        row.style.gridTemplateColumns = template;
        row.style.top = k * ROW_H + "px";
        row.style.width = width + "px";
        row.addEventListener("click", () => onPick(i));
        out.push(row);
      }
      body.replaceChildren(...out);
    };
    box.addEventListener("scroll", render, { passive: true });
    requestAnimationFrame(render);
    box.render = render;
    return box;
  }

  // ------------------------------------------------------------------ assemblies
  // planner.cabling.pieces: the piece plugged in at each end (a_/b_assembly). A multi-link
  // assembly (a twin-port DAC/ACC, a splitter) has the id of its links joined by "+" and is
  // the a_/b_assembly of every link it carries; at a twin-port end all its links share one
  // device (one connector in one cage), at a splitter's tails each has its own.
  let assemblyRows = null;
  function assemblyOf(side, i) {
    return P.cables.has(side + "_assembly") ? P.cables.text(side + "_assembly", i) : P.cables.text("cable_id", i);
  }
  function legsOf(id) {    // the cable rows of a multi-link assembly, in cable order
    if (!id.includes("+")) return null;
    if (!assemblyRows) {
      assemblyRows = new Map();
      const c = P.cables;
      if (c.has("a_assembly")) {
        for (let i = 0; i < c.rows; i++) {
          const a = c.text("a_assembly", i);
          if (!a.includes("+")) continue;
          if (!assemblyRows.has(a)) assemblyRows.set(a, []);
          assemblyRows.get(a).push(i);
        }
      }
    }
    return assemblyRows.get(id) || null;
  }
  function twinEnd(side, i) {   // the legs sharing this end's connector, or null (one leg)
    const legs = legsOf(assemblyOf(side, i));
    if (!legs) return null;
    const device = P.cables.text(side + "_device", i);
    return legs.every((k) => P.cables.text(side + "_device", k) === device) ? legs : null;
  }

  function cableColumns(cab) {
    const c = P.cables;
    const endText = (side, i) => c.text(side + "_device", i) + ":" + c.text(side + "_port", i);
    const cols = [{ title: "label", width: 190, get: (i) => c.text("label", i) }];
    if (cab === undefined) {
      cols.push({ title: "A end", width: 110, get: (i) => endText("a", i) },
        { title: "B end", width: 110, get: (i) => endText("b", i) });
    } else {
      const near = (i) => (P.aCab[i] === cab ? "a" : "b");
      const far = (i) => (P.aCab[i] === cab ? "b" : "a");
      const legs = (i) => twinEnd(near(i), i) || [i];
      cols.unshift({ title: "piece", width: 110, get: (i) => assemblyOf(near(i), i) });
      cols.push({ title: "this end", width: 104, get: (i) => c.text(near(i) + "_device", i) + ":" +
          legs(i).map((k) => c.text(near(i) + "_port", k)).join("+") },
        { title: "far end", width: 150, get: (i) => {
          const farTwin = twinEnd(far(i), i);
          if (farTwin && legs(i).length > 1) {        // twin-port at both ends: one far connector
            return c.text(far(i) + "_cabinet", i) + " " + c.text(far(i) + "_device", i) + ":" +
              farTwin.map((k) => c.text(far(i) + "_port", k)).join("+");
          }
          return legs(i).map((k) => c.text(far(i) + "_cabinet", k) + " " + endText(far(i), k)).join(" + ");
        } });
    }
    // in a cabinet: the piece plugged in at this end (its own cord through patch panels)
    const part = (i) => cab === undefined || !c.has("a_sku") ? c.text("sku", i) :
      c.text((P.aCab[i] === cab ? "a" : "b") + "_sku", i);
    const ordered = (i) => cab === undefined || !c.has("a_order_m") ? c.text("order_length_m", i) :
      c.text((P.aCab[i] === cab ? "a" : "b") + "_order_m", i);
    cols.push({ title: "media", width: 76, get: (i) => c.text("media", i) },
      { title: cab === undefined ? "part number" : "part at this end", width: 120, get: part },
      { title: "length m", width: 70, num: true, get: (i) => c.text("length_m", i) },
      { title: cab === undefined ? "ordered m" : "piece ordered m", width: 70, num: true, get: ordered },
      { title: "route", width: 80, get: (i) => P.routeKind.values[P.routeKind.codes[i]] });
    return cols;
  }

  function renderCabinet(c, devSel) {
    const panel = $("panel-cabinet"), cab = P.cab, height = P.meta.cabinet_height_ru;
    const labels = { col: "column", x_m: "x (m)", y_m: "y (m)", ru_used: "rack units used", kw: "kW" };
    const fields = cab.names.filter((n) => n !== "name").map((n) => [labels[n] || n.replace(/_/g, " "),
      n === "kw" && P.kwBudget ? cab.text(n, c) + " of " + num(P.kwBudget) + " kW budget" : cab.text(n, c)]);
    fields.push(["cables (all)", num(P.cabStart[c + 1] - P.cabStart[c])]);
    if (P.fail.info.cabinet.measured) {
      fields.push(["θ after it fails", Number.isNaN(P.fail.ratio[c]) ? "not measured (no routers)" :
        P.fail.cut[c] > 0 ? "0: surviving endpoints cut off from each other" :
        ratioText(P.fail.ratio[c], P.fail.theta[c]) + ", " + num(P.fail.lost[c]) + " endpoints lost" +
        (P.fail.info.cabinet.worst === P.cab.text("name", c) ? " (the worst cabinet)" : "")]);
    }
    const unit = 12;
    const rack = el("div", { class: "rack" });
    rack.style.height = height * unit + 6 + "px";
    for (let u = 1; u <= height; u++) {
      const label = el("div", { class: "ru", text: String(u) });
      label.style.bottom = (u - 1) * unit + "px";
      rack.append(label);
    }
    const dev = P.dev, ru = dev.num("ru"), hgt = dev.num("height_ru");
    const unplaced = [];
    for (let k = P.devStart[c]; k < P.devStart[c + 1]; k++) {
      const i = P.devList[k];
      if (Number.isNaN(ru[i])) { unplaced.push(i); continue; }
      const kind = dev.text("kind", i);
      const box = el("div", { class: "dev " + kind + (i === devSel ? " sel" : ""),
        title: dev.text("name", i) + " · " + dev.text("model", i) + " · RU " + ru[i],
        data: { device: dev.text("name", i), ru: String(ru[i]) },
        text: dev.text("name", i) + (kind === "router" ? "  " + dev.text("model", i) : "") });
      box.style.bottom = (ru[i] - 1) * unit + "px";
      box.style.height = Math.max(hgt[i], 1) * unit - 1 + "px";
      box.style.lineHeight = Math.max(hgt[i], 1) * unit - 2 + "px";
      box.addEventListener("click", () => go(hashOf("device", dev.text("name", i))));
      rack.append(box);
    }
    // the fabric's boxes (cabinets.csv fabric_devices: name@U41, name@U40-41; name@0U unracked)
    const boxes = cab.names.includes("fabric_devices") ? cab.text("fabric_devices", c) : "";
    for (const item of boxes ? boxes.split(";") : []) {
      const m = /^(.*)@U([\d.]+)(?:-([\d.]+))?$/.exec(item);
      if (!m) continue;
      const low = Number(m[2]), units = (m[3] ? Number(m[3]) : low) - low + 1;
      const box = el("div", { class: "dev fabric", title: m[1] + " · RU " + low, text: m[1] });
      box.style.bottom = (low - 1) * unit + "px";
      box.style.height = units * unit - 1 + "px";
      box.style.lineHeight = units * unit - 2 + "px";
      rack.append(box);
    }
    const notes = el("div", { class: "rack-notes" });
    if (unplaced.length) {
      notes.append(el("p", { text: num(unplaced.length) + " devices without a rack unit (abstract rack): " +
        unplaced.slice(0, 12).map((i) => dev.text("name", i)).join(", ") + (unplaced.length > 12 ? ", …" : "") }));
    }
    let rows = Array.from(P.cabList.subarray(P.cabStart[c], P.cabStart[c + 1]));
    if (devSel >= 0) rows = rows.filter((i) => P.aDev[i] === devSel || P.bDev[i] === devSel);
    const side = (i) => (P.aCab[i] === c ? "a" : "b");
    rows.sort((i, j) => {
      const di = P.cables.text(side(i) + "_device", i), dj = P.cables.text(side(j) + "_device", j);
      if (di !== dj) return di < dj ? -1 : 1;
      return P.cables.num(side(i) + "_port")[i] - P.cables.num(side(j) + "_port")[j];
    });
    const seen = new Set();   // a twin-port end of a multi-link assembly once
    rows = rows.filter((i) => {
      if (!twinEnd(side(i), i)) return true;
      const key = assemblyOf(side(i), i) + "|" + side(i);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const title = devSel >= 0 ? "Pieces at " + dev.text("name", devSel) : "Pieces plugged in here";
    const where = [];
    if (P.geo.halls.length > 1) where.push("hall " + P.geo.halls[P.shape.num("hall")[c]].name);
    const row = P.geo.rows.find((r) => r.hall === P.shape.num("hall")[c] &&
      Math.abs((r.y0 + r.y1) / 2 - P.y[c]) < 1e-6);
    if (row) where.push("row " + row.name);
    if (P.group) where.push("electrical group " + P.group[c]);
    if (P.front[c]) where.push("front towards the " + (P.geo.aisles.length ? "cold aisle" : "aisle"));
    panel.replaceChildren(
      el("h2", { text: "Cabinet " + cab.text("name", c) }),
      el("p", { class: "sub", text: where.join(" · ") }),
      kvTable(fields),
      el("h3", { text: "Elevation (U1 at the bottom)" }),
      el("div", { class: "rack-wrap" }, rack, notes),
      el("h3", { text: title + " (" + num(rows.length) + ")" },
        devSel >= 0 ? el("span", null, " · ", link("all", hashOf("cabinet", cab.text("name", c)))) : null),
      virtualList(rows, cableColumns(c), (i) => go(hashOf("cable", P.cables.text("cable_id", i)))));
  }

  function renderCable(i) {
    const c = P.cables, panel = $("panel-cable");
    const known = new Set(["cable_id", "label", "kind", "media", "sku", "length_m",
      "order_length_m", "latency_ns"]);
    const pieces = c.has("segments") ? c.text("segments", i) : "";
    const steps = pieces ? pieces.split(" | ") : [];
    const end = (side) => {
      const cabName = c.text(side + "_cabinet", i);
      const dl = el("dl");
      // the piece plugged in at this end (planner.cabling.pieces): the cable, or this end's
      // patch cord and the panel front port it lands on
      const here = [["part", c.has(side + "_sku") ? c.text(side + "_sku", i) : c.text("sku", i)],
        ["piece ordered", (c.has(side + "_order_m") ? c.text(side + "_order_m", i) :
          c.text("order_length_m", i)) + " m"],
        ["transceiver", c.has(side + "_transceiver") ? c.text(side + "_transceiver", i) : ""]];
      if (steps.length > 2) here.push(["lands on", steps[side === "a" ? 1 : steps.length - 2]]);
      here.push(["piece", assemblyOf(side, i)]);
      const legs = legsOf(assemblyOf(side, i));
      if (legs) {
        const twin = twinEnd(side, i);
        if (twin) here.push(["connector ports", twin.map((k) => c.text(side + "_port", k)).join("+")]);
        const carried = el("span");
        legs.forEach((k, n) => carried.append(n ? ", " : "", link(c.text("cable_id", k), hashOf("cable", c.text("cable_id", k)))));
        here.push(["carries links", carried]);
      }
      for (const [k, v] of [["device", c.text(side + "_device", i)], ["port", c.text(side + "_port", i)],
        ["cabinet", link(cabName, hashOf("cabinet", cabName))], ["RU", c.text(side + "_ru", i)], ...here]) {
        dl.append(el("dt", { text: k }), el("dd", { data: { field: k.toLowerCase().replace(/ /g, "-") } }, v));
      }
      return el("div", { class: "end", data: { end: side } },
        el("span", { class: "tag", text: side.toUpperCase() }),
        link(c.text(side + "_device", i), hashOf("device", c.text(side + "_device", i))), dl);
    };
    for (const s of ["a", "b"]) {
      for (const k of ["device", "port", "cabinet", "ru", "sku", "order_m", "transceiver", "assembly"]) known.add(s + "_" + k);
    }
    const rows = [["cable id", c.text("cable_id", i)], ["kind", c.text("kind", i)],
      ["media", c.text("media", i)],
      ["part number", steps.length ? "one per piece (each end above, all pieces below)" : c.text("sku", i)],
      ["length", c.text("length_m", i) + " m"], ["ordered length", c.text("order_length_m", i) + " m"],
      ["latency", c.text("latency_ns", i) + " ns"],
      ["route", P.routeKind.values[P.routeKind.codes[i]]]];
    known.add("segments");
    for (const n of c.names) if (!known.has(n) && n !== "route_kind") rows.push([n.replace(/_/g, " "), c.text(n, i)]);
    panel.replaceChildren(
      el("h2", { text: c.text("label", i), data: { cable: c.text("cable_id", i) } }),
      el("div", { class: "ends" }, end("a"), end("b")),
      el("h3", { text: "Cable" }), kvTable(rows),
      el("h3", { text: "Route and length" }), routeTable(i),
      pieces ? el("h3", { text: "Through patch panels (A end first)" }) : null,
      pieces ? segmentTable(pieces) : null,
      el("p", null, link("Zoom to the route", "#", { on: { click: (e) => { e.preventDefault(); zoomToRoute(i); } } })));
  }

  const TRAY_LIST = 200;   // cables listed in a tray segment's panel; the rest counted

  function trayLines(k) {
    const f = P.fail, lines = ["tray segment " + f.trays.text("name", k),
      "network cables: " + num(f.trayStart[k + 1] - f.trayStart[k])];
    if (f.trayRatio) lines.push("θ after it fails: " + ratioText(f.trayRatio[k], f.trayTheta[k]));
    return lines;
  }

  function renderTray(k) {
    const f = P.fail, name = f.trays.text("name", k), info = f.info.tray;
    const mine = f.trayCables.subarray(f.trayStart[k], f.trayStart[k + 1]);
    const pairs = new Map();     // router pair -> cables
    for (const i of mine) {
      const a = P.cables.text("a_device", i), b = P.cables.text("b_device", i);
      const key = a < b ? a + " – " + b : b + " – " + a;
      pairs.set(key, (pairs.get(key) || 0) + 1);
    }
    const rows = [["network cables", num(mine.length)], ["router pairs (links)", num(pairs.size)]];
    if (f.trayRatio) {
      rows.push(["θ after it fails", f.trayCut[k] > 0 ? "0: surviving endpoints cut off from each other" :
        ratioText(f.trayRatio[k], f.trayTheta[k]) + (info.theta_kind === "exact" ? "" : " (upper bound)")]);
      rows.push(["endpoint pairs cut off", num(f.trayCut[k])]);
      if (info.worst === name) rows.push(["worst tray segment", "yes"]);
    } else {
      rows.push(["θ after it fails", "not measured: " + info.why]);
    }
    const pairList = [...pairs.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    const pairTable = el("table", { class: "grid pairs" },
      el("thead", {}, el("tr", {}, el("th", { text: "routers" }), el("th", { class: "n", text: "cables" }))),
      el("tbody", {}, ...pairList.slice(0, TRAY_LIST).map(([p, n]) => el("tr", { data: { pair: p } },
        el("td", { text: p }), el("td", { class: "n", text: num(n) })))));
    const shown = Array.from(mine.subarray(0, TRAY_LIST));
    const list = el("ul", { class: "tray-cables" }, ...shown.map((i) => el("li", { data: { cable: P.cables.text("cable_id", i) } },
      link(P.cables.text("cable_id", i), hashOf("cable", P.cables.text("cable_id", i))),
      " " + P.cables.text("a_device", i) + " – " + P.cables.text("b_device", i) + ", " +
      P.cables.text("length_m", i) + " m")));
    $("panel-tray").replaceChildren(el("h2", { text: "Tray segment " + name }),
      el("p", { class: "sub", text: "What it carries, and what the network delivers when it fails " +
        "(the segment and every cable along it cut)" }),
      kvTable(rows),
      el("h3", { text: "Router pairs" + (pairList.length > TRAY_LIST ? " (first " + TRAY_LIST + " of " + num(pairList.length) + ")" : "") }),
      pairTable,
      el("h3", { text: "Cables" + (mine.length > TRAY_LIST ? " (first " + TRAY_LIST + " of " + num(mine.length) + ")" : "") }),
      list);
  }

  function rackLines(r) {
    return ["patch rack " + r.name, "at " + r.where,
      "panels: " + num(r.panels.length) + ", " + num(r.ru_used) + " of " + num(r.height_ru) + " U used"];
  }

  function renderRack(k) {
    const r = P.racks[k], rows = r.panels.slice().reverse();   // top of the rack first
    const table = el("table", { class: "list" },
      el("thead", {}, el("tr", {}, ...["U", "panel", "part number", "trunks", "links"].map((h) => el("th", { text: h })))),
      el("tbody", {}, ...rows.map((p) => el("tr", { data: { panel: p[0] } },
        ...[num(p[1]), p[0], p[2], num(p[3]), num(p[4])].map((v) => el("td", { text: v }))))));
    $("panel-rack").replaceChildren(el("h2", { text: "Patch rack " + r.name }),
      kvTable([["stands at", r.where],
        ["panels", num(r.panels.length)], ["rack units used", num(r.ru_used) + " of " + num(r.height_ru)],
        ["links through it", num(r.panels.reduce((t, p) => t + p[4], 0))]]), table);
  }

  function segmentTable(text) {
    // cables.csv "segments": cord / panel:port / trunk pieces; their lengths add up to length_m
    const rows = [];
    let sum = 0, cords = 0;
    for (const piece of text.split(" | ")) {
      const w = piece.split(" ");
      if (w[0] === "cord") {
        sum += Number(w[1]);
        rows.push([(cords++ ? "B" : "A") + "-end patch cord", w[1] + " m · " + w[3]]);
      } else if (w[0] === "trunk") {
        sum += Number(w[2]);
        rows.push(["trunk " + w[1], w[2] + " m · " + w[4]]);
      } else {
        const at = piece.lastIndexOf(":"), panel = piece.slice(0, at), k = P.rackIndex.get(panel);
        rows.push(["panel " + panel, k === undefined ? "port " + piece.slice(at + 1)
          : el("span", {}, "port " + piece.slice(at + 1) + " · ", link(P.racks[k].name, hashOf("rack", P.racks[k].name)))]);
      }
    }
    rows.push(["pieces together", num(sum, 3) + " m"]);
    const table = kvTable(rows);
    table.dataset.segments = String(rows.length - 1);
    return table;
  }

  function routeTable(i) {
    // the route's steps, then the floor's per-cable overhead and slack: how length_m is made
    const model = P.meta.length_model, from = P.routeStart[i], to = P.routeStart[i + 1];
    const slack = 1 + model.slack_pct / 100, rows = [];
    let sum = 0;
    if (to === from) {
      rows.push(["inside the cabinet", num(model.intra_cabinet_m, 3) + " m"]);
      sum = model.intra_cabinet_m;
    }
    let last = null, run = 0;
    for (let k = from + 1; k < to; k++) {
      // a step drawn in several pieces (a hall link through the gaps) is listed once
      const kind = P.routeStep.values[P.routeStep.codes[k]], m = P.routeMetres[k];
      sum += m;
      run = kind === last && kind === "hall link" ? run + m : m;
      if (kind === last && kind === "hall link") rows[rows.length - 1][1] = num(run, 3) + " m";
      else rows.push([kind, num(m, 3) + " m"]);
      last = kind;
    }
    if (to > from && model.overhead_per_cable_m) {
      rows.push(["overhead per cable", num(model.overhead_per_cable_m, 3) + " m"]);
      sum += model.overhead_per_cable_m;
    }
    if (model.slack_pct) rows.push(["slack " + num(model.slack_pct) + " %", num(sum * (slack - 1), 3) + " m"]);
    rows.push(["length", num(sum * slack, 3) + " m (cables.csv: " + P.cables.text("length_m", i) + " m)"]);
    return kvTable(rows);
  }

  function setFilter(spec) {
    for (const k of ["media", "sku", "kind", "route", "min", "max"]) filter[k] = null;
    for (const f of filterFields()) {
      if (spec[f.key]) filter[f.key] = new Set(spec[f.key].map((v) => f.values.indexOf(v)));
    }
    if (spec.orderLength !== undefined) filter.orderLength = spec.orderLength;
    else delete filter.orderLength;
    applyFilter();
    if (filter.orderLength !== undefined) {
      const ord = P.cables.num("order_length_m");
      matches = matches.filter((i) => ord[i] === filter.orderLength);
      recount();
    }
  }

  function recount() {
    cabCount = new Int32Array(P.nCab);
    for (const i of matches) {
      cabCount[P.aCab[i]]++;
      if (P.bCab[i] !== P.aCab[i]) cabCount[P.bCab[i]]++;
    }
  }

  function renderCables() {
    const panel = $("panel-cables"), c = P.cables;
    const groups = filterFields().map(({ key, title, values, counts }) => {
      const d = { values };
      const box = el("fieldset", { data: { field: key } }, el("legend", { text: title }));
      values.forEach((v, code) => {
        const input = el("input", { type: "checkbox", value: String(code), data: { value: v } });
        input.checked = !filter[key] || filter[key].has(code);
        input.addEventListener("change", () => {
          const on = [...box.querySelectorAll("input")].filter((x) => x.checked).map((x) => Number(x.value));
          filter[key] = on.length === d.values.length ? null : new Set(on);
          delete filter.orderLength;
          refreshCables();
        });
        box.append(el("label", null, input, v + " (" + num(counts[code]) + ")"));
      });
      return box;
    });
    const range = el("fieldset", null, el("legend", { text: "Length (m)" }));
    for (const [key, text] of [["min", "from"], ["max", "to"]]) {
      const input = el("input", { type: "number", min: "0", step: "0.1", id: "len-" + key });
      if (filter[key] !== null) input.value = String(filter[key]);
      input.addEventListener("input", () => {
        filter[key] = input.value === "" ? null : Number(input.value);
        delete filter.orderLength;
        refreshCables();
      });
      range.append(el("label", null, text, input));
    }
    panel.replaceChildren(el("h2", { text: "Cables" }),
      el("div", { class: "filters" }, ...groups, range),
      el("div", { id: "filter-result" }));
    refreshCables(true);
  }

  function refreshCables(keep) {
    if (!keep) applyFilter();
    const c = P.cables, d = c.dict("media"), byMedia = new Int32Array(d.values.length);
    for (const i of matches) byMedia[d.codes[i]]++;
    const counts = el("p", { class: "counts", id: "filter-count", data: { count: String(matches.length) } },
      num(matches.length) + " cables" + (filter.orderLength !== undefined ? " of ordered length " + filter.orderLength + " m" : "") + ": ",
      ...d.values.flatMap((v, k) => [k ? ", " : "", el("span", { data: { media: v, count: String(byMedia[k]) }, text: v + " " + num(byMedia[k]) })]));
    $("filter-result").replaceChildren(counts,
      virtualList(matches, cableColumns(), (i) => go(hashOf("cable", c.text("cable_id", i)))));
    requestDraw();
  }

  // ------------------------------------------------------------------ search
  function buildIndex() {
    if (P.searchIndex) return P.searchIndex;
    const started = performance.now();
    const index = new Map(), c = P.cables, d = P.dev;
    const put = (key, hit) => { const k = key.toUpperCase(); if (!index.has(k)) index.set(k, hit); };
    for (let i = 0; i < P.nCab; i++) put(P.cab.text("name", i), ["cabinet", i]);
    for (let i = 0; i < d.rows; i++) put(d.text("name", i), ["device", i]);
    for (let i = 0; i < P.nCables; i++) put(c.text("cable_id", i), ["cable", i]);
    for (let i = 0; i < P.nCables; i++) put(c.text("label", i), ["cable", i]);
    if (c.has("segments")) {
      // a link's patch cords (planner.cabling.pieces: C0006.A, C0006.B) find their link
      for (let i = 0; i < P.nCables; i++) {
        if (c.text("segments", i)) for (const e of [".A", ".B"]) put(c.text("cable_id", i) + e, ["cable", i]);
      }
    }
    if (c.has("a_assembly")) {
      // a multi-link assembly's id (C0091+C0092, as its labels print it) finds its first link
      for (let i = 0; i < P.nCables; i++) {
        const id = c.text("a_assembly", i);
        if (id.includes("+")) put(id, ["cable", i]);
      }
    }
    for (const [name, k] of P.rackIndex) put(name, ["rack", k]);
    P.searchIndex = index;
    stats.indexMs = performance.now() - started;
    return index;
  }

  function cableOnPort(device, port) {
    const c = P.devCab[device];
    const aPort = P.cables.num("a_port"), bPort = P.cables.num("b_port");
    for (let k = P.cabStart[c]; k < P.cabStart[c + 1]; k++) {
      const i = P.cabList[k];
      if ((P.aDev[i] === device && aPort[i] === port) || (P.bDev[i] === device && bPort[i] === port)) return i;
    }
    return -1;
  }

  function resolve(query) {
    const q = query.trim();
    if (!q) return null;
    const index = buildIndex();
    const hit = index.get(q.toUpperCase());
    if (hit) return hit;
    const colon = q.lastIndexOf(":");
    if (colon > 0) {
      const dev = index.get(q.slice(0, colon).trim().toUpperCase());
      const port = Number(q.slice(colon + 1));
      if (dev && dev[0] === "device" && Number.isInteger(port)) {
        const i = cableOnPort(dev[1], port);
        if (i >= 0) return ["cable", i];
      }
    }
    return null;
  }

  function suggestions(query, limit) {
    const q = query.trim().toUpperCase(), out = [];
    if (!q) return out;
    const scan = (kind, n, text, test) => {
      for (let i = 0; i < n && out.length < limit; i++) {
        const t = text(i);
        if (test(t.toUpperCase())) out.push([kind, i, t]);
      }
    };
    const prefix = (t) => t.startsWith(q), inside = (t) => t.includes(q);
    scan("cabinet", P.nCab, (i) => P.cab.text("name", i), prefix);
    scan("rack", P.racks.length, (i) => P.racks[i].name, prefix);
    scan("device", P.dev.rows, (i) => P.dev.text("name", i), prefix);
    scan("cable", P.nCables, (i) => P.cables.text("cable_id", i), prefix);
    scan("cable", P.nCables, (i) => P.cables.text("label", i), inside);
    return out;
  }

  function hitHash([kind, i]) {
    if (kind === "cabinet") return hashOf("cabinet", P.cab.text("name", i));
    if (kind === "device") return hashOf("device", P.dev.text("name", i));
    if (kind === "rack") return hashOf("rack", P.racks[i].name);
    return hashOf("cable", P.cables.text("cable_id", i));
  }

  function message(text) {
    const m = $("message");
    m.textContent = text;
    m.hidden = !text;
    clearTimeout(message.timer);
    if (text) message.timer = setTimeout(() => { m.hidden = true; }, 5000);
  }

  function wireSearch() {
    const input = $("search"), list = $("suggest");
    let active = -1, current = [];
    const close = () => { list.hidden = true; active = -1; };
    const pick = (hit) => { close(); go(hitHash(hit)); };
    const show = () => {
      current = suggestions(input.value, 12);
      list.replaceChildren(...current.map((h, k) => el("li", { role: "option", class: k === active ? "active" : "",
        on: { mousedown: (e) => { e.preventDefault(); pick(h); } } },
      el("span", { class: "what", text: h[0] }), el("span", { text: h[2] }))));
      list.hidden = current.length === 0;
    };
    let timer = 0;
    input.addEventListener("input", () => { clearTimeout(timer); active = -1; timer = setTimeout(show, 120); });
    input.addEventListener("keydown", (e) => {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        if (!current.length) return;
        e.preventDefault();
        active = (active + (e.key === "ArrowDown" ? 1 : current.length - 1)) % current.length;
        [...list.children].forEach((li, k) => li.classList.toggle("active", k === active));
      } else if (e.key === "Escape") close();
    });
    input.addEventListener("blur", () => setTimeout(close, 150));
    $("search-form").addEventListener("submit", (e) => {
      e.preventDefault();
      clearTimeout(timer);
      if (active >= 0 && current[active]) return pick(current[active]);
      const hit = resolve(input.value);
      if (hit) return pick(hit);
      const near = suggestions(input.value, 1);
      if (near.length) return pick(near[0]);
      close();
      message("Nothing in this plan matches “" + input.value.trim() + "”: try a cable label (A01-40:17/…), cable id, device (r012), device:port (r012:7), cabinet (A01) or patch rack or panel (A-P0, A-P0-01).");
    });
    document.addEventListener("keydown", (e) => {
      if (e.key === "/" && document.activeElement !== input) { e.preventDefault(); input.focus(); input.select(); }
    });
  }

  // ------------------------------------------------------------------ navigation (#hash)
  function go(hash) {
    if (location.hash === hash) route(); else location.hash = hash;
  }

  function route() {
    const h = decodeURIComponent(location.hash.slice(1));
    const eq = h.indexOf("="), kind = eq < 0 ? h : h.slice(0, eq), value = eq < 0 ? "" : h.slice(eq + 1);
    view.traced = -1;
    view.selCab = -1;
    view.selDev = -1;
    view.selRack = -1;
    view.selTray = -1;
    if (kind === "tray" && P.fail.trayIndex.has(value)) {
      const k = P.fail.trayIndex.get(value);
      view.selTray = k;
      if (!view.trays) { view.trays = true; $("show-trays").checked = true; }
      renderTray(k);
      showPanel("tray");
      requestDraw();
      return;
    }
    if (kind === "rack" && P.rackIndex.has(value)) {
      const k = P.rackIndex.get(value), r = P.racks[k], w = P.geo.cabinet_width_m, d = P.geo.cabinet_depth_m;
      view.selRack = k;
      renderRack(k);
      showPanel("rack");
      fitTo(r.x - 4 * w, r.y - 4 * d, r.x + 4 * w, r.y + 4 * d, Math.max(cam.fit, 60));
      return;
    }
    if (kind === "cable") {
      const hit = buildIndex().get(value.toUpperCase());
      if (hit && hit[0] === "cable") {
        view.traced = hit[1];
        renderCable(hit[1]);
        showPanel("cable");
        zoomToRoute(hit[1]);
        return;
      }
    } else if (kind === "cabinet" || kind === "device") {
      let c = -1, d = -1;
      if (kind === "cabinet") c = P.cabIndex.has(value) ? P.cabIndex.get(value) : -1;
      else {
        const hit = buildIndex().get(value.toUpperCase());
        if (hit && hit[0] === "device") { d = hit[1]; c = P.devCab[d]; }
      }
      if (c >= 0) {
        view.selCab = c;
        view.selDev = d;
        renderCabinet(c, d);
        showPanel("cabinet");
        zoomToCabinets([c]);
        return;
      }
    } else if (kind === "bom") {
      renderBom(new Set(value.split(",").filter((v) => v !== "").map(Number)));
      showPanel("bom");
      requestDraw();
      return;
    } else if (kind === "cables") {
      renderCables();
      showPanel("cables");
      return;
    }
    if (kind && kind !== "summary") message("Not in this plan: " + h);
    showPanel("summary");
    requestDraw();
  }

  // ------------------------------------------------------------------ start
  function fail(err) {
    console.error(err);
    document.body.dataset.ready = "error";
    const m = $("message");
    m.textContent = "The plan viewer could not start: " + (err && err.message ? err.message : err);
    m.hidden = false;
  }

  async function start() {
    const data = decode(await inflate($("plan-data").textContent.trim()));
    P = model(data);
    CURRENCY = (((data.summary || {}).cost || {}).price_basis || {}).currency || "USD";
    $("title").textContent = P.meta.title;
    applyFilter();
    wireFloor();
    wireSearch();
    for (const b of document.querySelectorAll("#tabs button")) {
      b.addEventListener("click", () => go("#" + b.dataset.panel));
    }
    renderSummary();
    resize();
    draw();            // fills the legend, whose height the fit leaves free
    fitAll();
    route();
    window.addEventListener("hashchange", route);
    draw();
    window.plannerViewer = {
      // for tests and scripts: a cabinet's rectangle on the screen (CSS px from the canvas's
      // top left), and the cabinet drawn under a screen position
      cabinetBox: (name) => {
        const c = P.cabIndex.get(name);
        if (c === undefined) return null;
        const w = P.geo.cabinet_width_m / 2, d = P.geo.cabinet_depth_m / 2;
        return [(P.x[c] - w) * cam.s + cam.ox, (P.y[c] - d) * cam.s + cam.oy,
          (P.x[c] + w) * cam.s + cam.ox, (P.y[c] + d) * cam.s + cam.oy];
      },
      cabinetAt: (px, py) => { const c = cabinetAt(px, py); return c < 0 ? null : P.cab.text("name", c); },
      // a patch rack's centre on the screen, and the patch rack drawn under a screen position
      rackCentre: (name) => {
        const k = P.rackIndex.get(name);
        return k === undefined ? null : [P.racks[k].x * cam.s + cam.ox, P.racks[k].y * cam.s + cam.oy];
      },
      rackAt: (px, py) => { const k = rackAt(px, py); return k < 0 ? null : P.racks[k].name; },
      // a tray segment's middle on the screen (its longest piece's), the segment under a screen
      // position (with the tray layer on), and a cabinet's θ after failure / intact (null: not
      // measured) with the colour it is drawn in
      trayCentre: (name) => {
        const k = P.fail.trayIndex.get(name);
        if (k === undefined) return null;
        const pts = trayPoints(k);
        let best = 0, at = [0, 0];
        for (let i = 1; i < pts.length; i++) {
          const len = Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]);
          if (len >= best) { best = len; at = [(pts[i][0] + pts[i - 1][0]) / 2, (pts[i][1] + pts[i - 1][1]) / 2]; }
        }
        return [at[0] * cam.s + cam.ox, at[1] * cam.s + cam.oy];
      },
      trayAt: (px, py) => { const k = trayAt(px, py); return k < 0 ? null : P.fail.trays.text("name", k); },
      cabinetTheta: (name) => {
        const c = P.cabIndex.get(name);
        if (c === undefined || Number.isNaN(P.fail.ratio[c])) return null;
        const [lo, hi] = ratioRange(P.fail.ratio);
        return { ratio: P.fail.ratio[c], theta: P.fail.theta[c], colour: ratioColour(P.fail.ratio[c], lo, hi) };
      },
      fit: fitAll,
      stats,
    };
    document.body.dataset.ready = "1";
    document.body.dataset.readyMs = String(Math.round(performance.now()));
    setTimeout(buildIndex, 0);
  }

  start().catch(fail);
})();
