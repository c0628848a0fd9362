#!/usr/bin/env node
// check.mjs: validate glTF/GLB files with the Khronos glTF-Validator and
// load and play them with three.js' GLTFLoader in Node. Exit status 0 only
// if every file has 0 validator errors and loads and plays as expected.
//
// Usage: node check.mjs [--expect-skin] [--expect-morph] [--expect-animation]
//                       [--quiet] FILE...
// See README.md.

import { readFile } from 'node:fs/promises';
import { dirname, resolve, extname } from 'node:path';
import validator from 'gltf-validator';

// Minimal browser globals three.js looks up in Node: FileLoader (used for
// a .gltf's data URIs, through Node's fetch) reports ProgressEvents, and
// texture paths read self.URL (we load no textures).
globalThis.self ??= globalThis;
globalThis.ProgressEvent ??= class ProgressEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    this.lengthComputable = init.lengthComputable ?? false;
    this.loaded = init.loaded ?? 0;
    this.total = init.total ?? 0;
  }
};

const THREE = await import('three');
const { GLTFLoader } = await import('three/addons/loaders/GLTFLoader.js');

const SEVERITY = ['error', 'warning', 'info', 'hint'];

function usage() {
  console.error('usage: node check.mjs [--expect-skin] [--expect-morph] [--expect-animation] [--quiet] FILE...');
  process.exit(2);
}

const opts = { skin: false, morph: false, animation: false, quiet: false };
const files = [];
for (const a of process.argv.slice(2)) {
  if (a === '--expect-skin') opts.skin = true;
  else if (a === '--expect-morph') opts.morph = true;
  else if (a === '--expect-animation') opts.animation = true;
  else if (a === '--quiet') opts.quiet = true;
  else if (a === '-h' || a === '--help') usage();
  else if (a.startsWith('--')) { console.error(`unknown option ${a}`); usage(); }
  else files.push(a);
}
if (files.length === 0) usage();

// readJSON returns the glTF JSON of a .gltf or .glb file.
function readJSON(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 20 && dv.getUint32(0, true) === 0x46546c67) {
    const len = dv.getUint32(12, true);
    return JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + len)));
  }
  return JSON.parse(new TextDecoder().decode(bytes));
}

