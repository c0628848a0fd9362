// pleat viewer: plays the results a `pleat serve` process was given, side by
// side on one clock, with WebGL2. Our own code, no libraries. The server
// hands us plain arrays (see the Go package doc of viewer): per item the
// triangles once (/api/item/I/mesh) and per frame positions and mean
// curvature H (/api/item/I/frame/F). A frame names its topology; an item
// whose topology changes per frame (an OBJ sequence from pleat refine) has
// each further topology's triangles fetched once, when a frame first needs
// it (/api/item/I/mesh/K). Normals are computed here per frame.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const canvas = $('gl');
  const ui = {
    play: $('play'), scrub: $('scrub'), frame: $('frame'), nframes: $('nframes'),
    time: $('time'), speed: $('speed'), heat: $('heat'), range: $('range'), follow: $('follow'),
    reset: $('reset'), overlays: $('overlays'), legend: $('legend'), msg: $('msg'),
    body: $('body'), error: $('error'), errRange: $('errrange'), errLegend: $('errlegend'),
    errMax: $('errmax'),
  };

  // Shared state; window.pleatViewer exposes a view of it for tests.
  const S = {
    items: [],          // per item: info, gpu buffers, frame cache
    frame: 0,           // master frame index
    numFrames: 1,
    fps: 30,            // master frame rate
    playing: false,
    speed: 1,
    heat: false,        // colour by mean curvature
    error: false,       // colour by the distance to the partner panel's garment
    showBody: true,     // draw the body meshes
    errRange: 0,        // distance (m) mapped to full red
    colors: new Map(),  // mesh name -> colour, the same in every panel
    follow: true,       // the camera follows the results' horizontal centre
    track: [0, 0, 0],   // that centre now, minus at frame 0
    track0: null,       // that centre at frame 0
    heatRange: 0,       // H (1/m) mapped to full red/blue
    loaded: false,
    acc: 0,             // fractional frames accumulated while playing
    last: 0,            // last animation-frame timestamp (ms)
    draws: 0,
    dirty: true,
    cam: { yaw: 0.45, pitch: 0.12, dist: 3, target: [0, 1, 0], fov: 35 * Math.PI / 180 },
    bounds: null,       // union of the items' bounds {min, max}
    span: [1, 1, 1],    // largest extent of one frame per axis, over items
    layout: [],         // viewport rectangles in CSS pixels
  };

  const BG = [0.125, 0.141, 0.169];
  const MAX_INFLIGHT = 4;            // frame requests per item
  const CACHE_BYTES = 384 << 20;     // decoded frames kept in JS, all items

  function showMsg(text) {
    ui.msg.textContent = text;
    ui.msg.hidden = false;
  }

  // ---- WebGL setup ------------------------------------------------------
  const gl = canvas.getContext('webgl2', { antialias: true, alpha: false });

  const VS = `#version 300 es
  in vec3 aPos; in vec3 aNrm; in float aH; in vec3 aCol;
  uniform mat4 uVP;
  out vec3 vW; out vec3 vN; out float vH; out vec3 vCol;
  void main() {
    vW = aPos; vN = aNrm; vH = aH; vCol = aCol;
    gl_Position = uVP * vec4(aPos, 1.0);
  }`;

  // Two-sided Lambert with a grazing key light (wrinkles cast shading),
  // a soft fill, a rim from behind, hemisphere ambient and a little
  // Blinn-Phong specular; the heat map keeps some shading for the shape.
  const FS = `#version 300 es
  precision highp float;
  in vec3 vW; in vec3 vN; in float vH; in vec3 vCol;
  uniform vec3 uEye, uKey, uFill, uRim;
  uniform int uHeat; uniform float uRange, uErrRange;
  out vec4 outColor;
  vec3 toLin(vec3 c) { return pow(c, vec3(2.2)); }
  vec3 heat(float h) {
    float t = clamp(h / uRange, -1.0, 1.0);
    vec3 w = vec3(0.93);
    return t < 0.0 ? mix(w, vec3(0.02, 0.09, 0.55), -t) : mix(w, vec3(0.58, 0.015, 0.01), t);
  }
  // Sequential map for distances: white at 0, yellow, orange, dark red at
  // uErrRange and beyond.
  vec3 errColor(float d) {
    float t = clamp(d / uErrRange, 0.0, 1.0);
    vec3 a = vec3(0.95, 0.95, 0.93), b = vec3(0.98, 0.80, 0.20), c = vec3(0.90, 0.35, 0.08), e = vec3(0.50, 0.02, 0.02);
    return t < 0.33 ? mix(a, b, t / 0.33) : (t < 0.66 ? mix(b, c, (t - 0.33) / 0.33) : mix(c, e, (t - 0.66) / 0.34));
  }
  void main() {
    vec3 n = normalize(vN);
    if (!gl_FrontFacing) n = -n;
    vec3 v = normalize(uEye - vW);
    float key = max(dot(n, uKey), 0.0);
    float fill = max(dot(n, uFill), 0.0);
    float rim = pow(1.0 - max(dot(n, v), 0.0), 3.0) * max(dot(n, uRim) + 0.3, 0.0);
    float sky = 0.5 + 0.5 * n.y;
    vec3 amb = mix(vec3(0.10, 0.09, 0.08), vec3(0.20, 0.22, 0.26), sky);
    vec3 hv = normalize(uKey + v);
    float spec = pow(max(dot(n, hv), 0.0), 48.0) * step(0.0, dot(n, uKey));
    vec3 c;
    if (uHeat == 1) {
      vec3 base = toLin(heat(vH));
      c = base * (0.45 + 0.55 * key + 0.25 * fill) + 0.05 * spec;
    } else if (uHeat == 2 && vH > -0.5) { // −1 marks vertices with no partner
      vec3 base = toLin(errColor(vH));
      c = base * (0.45 + 0.55 * key + 0.25 * fill) + 0.05 * spec;
    } else {
      // Shaded; in the difference view, meshes with no partner are greyed.
      vec3 base = toLin(uHeat == 2 ? mix(vCol, vec3(dot(vCol, vec3(0.3, 0.59, 0.11))), 0.8) * 0.6 : vCol);
      c = base * (amb + 1.05 * key * vec3(1.0, 0.97, 0.92) + 0.32 * fill * vec3(0.85, 0.9, 1.0))
        + 0.35 * rim * vec3(0.9, 0.95, 1.0) + 0.10 * spec;
    }
    outColor = vec4(pow(c, vec3(1.0 / 2.2)), 1.0);
  }`;

  // The floor: a disc at the lowest point with a faint grid fading out.
  const FLOOR_VS = `#version 300 es
  in vec2 aXZ;
  uniform mat4 uVP; uniform vec3 uCenter; uniform float uRadius;
  out vec2 vP;
  void main() {
    vP = aXZ * uRadius;
    gl_Position = uVP * vec4(uCenter.x + vP.x, uCenter.y, uCenter.z + vP.y, 1.0);
  }`;
  const FLOOR_FS = `#version 300 es
  precision highp float;
  in vec2 vP;
  uniform float uRadius; uniform float uCell; uniform vec3 uBg;
  out vec4 outColor;
  void main() {
    float r = length(vP) / uRadius;
    vec2 g = abs(fract(vP / uCell + 0.5) - 0.5) / fwidth(vP / uCell);
    float line = 1.0 - min(min(g.x, g.y), 1.0);
    vec3 c = mix(uBg + 0.05, uBg + 0.14, line);
    c = mix(c, uBg, smoothstep(0.55, 1.0, r));
    outColor = vec4(c, 1.0);
  }`;

  function compile(vsSrc, fsSrc) {
    const mk = (type, src) => {
      const s = gl.createShader(type);
      gl.shaderSource(s, src);
      gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) {
        throw new Error('shader: ' + gl.getShaderInfoLog(s));
      }
      return s;
    };
    const p = gl.createProgram();
    gl.attachShader(p, mk(gl.VERTEX_SHADER, vsSrc));
    gl.attachShader(p, mk(gl.FRAGMENT_SHADER, fsSrc));
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS)) {
      throw new Error('program: ' + gl.getProgramInfoLog(p));
    }
    const u = {};
    const n = gl.getProgramParameter(p, gl.ACTIVE_UNIFORMS);
    for (let i = 0; i < n; i++) {
      const name = gl.getActiveUniform(p, i).name;
      u[name] = gl.getUniformLocation(p, name);
    }
    return { p, u, attr: (name) => gl.getAttribLocation(p, name) };
  }

  let prog = null, floorProg = null, floorVAO = null;

  function initGL() {
    prog = compile(VS, FS);
    floorProg = compile(FLOOR_VS, FLOOR_FS);
    floorVAO = gl.createVertexArray();
    gl.bindVertexArray(floorVAO);
    const seg = 64, xz = [0, 0];
    for (let i = 0; i <= seg; i++) {
      const a = (i / seg) * 2 * Math.PI;
      xz.push(Math.cos(a), -Math.sin(a));
    }
    const b = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(xz), gl.STATIC_DRAW);
    const loc = floorProg.attr('aXZ');
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, 2, gl.FLOAT, false, 0, 0);
    floorVAO.count = seg + 2;
    gl.bindVertexArray(null);
    gl.enable(gl.DEPTH_TEST);
  }

  // ---- maths --------------------------------------------------------------
  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const norm = (a) => { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; };
  const comb = (...terms) => { // comb(s0, v0, s1, v1, ...) = Σ s_i v_i
    const r = [0, 0, 0];
    for (let i = 0; i < terms.length; i += 2) {
      for (let k = 0; k < 3; k++) r[k] += terms[i] * terms[i + 1][k];
    }
    return r;
  };

  // camBasis returns the eye and the camera's right, up and back (towards
  // the eye) unit vectors.
  function camBasis() {
    const c = S.cam;
    const back = [Math.sin(c.yaw) * Math.cos(c.pitch), Math.sin(c.pitch), Math.cos(c.yaw) * Math.cos(c.pitch)];
    const right = norm(cross([0, 1, 0], back));
    const up = cross(back, right);
    const target = S.follow ? comb(1, c.target, 1, S.track) : c.target;
    const eye = comb(1, target, c.dist, back);
    return { eye, right, up, back };
  }

  // viewProj returns the column-major view-projection matrix.
  function viewProj(aspect) {
    const { eye, right, up, back } = camBasis();
    const c = S.cam;
    const ext = S.bounds ? Math.hypot(...sub(S.bounds.max, S.bounds.min)) : 2;
    const near = Math.max(c.dist - 2 * ext, c.dist * 0.01, 1e-3);
    const far = c.dist + 4 * ext;
    const f = 1 / Math.tan(c.fov / 2);
    const P = [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, 2 * far * near / (near - far), 0];
    const V = [right[0], up[0], back[0], 0, right[1], up[1], back[1], 0, right[2], up[2], back[2], 0,
      -dot(right, eye), -dot(up, eye), -dot(back, eye), 1];
    const M = new Float32Array(16);
    for (let col = 0; col < 4; col++) {
      for (let row = 0; row < 4; row++) {
        let s = 0;
        for (let k = 0; k < 4; k++) s += P[k * 4 + row] * V[col * 4 + k];
        M[col * 4 + row] = s;
      }
    }
    return M;
  }

  // fitCamera aims at the centre of the results and sets the distance at
  // which the box to show fits the narrowest viewport: the whole motion's
  // bounds for a still camera, one frame's largest extent when following.
  function fitCamera() {
    const c = S.cam;
    c.yaw = 0.45; c.pitch = 0.12;
    if (!S.bounds) return;
    const { min, max } = S.bounds;
    const mid = comb(0.5, min, 0.5, max);
    let half = comb(0.5, max, -0.5, min);
    if (S.follow && S.track0) {
      c.target = [S.track0[0], mid[1], S.track0[2]];
      half = [0.5 * S.span[0], half[1], 0.5 * S.span[2]];
    } else {
      c.target = mid;
    }
    const { right, up, back } = camBasis();
    let aspect = 1;
    if (S.layout.length) aspect = Math.min(...S.layout.map((r) => r.w / Math.max(r.h, 1)));
    const ty = Math.tan(c.fov / 2), tx = ty * aspect;
    let d = 0.1;
    for (let i = 0; i < 8; i++) {
      const p = [i & 1 ? half[0] : -half[0], i & 2 ? half[1] : -half[1], i & 4 ? half[2] : -half[2]];
      const z = dot(p, back);
      d = Math.max(d, z + Math.abs(dot(p, right)) / tx, z + Math.abs(dot(p, up)) / ty);
    }
    c.dist = d * 1.1;
    S.dirty = true;
  }

  // trackCentre returns the mean over items of the horizontal centre of
  // their current frame's bounding box, or null before any is shown.
  function trackCentre() {
    let x = 0, z = 0, n = 0;
    for (const it of S.items) {
      if (!it.box) continue;
      x += 0.5 * (it.box[0] + it.box[3]); z += 0.5 * (it.box[2] + it.box[5]); n++;
    }
    return n ? [x / n, 0, z / n] : null;
  }

  // ---- data -----------------------------------------------------------------
  async function fetchBuf(url) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    return r.arrayBuffer();
  }

  const PALETTE = [[0.36, 0.50, 0.72], [0.30, 0.33, 0.40], [0.70, 0.46, 0.33], [0.45, 0.60, 0.42], [0.62, 0.42, 0.60],
    [0.76, 0.66, 0.32], [0.34, 0.62, 0.64], [0.58, 0.30, 0.34]];
  const SKIN = [0.80, 0.68, 0.60];

  function parseMesh(buf) {
    const dv = new DataView(buf);
    const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
    if (magic !== 'PLM1') throw new Error('bad mesh data');
    const nv = dv.getUint32(4, true), nt = dv.getUint32(8, true), nm = dv.getUint32(12, true);
    const ranges = [];
    for (let i = 0; i < nm; i++) {
      const o = 16 + 16 * i;
      ranges.push({ v0: dv.getUint32(o, true), nv: dv.getUint32(o + 4, true), t0: dv.getUint32(o + 8, true), nt: dv.getUint32(o + 12, true) });
    }
    const idx = new Uint32Array(buf, 16 + 16 * nm, 3 * nt);
    return { nv, nt, ranges, idx };
  }

  function parseFrame(buf) {
    const dv = new DataView(buf);
    const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
    if (magic !== 'PLF2') throw new Error('bad frame data');
    const nv = dv.getUint32(4, true), nm = dv.getUint32(8, true);
    const stats = [];
    for (let i = 0; i < nm; i++) {
      stats.push({ absSum: dv.getFloat32(20 + 8 * i, true), area: dv.getFloat32(24 + 8 * i, true) });
    }
    const o = 20 + 8 * nm;
    return {
      time: dv.getFloat32(12, true), topo: dv.getUint32(16, true), nv, nm, stats,
      pos: new Float32Array(buf, o, 3 * nv),
      H: new Float32Array(buf, o + 12 * nv, nv),
      bytes: buf.byteLength,
    };
  }

  async function loadItem(info) {
    const m = parseMesh(await fetchBuf(`api/item/${info.index}/mesh`));
    const it = {
      info, mesh: m, topo: 0, topos: new Map([[0, m]]), topoPending: new Map(),
      frames: new Map(), pending: new Map(), shown: -1,
      nrm: new Float32Array(3 * m.nv), cap: m.nv, gpu: null, overlay: null, statsEl: null,
    };
    const col = colors(it, m);
    gl.bindVertexArray(null);
    const vao = gl.createVertexArray();
    gl.bindVertexArray(vao);
    const buffer = (loc, size, data, usage) => {
      const b = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, b);
      gl.bufferData(gl.ARRAY_BUFFER, data, usage);
      if (loc >= 0) {
        gl.enableVertexAttribArray(loc);
        gl.vertexAttribPointer(loc, size, gl.FLOAT, false, 0, 0);
      }
      return b;
    };
    const gpu = {
      vao,
      pos: buffer(prog.attr('aPos'), 3, 12 * m.nv, gl.DYNAMIC_DRAW),
      nrm: buffer(prog.attr('aNrm'), 3, 12 * m.nv, gl.DYNAMIC_DRAW),
      H: buffer(prog.attr('aH'), 1, 4 * m.nv, gl.DYNAMIC_DRAW),
      col: buffer(prog.attr('aCol'), 3, col, gl.STATIC_DRAW),
      idx: gl.createBuffer(),
    };
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, gpu.idx);
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, m.idx, gl.STATIC_DRAW);
    gl.bindVertexArray(null);
    it.gpu = gpu;
    return it;
  }

  // colors returns the per-vertex colours of item it drawn with topology m.
  function colors(it, m) {
    const col = new Float32Array(3 * m.nv);
    m.ranges.forEach((r, k) => {
      const c = colorOf(it.info.meshes[k]);
      for (let v = r.v0; v < r.v0 + r.nv; v++) col.set(c, 3 * v);
    });
    return col;
  }

  // topology returns (fetching it once) topology k of item it.
  function topology(it, k) {
    if (it.topos.has(k)) return Promise.resolve(it.topos.get(k));
    if (!it.topoPending.has(k)) {
      it.topoPending.set(k, fetchBuf(`api/item/${it.info.index}/mesh/${k}`).then((buf) => {
        const m = parseMesh(buf);
        it.topos.set(k, m);
        return m;
      }).finally(() => it.topoPending.delete(k)));
    }
    return it.topoPending.get(k);
  }

  // setTopology makes topology k (mesh m) item it's drawn one: the vertex
  // buffers grow when it has more vertices, colours and triangles are
  // replaced. Positions, normals and H follow in upload.
  function setTopology(it, k, m) {
    if (it.topo === k && it.mesh === m) return;
    const g = it.gpu;
    gl.bindVertexArray(g.vao);
    if (m.nv > it.cap) {
      it.cap = Math.max(m.nv, Math.ceil(1.25 * it.cap));
      for (const [b, w] of [[g.pos, 12], [g.nrm, 12], [g.H, 4], [g.col, 12]]) {
        gl.bindBuffer(gl.ARRAY_BUFFER, b);
        gl.bufferData(gl.ARRAY_BUFFER, w * it.cap, gl.DYNAMIC_DRAW);
      }
    }
    gl.bindBuffer(gl.ARRAY_BUFFER, g.col);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, colors(it, m));
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, g.idx);
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, m.idx, gl.STATIC_DRAW);
    gl.bindVertexArray(null);
    if (it.nrm.length !== 3 * m.nv) it.nrm = new Float32Array(3 * m.nv);
    it.topo = k;
    it.mesh = m;
  }

  // assignColors gives every garment name in any panel its own colour, in
  // name order, so that a garment has the same colour in every panel
  // whatever the panels' order; bodies are skin-coloured.
  function assignColors(infos) {
    const names = new Set();
    for (const i of infos) for (const m of i.meshes) if (!isBody(m)) names.add(m.name);
    [...names].sort().forEach((n, k) => S.colors.set(n, PALETTE[k % PALETTE.length]));
  }

  function colorOf(m) {
    return isBody(m) ? SKIN : (S.colors.get(m.name) || PALETTE[0]);
  }

  // sameTopology reports whether mesh ka of topology ma and mesh kb of
  // topology mb have the same vertex count and the same triangles.
  function sameTopology(ma, ka, mb, kb) {
    const ra = ma.ranges[ka], rb = mb.ranges[kb];
    if (ra.nv !== rb.nv || ra.nt !== rb.nt) return false;
    const ia = ma.idx, ib = mb.idx;
    for (let t = 0; t < 3 * ra.nt; t++) {
      if (ia[3 * ra.t0 + t] - ra.v0 !== ib[3 * rb.t0 + t] - rb.v0) return false;
    }
    return true;
  }

  // partner finds the partner of garment mesh k of item it (drawn with
  // its current topology) for the difference view at master frame F: the
  // same topology in the first other item that has it then, with that
  // item's frame (so every panel is compared with the first, and the first
  // with the second). Bodies are not compared. Items whose topology changes
  // per frame match only where the topologies do; matches are remembered
  // per pair of topologies.
  const matchMemo = new Map();
  function partner(it, k, F) {
    if (isBody(it.info.meshes[k])) return null;
    const i = S.items.indexOf(it);
    for (let j = 0; j < S.items.length; j++) {
      if (j === i) continue;
      const o = S.items[j];
      const of = o.frames.get(itemFrame(o, F));
      const om = of && o.topos.get(of.topo);
      if (!om) continue;
      for (let k2 = 0; k2 < om.ranges.length; k2++) {
        if (isBody(o.info.meshes[k2])) continue;
        const key = `${i}/${it.topo}/${k}:${j}/${of.topo}/${k2}`;
        let same = matchMemo.get(key);
        if (same === undefined) { same = sameTopology(it.mesh, k, om, k2); matchMemo.set(key, same); }
        if (same) return { item: j, mesh: k2, frame: of, range: om.ranges[k2] };
      }
    }
    return null;
  }

  // errors fills it.err with each vertex's distance (m) to the same vertex
  // of its partner's mesh at the same time (−1 where the mesh has no
  // partner) and returns per-mesh statistics.
  function errors(it) {
    const nv = it.mesh.nv;
    if (!it.err || it.err.length !== nv) it.err = new Float32Array(nv);
    it.err.fill(-1);
    const out = [];
    const pos = it.cur.pos;
    it.mesh.ranges.forEach((r, k) => {
      const mt = partner(it, k, S.frame);
      if (!mt) return;
      const o = S.items[mt.item];
      const of = mt.frame, r2 = mt.range;
      let sum = 0, max = 0;
      for (let v = 0; v < r.nv; v++) {
        const a = 3 * (r.v0 + v), b = 3 * (r2.v0 + v);
        const d = Math.hypot(pos[a] - of.pos[b], pos[a + 1] - of.pos[b + 1], pos[a + 2] - of.pos[b + 2]);
        it.err[r.v0 + v] = d;
        sum += d;
        if (d > max) max = d;
      }
      out.push({ mesh: it.info.meshes[k].name, partner: o.info.name, partnerMesh: o.info.meshes[mt.mesh].name,
        mean: sum / Math.max(r.nv, 1), max, vertices: r.nv });
    });
    return out;
  }

  // itemFrame maps the master frame to item it's frame (same time).
  function itemFrame(it, F) {
    const n = it.info.frames;
    if (n <= 1) return 0;
    return Math.min(n - 1, Math.round(F * it.info.fps / S.fps));
  }

  let cachedBytes = 0;
  let kept = null; // pixels of the last snapshot({keep: true})

  function request(it, f) {
    if (it.frames.has(f) || it.pending.has(f) || f < 0 || f >= it.info.frames) return;
    const p = fetchBuf(`api/item/${it.info.index}/frame/${f}`)
      .then(async (buf) => {
        const fr = parseFrame(buf);
        const m = await topology(it, fr.topo);
        if (fr.nv !== m.nv || fr.nm !== m.ranges.length) throw new Error(`frame does not match its topology ${fr.topo}`);
        it.topos.set(fr.topo, m); // evict may have dropped it while we waited
        it.frames.set(f, fr);
        cachedBytes += fr.bytes;
        evict();
        S.dirty = true;
      })
      .catch((e) => { console.error(`pleat viewer: item ${it.info.index} frame ${f}: ${e.message}`); it.failed = true; })
      .finally(() => it.pending.delete(f));
    it.pending.set(f, p);
  }

  // evict drops decoded frames far from the current one once over budget.
  function evict() {
    if (cachedBytes <= CACHE_BYTES) return;
    for (const it of S.items) {
      const keep = itemFrame(it, S.frame);
      for (const [f, fr] of it.frames) {
        if (cachedBytes <= CACHE_BYTES * 0.8) return;
        if (Math.abs(f - keep) > 40 && f !== 0) {
          it.frames.delete(f);
          cachedBytes -= fr.bytes;
        }
      }
      // Topologies no kept frame uses (0 and the drawn one stay).
      if (it.topos.size > 1) {
        const used = new Set([0, it.topo]);
        for (const fr of it.frames.values()) used.add(fr.topo);
        for (const k of [...it.topos.keys()]) if (!used.has(k)) it.topos.delete(k);
      }
    }
  }

  // prefetch asks for the frames around the master frame F (ahead while
  // playing) and reports whether every item has its frame for F.
  function prefetch(F) {
    let ready = true;
    for (const it of S.items) {
      const f = itemFrame(it, F);
      if (!it.frames.has(f)) { ready = false; request(it, f); }
      const ahead = S.playing ? Math.ceil(12 * Math.max(S.speed, 0.25)) : 2;
      for (let k = 1; k <= ahead && it.pending.size < MAX_INFLIGHT; k++) {
        request(it, (f + k) % it.info.frames);
      }
    }
    return ready;
  }

  // ---- per-frame geometry -----------------------------------------------------
  function computeNormals(pos, idx, out) {
    out.fill(0);
    for (let t = 0; t < idx.length; t += 3) {
      const a = 3 * idx[t], b = 3 * idx[t + 1], c = 3 * idx[t + 2];
      const ux = pos[b] - pos[a], uy = pos[b + 1] - pos[a + 1], uz = pos[b + 2] - pos[a + 2];
      const vx = pos[c] - pos[a], vy = pos[c + 1] - pos[a + 1], vz = pos[c + 2] - pos[a + 2];
      const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx; // area-weighted
      out[a] += nx; out[a + 1] += ny; out[a + 2] += nz;
      out[b] += nx; out[b + 1] += ny; out[b + 2] += nz;
      out[c] += nx; out[c + 1] += ny; out[c + 2] += nz;
    }
    for (let i = 0; i < out.length; i += 3) {
      const l = Math.hypot(out[i], out[i + 1], out[i + 2]);
      if (l > 0) { out[i] /= l; out[i + 1] /= l; out[i + 2] /= l; } else { out[i + 1] = 1; }
    }
  }

  // upload puts frame f of item it on the GPU (if not already there).
  function upload(it, f) {
    const key = S.error ? `${f}/${S.frame}` : `${f}`;
    if (it.shown === f && it.shownKey === key) return;
    const fr = it.frames.get(f);
    if (!fr) return;
    const m = it.topos.get(fr.topo);
    if (!m) return;
    setTopology(it, fr.topo, m);
    it.shownKey = key;
    it.cur = fr;
    computeNormals(fr.pos, it.mesh.idx, it.nrm);
    gl.bindBuffer(gl.ARRAY_BUFFER, it.gpu.pos);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, fr.pos);
    gl.bindBuffer(gl.ARRAY_BUFFER, it.gpu.nrm);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, it.nrm);
    it.errStats = S.error ? errors(it) : null;
    gl.bindBuffer(gl.ARRAY_BUFFER, it.gpu.H);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, S.error ? it.err : fr.H);
    const p = fr.pos, b = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
    for (let i = 0; i < p.length; i += 3) {
      for (let k = 0; k < 3; k++) {
        if (p[i + k] < b[k]) b[k] = p[i + k];
        if (p[i + k] > b[k + 3]) b[k + 3] = p[i + k];
      }
    }
    it.box = b.every(Number.isFinite) ? b : null;
    it.shown = f;
    it.cur = fr;
    updateStats(it);
  }

  const fmt = (x, d) => (Number.isFinite(x) ? x.toFixed(d) : '–');

  function updateStats(it) {
    if (!it.statsEl || !it.cur) return;
    const st = it.cur.stats;
    let sum = 0;
    for (const s of st) sum += s.absSum;
    const tri = it.info.varyingTopology ? `, ${it.mesh.nt.toLocaleString('en-US')} triangles (topology ${it.topo})` : '';
    const lines = [`frame ${it.shown}  ·  ${it.mesh.nv.toLocaleString('en-US')} vertices${tri}`,
      `curvature sum Σ|H|A ${fmt(sum, 4)} m`];
    if (st.length > 1) {
      st.forEach((s, k) => { lines.push(`  ${it.info.meshes[k].name}: ${fmt(s.absSum, 4)} m`); });
    }
    if (it.errStats) {
      if (!it.errStats.length) lines.push('no garment with the same topology in another panel');
      for (const e of it.errStats) {
        lines.push(`Δ ${e.mesh} vs ${e.partner}: mean ${fmt(1000 * e.mean, 2)} mm, max ${fmt(1000 * e.max, 2)} mm`);
      }
    }
    it.statsEl.textContent = lines.join('\n');
  }

  // robustRange returns the 98th percentile of |H| over the vertices of it
  // where H is defined (non-zero), garments only when it has a body too:
  // the default heat-map range.
  function robustRange(it, fr) {
    const m = it.topos.get(fr.topo), H = fr.H;
    if (!m) return 0;
    const ranges = m.ranges.filter((r, k) => !isBody(it.info.meshes[k]));
    const use = ranges.length ? ranges : m.ranges;
    const a = [];
    for (const r of use) {
      const step = Math.max(1, Math.floor(r.nv / 20000));
      for (let i = r.v0; i < r.v0 + r.nv; i += step) if (H[i] !== 0 && Number.isFinite(H[i])) a.push(Math.abs(H[i]));
    }
    if (!a.length) return 0;
    a.sort((x, y) => x - y);
    return a[Math.min(a.length - 1, Math.floor(0.98 * a.length))];
  }

  const isBody = (m) => !!m && /body|skin|character/i.test(m.name);

  // ---- layout and drawing -------------------------------------------------------
  function layout() {
    const dpr = window.devicePixelRatio || 1;
    const W = canvas.clientWidth, H = canvas.clientHeight;
    const w = Math.max(1, Math.round(W * dpr)), h = Math.max(1, Math.round(H * dpr));
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; S.dirty = true; }
    const n = Math.max(1, S.items.length);
    let cols = n, rows = 1;
    if (n === 4 && W / 4 < 0.42 * H) { cols = 2; rows = 2; }
    const gap = n > 1 ? 2 : 0;
    const cw = (W - gap * (cols - 1)) / cols, ch = (H - gap * (rows - 1)) / rows;
    S.layout = [];
    for (let i = 0; i < n; i++) {
      const c = i % cols, r = Math.floor(i / cols);
      S.layout.push({ x: c * (cw + gap), y: r * (ch + gap), w: cw, h: ch });
    }
    S.items.forEach((it, i) => {
      const r = S.layout[i];
      Object.assign(it.overlay.style, { left: r.x + 'px', top: r.y + 'px', width: r.w + 'px', height: r.h + 'px' });
    });
  }

  function draw(opt) {
    const floor = !(opt && opt.floor === false);
    const dpr = canvas.width / Math.max(canvas.clientWidth, 1);
    gl.disable(gl.SCISSOR_TEST);
    gl.clearColor(0.08, 0.09, 0.11, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.SCISSOR_TEST);
    const { eye, right, up, back } = camBasis();
    const key = norm(comb(-0.75, right, 0.55, up, 0.45, back));
    const fill = norm(comb(0.8, right, 0.05, up, 0.6, back));
    const rim = norm(comb(0.3, right, 0.5, up, -1, back));
    S.items.forEach((it, i) => {
      const r = S.layout[i];
      const x = Math.round(r.x * dpr), y = Math.round((canvas.clientHeight - r.y - r.h) * dpr);
      const w = Math.round(r.w * dpr), h = Math.round(r.h * dpr);
      gl.viewport(x, y, w, h);
      gl.scissor(x, y, w, h);
      gl.clearColor(BG[0], BG[1], BG[2], 1);
      gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
      const VP = viewProj(w / Math.max(h, 1));
      if (S.bounds && floor) {
        const { min, max } = S.bounds;
        const size = Math.max(max[0] - min[0], max[2] - min[2], 0.5 * (max[1] - min[1]));
        gl.useProgram(floorProg.p);
        gl.uniformMatrix4fv(floorProg.u.uVP, false, VP);
        gl.uniform3f(floorProg.u.uCenter, 0.5 * (min[0] + max[0]), min[1] - 1e-3 * size, 0.5 * (min[2] + max[2]));
        gl.uniform1f(floorProg.u.uRadius, 1.6 * size);
        gl.uniform1f(floorProg.u.uCell, Math.pow(10, Math.floor(Math.log10(size))) / 4);
        gl.uniform3f(floorProg.u.uBg, BG[0], BG[1], BG[2]);
        gl.bindVertexArray(floorVAO);
        gl.drawArrays(gl.TRIANGLE_FAN, 0, floorVAO.count);
      }
      if (it.shown < 0) return;
      gl.useProgram(prog.p);
      gl.uniformMatrix4fv(prog.u.uVP, false, VP);
      gl.uniform3fv(prog.u.uEye, eye);
      gl.uniform3fv(prog.u.uKey, key);
      gl.uniform3fv(prog.u.uFill, fill);
      gl.uniform3fv(prog.u.uRim, rim);
      gl.uniform1i(prog.u.uHeat, S.heat ? 1 : (S.error ? 2 : 0));
      gl.uniform1f(prog.u.uRange, Math.max(S.heatRange, 1e-6));
      gl.uniform1f(prog.u.uErrRange, Math.max(S.errRange, 1e-9));
      gl.bindVertexArray(it.gpu.vao);
      if (S.showBody) {
        gl.drawElements(gl.TRIANGLES, it.mesh.idx.length, gl.UNSIGNED_INT, 0);
      } else {
        it.mesh.ranges.forEach((r, k) => {
          if (!isBody(it.info.meshes[k])) gl.drawElements(gl.TRIANGLES, 3 * r.nt, gl.UNSIGNED_INT, 12 * r.t0);
        });
      }
    });
    gl.bindVertexArray(null);
    S.draws++;
  }

  function setFrame(F) {
    F = ((Math.round(F) % S.numFrames) + S.numFrames) % S.numFrames;
    if (F !== S.frame) { S.frame = F; S.dirty = true; }
  }

  function syncUI() {
    ui.frame.textContent = String(S.frame);
    ui.time.textContent = (S.frame / S.fps).toFixed(2) + ' s';
    if (document.activeElement !== ui.scrub) ui.scrub.value = String(S.frame);
    ui.play.innerHTML = S.playing ? '&#10074;&#10074; Pause' : '&#9654; Play';
    ui.heat.checked = S.heat;
    ui.error.checked = S.error;
    ui.body.checked = S.showBody;
    ui.legend.style.visibility = S.heat ? 'visible' : 'hidden'; // keeps its space: no relayout
    ui.errLegend.style.visibility = S.error ? 'visible' : 'hidden';
  }

  function tick(now) {
    const dt = S.last ? Math.min(now - S.last, 250) : 0;
    S.last = now;
    layout();
    if (S.loaded) {
      if (S.playing && S.numFrames > 1) {
        S.acc += (dt / 1000) * S.fps * S.speed;
        const steps = Math.floor(S.acc);
        if (steps > 0) {
          const next = (S.frame + steps) % S.numFrames;
          if (prefetch(next)) { S.acc -= steps; setFrame(next); } else { S.acc = Math.min(S.acc, 1); }
        }
      }
      // Show the master frame once every item has it: the viewports stay in
      // sync (a slow item holds the clock rather than drifting).
      if (prefetch(S.frame)) {
        for (const it of S.items) upload(it, itemFrame(it, S.frame));
        const c = trackCentre();
        if (c && S.track0) {
          const t = sub(c, S.track0);
          if (t[0] !== S.track[0] || t[2] !== S.track[2]) { S.track = t; S.dirty = true; }
        }
      }
      if (S.dirty) { draw(); S.dirty = false; }
      syncUI();
    }
    requestAnimationFrame(tick);
  }

  // ---- input ----------------------------------------------------------------------
  function initInput() {
    let drag = null;
    canvas.addEventListener('contextmenu', (e) => e.preventDefault());
    canvas.addEventListener('pointerdown', (e) => {
      canvas.setPointerCapture(e.pointerId);
      drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.button === 1 || e.shiftKey };
    });
    canvas.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.x = e.clientX; drag.y = e.clientY;
      const c = S.cam;
      if (drag.pan) {
        const { right, up } = camBasis();
        const s = (2 * c.dist * Math.tan(c.fov / 2)) / Math.max(canvas.clientHeight, 1);
        c.target = comb(1, c.target, -dx * s, right, dy * s, up);
      } else {
        c.yaw -= dx * 0.008;
        c.pitch = Math.max(-1.5, Math.min(1.5, c.pitch + dy * 0.008));
      }
      S.dirty = true;
    });
    const end = () => { drag = null; };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      S.cam.dist *= Math.exp(Math.max(-100, Math.min(100, e.deltaY)) * 0.0015);
      S.dirty = true;
    }, { passive: false });
    canvas.addEventListener('dblclick', fitCamera);
    ui.play.addEventListener('click', () => api.toggle());
    ui.scrub.addEventListener('input', () => { S.playing = false; setFrame(Number(ui.scrub.value)); });
    ui.speed.addEventListener('change', () => { S.speed = Number(ui.speed.value) || 1; });
    ui.heat.addEventListener('change', () => api.setHeat(ui.heat.checked));
    ui.error.addEventListener('change', () => api.setError(ui.error.checked));
    ui.body.addEventListener('change', () => api.setBody(ui.body.checked));
    ui.errRange.addEventListener('change', () => {
      const v = Number(ui.errRange.value);
      if (v > 0) { S.errRange = v / 1000; ui.errMax.textContent = fmt(v, 2); S.dirty = true; }
    });
    ui.range.addEventListener('change', () => {
      const v = Number(ui.range.value);
      if (v > 0) { S.heatRange = v; S.dirty = true; }
    });
    ui.reset.addEventListener('click', fitCamera);
    ui.follow.addEventListener('change', () => { S.follow = ui.follow.checked; fitCamera(); });
    window.addEventListener('keydown', (e) => {
      if (e.target instanceof HTMLInputElement && e.target.type !== 'range' && e.target.type !== 'checkbox') return;
      if (e.key === ' ') { e.preventDefault(); api.toggle(); } else if (e.key === 'ArrowRight') { S.playing = false; setFrame(S.frame + 1); } else if (e.key === 'ArrowLeft') { S.playing = false; setFrame(S.frame - 1); } else if (e.key === 'h') { api.setHeat(!S.heat); } else if (e.key === 'd') { api.setError(!S.error); } else if (e.key === 'b') { api.setBody(!S.showBody); } else if (e.key === 'r') { fitCamera(); } else return;
      e.preventDefault();
    });
  }

  // ---- test and scripting hook ----------------------------------------------------
  const api = {
    get frame() { return S.frame; },
    get numFrames() { return S.numFrames; },
    get playing() { return S.playing; },
    get loaded() { return S.loaded; },
    get heat() { return S.heat; },
    get heatRange() { return S.heatRange; },
    get draws() { return S.draws; },
    // items: per panel its info, the frame shown and the topology drawn
    // (index, vertices, triangles).
    get items() {
      return S.items.map((it) => ({ ...it.info, shown: it.shown, topology: it.topo, shownVertices: it.mesh.nv, shownTriangles: it.mesh.nt }));
    },
    play() { S.playing = true; S.last = 0; },
    pause() { S.playing = false; },
    toggle() { if (S.playing) api.pause(); else api.play(); },
    setFrame(f) { S.playing = false; setFrame(f); },
    setHeat(on) {
      S.heat = !!on;
      if (S.heat && S.error) api.setError(false);
      S.dirty = true;
    },
    get error() { return S.error; },
    get errRange() { return S.errRange; },
    get body() { return S.showBody; },
    // colors: every mesh of every panel with the colour it is drawn in.
    get colors() {
      return S.items.flatMap((it, i) => it.info.meshes.map((m) => ({ item: i, mesh: m.name, body: isBody(m), color: colorOf(m) })));
    },
    // errors: per panel, the difference statistics shown (null when off).
    get errors() { return S.items.map((it) => it.errStats || null); },
    setBody(on) { S.showBody = !!on; S.dirty = true; },
    // setError switches the difference view: garments with the same
    // topology as one in another panel are coloured by the per-vertex
    // distance to it (see partner).
    setError(on) {
      S.error = !!on;
      if (S.error) S.heat = false;
      for (const it of S.items) it.shown = -1; // re-upload: H buffer and stats
      if (S.error && !(S.errRange > 0)) {
        // Default range: the 98th percentile of the distances now.
        for (const it of S.items) if (it.cur) { it.shownKey = ''; upload(it, itemFrame(it, S.frame)); }
        const d = [];
        for (const it of S.items) if (it.err && it.errStats) for (const x of it.err) if (x > 0) d.push(x);
        d.sort((a, b) => a - b);
        S.errRange = d.length ? d[Math.min(d.length - 1, Math.floor(0.98 * d.length))] : 1e-3;
        ui.errRange.value = (1000 * S.errRange).toPrecision(3);
        ui.errMax.textContent = fmt(1000 * S.errRange, 2);
      }
      for (const it of S.items) if (!S.error) it.errStats = null;
      S.dirty = true;
    },
    // snapshot draws now (without the floor given floor: false) and reads
    // the pixels back: the count of pixels that differ from the background,
    // a checksum, (after a snapshot with keep: true of the same size) the
    // fraction of pixels that changed, and per panel the fraction of its
    // pixels that differ from the background (panels).
    snapshot(opt) {
      layout();
      draw(opt);
      const w = canvas.width, h = canvas.height;
      const px = new Uint8Array(4 * w * h);
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
      const bg = BG.map((c) => Math.round(c * 255));
      const prev = kept && kept.length === px.length ? kept : null;
      let lit = 0, sum = 0, changed = 0;
      const dpr = w / Math.max(canvas.clientWidth, 1);
      const rects = S.layout.map((r) => [r.x * dpr, (canvas.clientHeight - r.y - r.h) * dpr, (r.x + r.w) * dpr, (canvas.clientHeight - r.y) * dpr]);
      const plit = rects.map(() => 0), parea = rects.map(([x0, y0, x1, y1]) => Math.max(1, Math.round(x1 - x0) * Math.round(y1 - y0)));
      for (let i = 0; i < px.length; i += 4) {
        if (Math.abs(px[i] - bg[0]) + Math.abs(px[i + 1] - bg[1]) + Math.abs(px[i + 2] - bg[2]) > 24) {
          lit++;
          const x = (i >> 2) % w, y = Math.floor((i >> 2) / w);
          const k = rects.findIndex(([x0, y0, x1, y1]) => x >= x0 && x < x1 && y >= y0 && y < y1);
          if (k >= 0) plit[k]++;
        }
        if (prev && Math.abs(px[i] - prev[i]) + Math.abs(px[i + 1] - prev[i + 1]) + Math.abs(px[i + 2] - prev[i + 2]) > 12) changed++;
        sum = (sum * 31 + px[i] + 7 * px[i + 1] + 13 * px[i + 2]) >>> 0;
      }
      if (opt && opt.keep) kept = px;
      return { width: w, height: h, lit, fraction: lit / (w * h), checksum: sum, changed: prev ? changed / (w * h) : null,
        panels: plit.map((n, k) => n / parea[k]) };
    },
  };
  window.pleatViewer = api;

  async function main() {
    if (!gl) { showMsg('This browser has no WebGL2.'); return; }
    initGL();
    initInput();
    const infos = await (await fetch('api/items')).json();
    if (!infos.length) { showMsg('Nothing to show.'); return; }
    assignColors(infos);
    S.items = await Promise.all(infos.map(loadItem));
    const anim = infos.find((i) => i.frames > 1);
    S.fps = anim ? anim.fps : 30;
    S.numFrames = Math.max(1, ...infos.map((i) => (i.frames <= 1 ? 1 : Math.round((i.frames - 1) * S.fps / i.fps) + 1)));
    ui.scrub.max = String(S.numFrames - 1);
    ui.nframes.textContent = String(S.numFrames - 1);
    const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
    for (const i of infos) {
      for (let k = 0; k < 3; k++) { min[k] = Math.min(min[k], i.min[k]); max[k] = Math.max(max[k], i.max[k]); }
    }
    S.bounds = min.every(Number.isFinite) ? { min, max } : null;
    S.span = [0, 1, 2].map((k) => Math.max(1e-3, ...infos.map((i) => i.span[k])));
    S.items.forEach((it) => {
      const el = document.createElement('div');
      el.className = 'vp';
      const h2 = document.createElement('h2');
      h2.textContent = it.info.name;
      const meta = document.createElement('div');
      meta.className = 'meta';
      const names = it.info.meshes.map((m) => m.name).join(', ');
      meta.textContent = `${it.info.kind}${it.info.skinned ? ' (skinned)' : ''} · ${it.info.frames} frames @ ${fmt(it.info.fps, 1)} fps · ${names}`;
      const stats = document.createElement('div');
      stats.className = 'stats';
      el.append(h2, meta, stats);
      ui.overlays.append(el);
      it.overlay = el; it.statsEl = stats;
    });
    layout();
    // Frame 0 of every item, then a shared heat-map range: the largest of
    // the items' robust ranges, so that the same H shows the same colour in
    // every viewport.
    await Promise.all(S.items.map((it) => { request(it, 0); return it.pending.get(0); }));
    let range = 0;
    for (const it of S.items) {
      const fr = it.frames.get(0);
      if (fr) range = Math.max(range, robustRange(it, fr));
    }
    S.heatRange = range > 0 ? range : 1;
    for (const it of S.items) upload(it, 0);
    S.track0 = trackCentre();
    fitCamera();
    ui.range.value = S.heatRange.toPrecision(3);
    S.loaded = true;
    S.dirty = true;
    requestAnimationFrame(tick);
  }

  main().catch((e) => {
    console.error('pleat viewer: ' + (e && e.message ? e.message : e));
    showMsg('Could not load: ' + (e && e.message ? e.message : e));
  });
}());
