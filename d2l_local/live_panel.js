// Static side of d2l_local.live_panel: the trained language models of the
// page run here, in the reader's browser, on the reader's own text. A small
// forward pass of the book's decoder (d2l_local/decoder.py): token
// embeddings, an absolute table where the method has one, pre-norm blocks of
// causal attention with position brought in as relative_family.py does, a
// final norm and the logits. The model is causal, so after an edit only the
// positions from the first changed character on are computed again; the
// keys and values before it are kept, as in KV-cached decoding.
(function (script) {
  "use strict";
  const root = script.closest(".d2l-live-panel");
  if (!root || root.dataset.ready) return;
  const settings = JSON.parse(root.dataset.settings);
  const L = settings.L;
  const source = root.querySelector("script.d2l-control-data");
  const box = root.querySelector("textarea.d2l-live-text");
  const open = root.querySelector("button.d2l-live-open");
  const status = root.querySelector(".d2l-live-status");
  const body = root.querySelector(".d2l-live-body");
  const lossFigure = root.querySelector("figure.d2l-live-loss");
  const summary = root.querySelector("table.d2l-live-summary tbody");
  const methodSelect = root.querySelector("select.d2l-live-method");
  const layerSelect = root.querySelector("select.d2l-live-layer");
  const queryNote = root.querySelector(".d2l-live-query");
  const attentionFigure = root.querySelector("figure.d2l-live-attention");
  const showButtons = Array.from(root.querySelectorAll("button[data-method]"));
  const index = new Map(settings.vocabulary.map((c, k) => [c, k]));
  const OTHER = settings.vocabulary.length - 1;
  const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#e377c2",
    "#8c564b", "#ff7f0e", "#17becf", "#7f7f7f", "#bcbd22"];
  root.dataset.ready = "closed";

  function encode(text) {
    // As d2l_local.text.encode: one token per character (code point), the
    // last entry for characters outside the vocabulary.
    return Array.from(text, (c) => index.has(c) ? index.get(c) : OTHER);
  }

  // ---- The weights: int8 rows with one float32 scale per row, or float32.
  function tensors(buffer, description) {
    const views = {};
    for (const [key, [dtype, offset, size]] of Object.entries(description.index)) {
      views[key] = dtype === "int8" ? new Int8Array(buffer, offset, size)
        : new Float32Array(buffer, offset, size);
    }
    return function weight(spec, name) {
      const owner = spec.aliases[name];
      if (owner === undefined) throw new Error(spec.method + ": no " + name);
      const plain = spec.tensors[owner];
      if (plain !== undefined) return Float64Array.from(views[plain]);
      const q = views[spec.tensors[owner + ".q"]];
      const scale = views[spec.tensors[owner + ".scale"]];
      const cols = q.length / scale.length;
      const out = new Float64Array(q.length);
      for (let r = 0; r < scale.length; r++) {
        for (let c = 0; c < cols; c++) {
          // float32 product, as torch's dequantize computes it
          out[r * cols + c] = Math.fround(q[r * cols + c] * scale[r]);
        }
      }
      return out;
    };
  }

  // Which two columns of a head of width D form rotation pair l: the
  // paper's adjacent layout (relative.rope's default), as the models were
  // trained.
  function pairColumns(l, D) {
    return [2 * l, 2 * l + 1];
  }

  // ALiBi's slope for head r of h (r from 0): 2^(-8(r + 1)/h).
  function alibiSlope(r, heads) {
    return Math.pow(2, -8 * (r + 1) / heads);
  }

  // The error function, for torch's exact GELU: its Taylor series below 3,
  // the continued fraction of erfc from 3 to 6, 1 beyond (erfc(6) < 3e-17).
  function erf(x) {
    const a = Math.abs(x);
    let r;
    if (a < 3) {
      let term = a, sum = a, k = 0;
      const x2 = a * a;
      while (Math.abs(term) > 1e-17 * Math.abs(sum)) {
        k += 1;
        term *= -x2 / k;
        sum += term / (2 * k + 1);
        if (k > 200) break;
      }
      r = sum * 1.1283791670955126;
    } else if (a < 6) {
      // erfc(a) = exp(-a^2)/sqrt(pi) / (a + 1/2/(a + 1/(a + 3/2/(a + ...))))
      let f = a;
      for (let k = 60; k >= 1; k--) f = a + (k / 2) / f;
      r = 1 - Math.exp(-a * a) / 1.7724538509055159 / f;
    } else r = 1;
    return x < 0 ? -r : r;
  }

  class Model {
    constructor(spec, weight, maxChars) {
      this.spec = spec;
      this.W = spec.width;
      this.H = spec.heads;
      this.D = spec.width / spec.heads;
      this.limit = spec.max_len ? Math.min(spec.max_len, maxChars) : maxChars;
      const w = (name) => weight(spec, name);
      this.embedding = w("embedding.weight");
      this.V = this.embedding.length / this.W;
      this.table = spec.positions === "learned" ? w("positions.P") : null;
      this.blocks = spec.layers.map((layer, k) => {
        const p = "blocks." + k + ".";
        const block = {
          kind: layer.kind,
          norm1: [w(p + "norm1.weight"), w(p + "norm1.bias")],
          norm2: [w(p + "norm2.weight"), w(p + "norm2.bias")],
          q: [w(p + "attention.W_q.weight"), w(p + "attention.W_q.bias")],
          k: [w(p + "attention.W_k.weight"), w(p + "attention.W_k.bias")],
          v: [w(p + "attention.W_v.weight"), w(p + "attention.W_v.bias")],
          o: [w(p + "attention.W_o.weight"), w(p + "attention.W_o.bias")],
          up: [w(p + "mlp.0.weight"), w(p + "mlp.0.bias")],
          down: [w(p + "mlp.2.weight"), w(p + "mlp.2.bias")],
          Q: new Float64Array(this.limit * this.W),
          K: new Float64Array(this.limit * this.W),
          Vals: new Float64Array(this.limit * this.W),
          // RoPE: the angle per position of each pair and its two columns.
          omega: layer.kind === "rope" ? layer.omega : [],
          pairs: layer.kind === "rope" ? layer.omega.map((_, l) => pairColumns(l, this.D)) : [],
          // What position adds to a score, per head and distance i - j
          // (ALiBi's penalty, T5's bucket bias; zero for the others).
          distanceBias: new Float64Array(this.H * this.limit),
        };
        const bias = block.distanceBias;
        if (layer.kind === "alibi") {
          for (let r = 0; r < this.H; r++) {
            const slope = Math.fround(alibiSlope(r, this.H));
            for (let d = 0; d < this.limit; d++) bias[r * this.limit + d] = -Math.fround(slope * d);
          }
        } else if (layer.kind === "t5") {
          const table = w(p + "attention.bias.weight");
          const buckets = layer.buckets;
          for (let r = 0; r < this.H; r++) {
            for (let d = 0; d < this.limit; d++) {
              bias[r * this.limit + d] = table[buckets[Math.min(d, buckets.length - 1)] * this.H + r];
            }
          }
        }
        return block;
      });
      this.hidden = this.blocks[0].up[1].length;
      this.norm = [w("norm.weight"), w("norm.bias")];
      this.output = [w("output.weight"), w("output.bias")];
      this.logits = new Float64Array(this.limit * this.V);
      this.lse = new Float64Array(this.limit);
      this.context = new Float64Array(this.W);
      this.tokens = [];
      this.n = 0;
    }

    // Run positions from..n-1 of tokens (cut at the model's limit); the
    // positions before ``from`` are kept from the previous call.
    run(tokens, from) {
      const n = Math.min(tokens.length, this.limit);
      from = Math.min(from, this.n, n);
      this.tokens = tokens.slice(0, n);
      this.n = n;
      const W = this.W;
      const x = new Float64Array(W), h = new Float64Array(W);
      const att = new Float64Array(W), mid = new Float64Array(this.hidden);
      const scores = new Float64Array(n);
      for (let i = from; i < n; i++) {
        const t = this.tokens[i];
        for (let c = 0; c < W; c++) x[c] = this.embedding[t * W + c];
        if (this.table) {
          for (let c = 0; c < W; c++) x[c] = Math.fround(x[c] + this.table[i * W + c]);
        } else if (this.spec.positions === "sinusoidal") {
          const f = this.spec.frequencies;
          for (let l = 0; l < f.length; l++) {
            x[2 * l] += Math.fround(Math.sin(i * f[l]));
            if (2 * l + 1 < W) x[2 * l + 1] += Math.fround(Math.cos(i * f[l]));
          }
        }
        for (const block of this.blocks) {
          layerNorm(x, block.norm1, h);
          this.attend(block, h, i, scores, att);
          for (let c = 0; c < W; c++) x[c] += att[c];
          layerNorm(x, block.norm2, h);
          linear(block.up, h, mid);
          for (let c = 0; c < mid.length; c++) {
            mid[c] = 0.5 * mid[c] * (1 + erf(mid[c] * Math.SQRT1_2));
          }
          linear(block.down, mid, att);
          for (let c = 0; c < W; c++) x[c] += att[c];
        }
        layerNorm(x, this.norm, h);
        const row = this.logits.subarray(i * this.V, (i + 1) * this.V);
        linear(this.output, h, row);
        let top = -Infinity, total = 0;
        for (let v = 0; v < this.V; v++) top = Math.max(top, row[v]);
        for (let v = 0; v < this.V; v++) total += Math.exp(row[v] - top);
        this.lse[i] = top + Math.log(total);
      }
    }

    // One layer's attention for position i: queries, keys and values of
    // row i, position brought in, then softmax over keys 0..i.
    attend(block, h, i, scores, out) {
      const W = this.W, D = this.D;
      const q = block.Q.subarray(i * W, (i + 1) * W);
      const k = block.K.subarray(i * W, (i + 1) * W);
      const v = block.Vals.subarray(i * W, (i + 1) * W);
      linear(block.q, h, q);
      linear(block.k, h, k);
      linear(block.v, h, v);
      if (block.omega.length) {
        for (let head = 0; head < this.H; head++) {
          for (let l = 0; l < block.omega.length; l++) {
            if (block.omega[l] === 0) continue;
            const angle = i * block.omega[l];
            const cos = Math.fround(Math.cos(angle)), sin = Math.fround(Math.sin(angle));
            const a = head * D + block.pairs[l][0], b = head * D + block.pairs[l][1];
            let even = q[a], odd = q[b];
            q[a] = even * cos - odd * sin;
            q[b] = even * sin + odd * cos;
            even = k[a];
            odd = k[b];
            k[a] = even * cos - odd * sin;
            k[b] = even * sin + odd * cos;
          }
        }
      }
      const context = this.context, values = block.Vals;
      context.fill(0);
      for (let head = 0; head < this.H; head++) {
        this.row(block, head, i, scores);
        const offset = head * D;
        for (let j = 0; j <= i; j++) {
          const weight = scores[j], at = j * W + offset;
          for (let d = 0; d < D; d++) context[offset + d] += weight * values[at + d];
        }
      }
      linear(block.o, context, out);
    }

    // The attention weights of one head from query i over keys 0..i.
    row(block, head, i, weights) {
      const W = this.W, D = this.D, scale = 1 / Math.sqrt(D);
      const Q = block.Q, K = block.K, at = i * W + head * D;
      const bias = block.distanceBias, row = head * this.limit + i;
      let top = -Infinity;
      for (let j = 0; j <= i; j++) {
        let s = 0;
        const from = j * W + head * D;
        for (let d = 0; d < D; d++) s += Q[at + d] * K[from + d];
        s = s * scale + bias[row - j];
        weights[j] = s;
        if (s > top) top = s;
      }
      let total = 0;
      for (let j = 0; j <= i; j++) {
        weights[j] = Math.exp(weights[j] - top);
        total += weights[j];
      }
      for (let j = 0; j <= i; j++) weights[j] /= total;
      return weights;
    }

    // Bits of each next character: bits[i] predicts character i + 1.
    bits() {
      const out = new Float64Array(Math.max(0, this.n - 1));
      for (let i = 0; i + 1 < this.n; i++) {
        out[i] = (this.lse[i] - this.logits[i * this.V + this.tokens[i + 1]]) / Math.LN2;
      }
      return out;
    }
  }

  function linear(pair, x, out) {
    const weight = pair[0], bias = pair[1];
    const n = x.length;
    for (let o = 0; o < out.length; o++) {
      let s = bias[o];
      const base = o * n;
      for (let c = 0; c < n; c++) s += weight[base + c] * x[c];
      out[o] = s;
    }
  }

  function layerNorm(x, pair, out) {
    const gain = pair[0], bias = pair[1];
    const n = x.length;
    let mean = 0, variance = 0;
    for (let c = 0; c < n; c++) mean += x[c];
    mean /= n;
    for (let c = 0; c < n; c++) variance += (x[c] - mean) ** 2;
    const inv = 1 / Math.sqrt(variance / n + 1e-5);
    for (let c = 0; c < n; c++) out[c] = (x[c] - mean) * inv * gain[c] + bias[c];
  }

  // ---- Loading: inline in a notebook; in the built book a script file of
  // its own (see _ext/book_pages.py), fetched when the reader opens the
  // panel.
  function loadData() {
    if (source.type === "application/json") return Promise.resolve(JSON.parse(source.textContent));
    const stored = () => (window.d2lControlData || {})[root.id];
    if (stored()) return Promise.resolve(stored());
    return new Promise((resolve, reject) => {
      const file = document.createElement("script");
      file.src = source.dataset.src;
      file.onload = () => stored() ? resolve(stored()) : reject(new Error("no weights in " + file.src));
      file.onerror = () => reject(new Error("could not load " + file.src));
      document.head.appendChild(file);
    });
  }

  let models = [], description = null, shown = "", query = null, timer = null;
  const palette = (k) => COLOURS[k % COLOURS.length];

  // Bring one model up to the text: from its first changed character on.
  function catchUp(model, tokens) {
    let first = 0;
    const limit = Math.min(tokens.length, model.n);
    while (first < limit && model.tokens[first] === tokens[first]) first++;
    model.run(tokens, first);
  }

  // After an edit: every model caught up, then one redraw. An edit far
  // from the end costs more than a frame; then the models catch up a few at
  // a time, so that typing is not held up, and a newer edit starts over
  // (each model keeps the text it last read).
  let edits = 0;
  function update() {
    timer = null;
    const mine = ++edits;
    const tokens = encode(box.value.slice(0, settings.maxChars));
    let k = 0;
    const step = () => {
      if (mine !== edits) return;
      const started = performance.now();
      while (k < models.length) {
        catchUp(models[k++], tokens);
        if (k < models.length && performance.now() - started > 40) {
          setTimeout(step, 0);
          return;
        }
      }
      draw();
    };
    step();
  }

  function updateNow() {
    edits++;
    const tokens = encode(box.value.slice(0, settings.maxChars));
    for (const model of models) catchUp(model, tokens);
    draw();
  }

  // Text for an attribute or an element of the SVG drawn as markup.
  function escape(value) {
    return String(value).replace(/&/g, "&amp;").replace(/</g, "&lt;")
      .replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  function figureWidth() {
    return Math.max(300, Math.min(720, Math.round(lossFigure.clientWidth || 640)));
  }

  function mean(values, from, to) {
    let s = 0, count = 0;
    for (let i = from; i < Math.min(to, values.length); i++) { s += values[i]; count++; }
    return count ? s / count : null;
  }

  function smooth(values, width) {
    const out = new Float64Array(values.length);
    let s = 0;
    for (let i = 0; i < values.length; i++) {
      s += values[i];
      if (i >= width) s -= values[i - width];
      out[i] = s / Math.min(i + 1, width);
    }
    return out;
  }

  function draw() {
    const started = performance.now();
    const n = Math.max(2, encode(box.value.slice(0, settings.maxChars)).length);
    // Drawn at the figure's own width, so that its text keeps its size.
    const width = figureWidth(), height = 240, left = 34, right = 8, top = 10, bottom = 30;
    const xs = (i) => left + (width - left - right) * i / Math.max(1, n - 1);
    const all = models.map((m) => m.bits());
    const smoothed = all.map((b) => smooth(b, 16));
    const visible = models.map((m, k) => shown === "" || shown === m.spec.method);
    const one = shown !== "";
    let highest = 8;
    all.forEach((b, k) => {
      if (visible[k]) for (const v of one ? b : smoothed[k]) highest = Math.max(highest, v);
    });
    highest = Math.min(16, Math.ceil(highest));
    const ys = (v) => top + (height - top - bottom) * (1 - Math.min(v, highest) / highest);
    const parts = [];
    for (let v = 0; v <= highest; v += highest > 8 ? 4 : 2) {
      parts.push(`<line x1="${left}" x2="${width - right}" y1="${ys(v)}" y2="${ys(v)}" stroke="currentColor" stroke-opacity="0.15"/>` +
        `<text x="${left - 4}" y="${ys(v) + 4}" text-anchor="end" font-size="12" fill="currentColor">${v}</text>`);
    }
    if (L < n) {
      parts.push(`<line x1="${xs(L)}" x2="${xs(L)}" y1="${top}" y2="${height - bottom}" stroke="currentColor" stroke-dasharray="4 3"/>` +
        `<text x="${xs(L) + 3}" y="${top + 12}" font-size="13" fill="currentColor">L = ${L}</text>`);
    }
    parts.push(`<text x="${(left + width) / 2}" y="${height - 6}" text-anchor="middle" font-size="13" fill="currentColor">position in your text</text>`);
    parts.push(`<text x="12" y="${(top + height - bottom) / 2}" text-anchor="middle" font-size="13" fill="currentColor" transform="rotate(-90 12 ${(top + height - bottom) / 2})">bits</text>`);
    all.forEach((b, k) => {
      if (!visible[k] || b.length === 0) return;
      const colour = palette(k);
      const line = (values, attrs) => `<polyline fill="none" stroke="${colour}" ${attrs} points="` +
        Array.from(values, (v, i) => xs(i).toFixed(1) + "," + ys(v).toFixed(1)).join(" ") + `"/>`;
      if (one) parts.push(line(b, 'stroke-width="1" stroke-opacity="0.6"'));
      parts.push(line(smoothed[k], `stroke-width="${one ? 2.5 : 1.8}" data-method="${escape(models[k].spec.method)}"`));
    });
    if (query !== null && query < n) {
      parts.push(`<line x1="${xs(query)}" x2="${xs(query)}" y1="${top}" y2="${height - bottom}" stroke="currentColor" stroke-width="2" stroke-opacity="0.5"/>`);
    }
    const after = [];
    summary.innerHTML = models.map((m, k) => {
      const b = all[k], before = mean(b, 0, L), past = mean(b, L, b.length);
      if (past !== null) after.push(m.spec.method + " " + past.toFixed(2));
      const cell = (v, missing) => v === null ? `<td>${missing}</td>` : `<td>${v.toFixed(2)}</td>`;
      return `<tr><th scope="row"><span aria-hidden="true" style="color:${palette(k)}">\u25A0</span> ${escape(m.spec.method)}</th>` +
        cell(before, "\u2013") + cell(past, m.spec.max_len && n > L ? "no row past L" : "\u2013") + "</tr>";
    }).join("");
    const label = (one ? "Loss of " + shown : "Loss of every method") +
      " in bits at each of the " + n + " positions of your text, a running mean over 16 characters" +
      (L < n ? ", with the training length L = " + L + " marked" + (after.length ? "; mean bits after L: " + after.join(", ") : "") : "") + ".";
    lossFigure.innerHTML = `<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${escape(label)}">${parts.join("")}</svg>` +
      `<figcaption class="d2l-live-note">${one ? "Thin: each character's bits; thick: their" : "Each method's"} running mean over 16 characters. Past the dashed line the models read positions they never saw in training.` +
      (n > L && models.some((m) => m.spec.max_len) ? " The learned table has only L rows: that model reads the first L characters only." : "") + `</figcaption>`;
    if (query !== null) drawAttention();
    root.dataset.drawn = String(Number(root.dataset.drawn || 0) + 1);
    root.dataset.drawMs = (performance.now() - started).toFixed(1);
    root.dataset.drawnAt = String(performance.now());
  }

  function drawAttention() {
    const model = models[Number(methodSelect.value)];
    const layer = Number(layerSelect.value);
    if (query === null || model.n === 0) return;
    const i = Math.min(query, model.n - 1);
    const block = model.blocks[layer];
    const weights = new Float64Array(i + 1);
    const n = Math.max(2, model.n);
    const width = figureWidth(), rowHeight = 44, left = 60, right = 8;
    const xs = (j) => left + (width - left - right) * j / Math.max(1, n - 1);
    const step = Math.max(1, (width - left - right) / Math.max(1, n - 1));
    const parts = [], words = [], sums = [];
    const text = Array.from(box.value);
    const show = (c) => c === "\n" ? "newline" : c === " " ? "space" : "\u201c" + c + "\u201d";
    for (let head = 0; head < model.H; head++) {
      model.row(block, head, i, weights);
      const y0 = head * rowHeight + 4, base = y0 + rowHeight - 10;
      let total = 0, best = 0;
      const bars = [];
      for (let j = 0; j <= i; j++) {
        total += weights[j];
        if (weights[j] > weights[best]) best = j;
        const h = (rowHeight - 14) * weights[j];
        if (h > 0.2) bars.push(`M${xs(j).toFixed(1)} ${base}v${(-h).toFixed(1)}`);
      }
      sums.push(total);
      parts.push(`<text x="0" y="${base - 6}" font-size="13" fill="currentColor">head ${head + 1}</text>` +
        `<line x1="${left}" x2="${width - right}" y1="${base}" y2="${base}" stroke="currentColor" stroke-opacity="0.3"/>` +
        `<path d="${bars.join("")}" stroke="${palette(Number(methodSelect.value))}" stroke-width="${Math.min(6, Math.max(1.2, step * 0.7)).toFixed(1)}"/>`);
      words.push("head " + (head + 1) + ": most on " + show(text[best]) + " " + (i - best) +
        " back (" + weights[best].toFixed(2) + ")");
    }
    parts.push(`<line x1="${xs(i)}" x2="${xs(i)}" y1="0" y2="${model.H * rowHeight}" stroke="currentColor" stroke-dasharray="3 3"/>`);
    if (L < n) parts.push(`<line x1="${xs(L)}" x2="${xs(L)}" y1="0" y2="${model.H * rowHeight}" stroke="currentColor" stroke-opacity="0.3"/>`);
    const said = (query > i ? "The learned table has only L rows, so that model reads the first L characters. " : "") +
      "From " + show(text[i]) + " at position " + i + ", " + model.spec.method +
      ", layer " + (layer + 1) + ": " + words.join("; ") + ".";
    queryNote.textContent = said;
    attentionFigure.innerHTML = `<svg viewBox="0 0 ${width} ${model.H * rowHeight + 6}" role="img" aria-label="${escape("Attention weights of each head over the characters before it. " + said)}">${parts.join("")}</svg>`;
    root.dataset.attentionSums = JSON.stringify(sums);
    root.dataset.attentionQuery = String(i);
  }

  function chooseQuery(position) {
    const n = encode(box.value.slice(0, settings.maxChars)).length;
    if (n === 0) return;
    query = Math.max(0, Math.min(position, n - 1));
    const started = performance.now();
    draw();
    root.dataset.attentionMs = (performance.now() - started).toFixed(1);
  }

  function caret() {
    // The character under the cursor: the one after the caret (code
    // points, as the models read them), the last one at the end.
    const before = Array.from(box.value.slice(0, box.selectionStart)).length;
    chooseQuery(before);
  }

  function start(data) {
    description = data;
    const packed = Uint8Array.from(atob(data.packed), (c) => c.charCodeAt(0));
    const unpacked = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(unpacked).arrayBuffer().then((buffer) => {
      const weight = tensors(buffer, data);
      models = data.models.map((spec) => new Model(spec, weight, settings.maxChars));
      showButtons.forEach((button) => {
        const k = models.findIndex((m) => m.spec.method === button.dataset.method);
        if (k >= 0) button.style.borderLeft = "0.6em solid " + palette(k);
        button.addEventListener("click", () => {
          shown = button.dataset.method;
          showButtons.forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
          if (shown) methodSelect.value = String(k);
          draw();
        });
      });
      box.addEventListener("input", () => {
        if (timer !== null) clearTimeout(timer);
        edits++;
        // Typing at the end costs a few positions: at once. Edits further
        // back wait until the reader pauses (debounced).
        const tokens = encode(box.value.slice(0, settings.maxChars));
        const last = models[models.length - 1];
        let first = 0;
        while (first < Math.min(tokens.length, last.n) && last.tokens[first] === tokens[first]) first++;
        if (tokens.length - first <= 4) update();
        else timer = setTimeout(update, 30);
      });
      for (const kind of ["click", "keyup", "select"]) box.addEventListener(kind, caret);
      methodSelect.addEventListener("change", () => { if (query !== null) drawAttention(); });
      layerSelect.addEventListener("change", () => { if (query !== null) drawAttention(); });
      lossFigure.addEventListener("click", (event) => {
        const svg = lossFigure.querySelector("svg");
        if (!svg) return;
        const box2 = svg.getBoundingClientRect();
        const width = svg.viewBox.baseVal.width;
        const x = (event.clientX - box2.left) / box2.width * width;
        const n = encode(box.value.slice(0, settings.maxChars)).length;
        chooseQuery(Math.round((x - 34) / (width - 42) * Math.max(1, n - 1)));
      });
      body.hidden = false;
      open.parentElement.hidden = true;
      status.textContent = "";
      updateNow();
      root.dataset.ready = "true";
      // For tests and measurement: the page's bits and attention rows.
      root.d2lLivePanel = {
        bits: (text) => {
          box.value = text;
          updateNow();
          return Object.fromEntries(models.map((m) => [m.spec.method, Array.from(m.bits())]));
        },
        attention: (method, layer, i) => {
          const m = models.find((x) => x.spec.method === method);
          return Array.from({ length: m.H }, (_, head) => Array.from(m.row(m.blocks[layer], head, i, new Float64Array(i + 1))));
        },
      };
    });
  }

  if (typeof DecompressionStream === "undefined") {
    status.textContent = "This browser is too old to unpack the models (Chrome 80, Firefox 113 or Safari 16.4 can).";
    open.disabled = true;
    return;
  }
  open.addEventListener("click", () => {
    if (root.dataset.ready !== "closed") return;
    root.dataset.ready = "loading";
    open.disabled = true;
    status.textContent = "Loading the models\u2026";
    loadData().then(start).catch((error) => {
      root.dataset.ready = "failed";
      status.textContent = "The models could not be loaded: reload the page to try again, or run the notebook.";
      console.warn("d2l live panel " + root.id + ":", error);
    });
  });
})(document.currentScript);