async function validate(path, bytes) {
  const dir = dirname(path);
  const report = await validator.validateBytes(new Uint8Array(bytes), {
    uri: path,
    maxIssues: 1000,
    externalResourceFunction: (uri) =>
      readFile(resolve(dir, decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  });
  const is = report.issues;
  console.log(`${path}: validator: ${is.numErrors} errors, ${is.numWarnings} warnings, ${is.numInfos} infos, ${is.numHints} hints`);
  for (const m of is.messages) {
    if (m.severity > 1 && opts.quiet) continue;
    if (m.severity <= 1 || !opts.quiet) {
      console.log(`  ${SEVERITY[m.severity] ?? m.severity}: ${m.code} ${m.pointer ?? ''}: ${m.message}`);
    }
  }
  return is.numErrors === 0;
}

// inlineBuffers turns a .gltf's external buffer URIs into data URIs, so
// GLTFLoader needs no file fetching (Node's fetch has no file: scheme).
async function inlineBuffers(path, json) {
  for (const b of json.buffers ?? []) {
    if (b.uri && !b.uri.startsWith('data:')) {
      const data = await readFile(resolve(dirname(path), decodeURIComponent(b.uri)));
      b.uri = 'data:application/octet-stream;base64,' + data.toString('base64');
    }
  }
  return json;
}

function parseGLTF(data) {
  const loader = new GLTFLoader();
  return new Promise((res, rej) => loader.parse(data, '', res, rej));
}

// snapshot records every animatable value three.js drives.
function snapshot(root) {
  const v = [];
  root.traverse((o) => {
    v.push(o.position.x, o.position.y, o.position.z);
    v.push(o.quaternion.x, o.quaternion.y, o.quaternion.z, o.quaternion.w);
    if (o.morphTargetInfluences) v.push(...o.morphTargetInfluences);
  });
  return v;
}

function maxDiff(a, b) {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

async function load(path, bytes, json) {
  const fail = (msg) => { console.log(`  FAIL: ${msg}`); return false; };
  let gltf;
  try {
    const data = extname(path).toLowerCase() === '.glb'
      ? bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
      : JSON.stringify(await inlineBuffers(path, json));
    gltf = await parseGLTF(data);
  } catch (e) {
    return fail(`three.js GLTFLoader: ${e?.stack ?? e}`);
  }
  let ok = true;
  const meshes = [];
  const skinned = [];
  gltf.scene.traverse((o) => {
    if (o.isMesh) meshes.push(o);
    if (o.isSkinnedMesh) skinned.push(o);
  });
  let morphMeshes = meshes.filter((m) => m.morphTargetInfluences?.length > 0);
  console.log(`${path}: three.js: ${meshes.length} meshes, ${skinned.length} skinned, ${morphMeshes.length} with morph targets, ${gltf.animations.length} animations`);
  if (meshes.length === 0) ok = fail('no meshes in the scene');

  // Every node with a skin must load as a SkinnedMesh whose skeleton has
  // one bone per joint of that skin.
  const skinNodes = (json.nodes ?? []).map((n, i) => [n, i]).filter(([n]) => n.skin !== undefined);
  for (const [n, i] of skinNodes) {
    const obj = await gltf.parser.getDependency('node', i);
    const sm = [];
    obj.traverse((o) => { if (o.isSkinnedMesh) sm.push(o); });
    const want = json.skins[n.skin].joints.length;
    if (sm.length === 0) { ok = fail(`node ${i}: no SkinnedMesh`); continue; }
    for (const m of sm) {
      const bones = m.skeleton?.bones ?? [];
      if (bones.length !== want || bones.some((b) => !b)) {
        ok = fail(`node ${i}: skeleton has ${bones.length} bones, skin has ${want} joints`);
      } else if (!opts.quiet) {
        console.log(`  node ${i} (${n.name ?? ''}): SkinnedMesh with ${bones.length}-bone skeleton`);
      }
    }
  }
  if (opts.skin && skinned.length === 0) ok = fail('expected a skinned mesh');
  if (opts.morph && morphMeshes.length === 0) ok = fail('expected morph targets');
  const nAnim = (json.animations ?? []).length;
  if (opts.animation && nAnim === 0) ok = fail('expected an animation');
  if (gltf.animations.length !== nAnim) ok = fail(`${gltf.animations.length} clips loaded, file has ${nAnim} animations`);

  // Play each clip for 0.5 s in 0.05 s steps: what it animates must move.
  for (const [k, clip] of gltf.animations.entries()) {
    const paths = new Set((json.animations[k].channels ?? []).map((c) => c.target.path));
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const action = mixer.clipAction(clip);
    action.play();
    mixer.update(0);
    const start = snapshot(gltf.scene);
    const startMorph = morphMeshes.map((m) => [...m.morphTargetInfluences]);
    const startQuat = skinned.flatMap((m) => m.skeleton.bones.flatMap((b) => b.quaternion.toArray()));
    let moved = 0, morphMoved = 0, boneMoved = 0;
    for (let step = 0; step < 10; step++) {
      mixer.update(0.05);
      moved = Math.max(moved, maxDiff(start, snapshot(gltf.scene)));
      morphMeshes.forEach((m, i) => { morphMoved = Math.max(morphMoved, maxDiff(startMorph[i], m.morphTargetInfluences)); });
      const q = skinned.flatMap((m) => m.skeleton.bones.flatMap((b) => b.quaternion.toArray()));
      boneMoved = Math.max(boneMoved, maxDiff(startQuat, q));
    }
    console.log(`  clip ${k} "${clip.name}": ${clip.tracks.length} tracks, ${clip.duration.toFixed(3)} s; over 0.5 s max change: any ${moved.toExponential(2)}, morph influences ${morphMoved.toExponential(2)}, bone quaternions ${boneMoved.toExponential(2)}`);
    if (!(moved > 1e-6)) ok = fail(`clip ${k}: nothing moves when played`);
    if (paths.has('weights') && !(morphMoved > 1e-6)) ok = fail(`clip ${k}: morphTargetInfluences do not change`);
    if (paths.has('rotation') && skinned.length > 0 && !(boneMoved > 1e-6)) ok = fail(`clip ${k}: bone quaternions do not change`);
    mixer.stopAllAction();
    mixer.uncacheRoot(gltf.scene);
  }
  return ok;
}

let allOK = true;
for (const path of files) {
  let bytes, json;
  try {
    bytes = await readFile(path);
  } catch (e) {
    console.log(`${path}: FAIL: cannot read: ${e.message}`);
    allOK = false;
    continue;
  }
  const valid = await validate(path, bytes).catch((e) => {
    console.log(`${path}: FAIL: validator: ${e?.message ?? e}`);
    return false;
  });
  try {
    json = readJSON(bytes);
  } catch (e) {
    console.log(`${path}: FAIL: not a readable glTF: ${e.message}`);
    allOK = false;
    continue;
  }
  const loaded = await load(path, bytes, json);
  allOK = allOK && valid && loaded;
}
console.log(allOK ? 'gltfcheck: all files passed' : 'gltfcheck: FAILED');
process.exit(allOK ? 0 : 1);
