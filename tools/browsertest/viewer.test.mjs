#!/usr/bin/env node
// viewer.test.mjs: drive pleat's web viewer in headless Chromium and check
// that it works. It starts no server: give it the URL of a running
// `pleat serve` (the Go test viewer/browser_test.go starts one).
//
// Usage: node viewer.test.mjs URL [--items N] [--shots DIR] [--expect-diff NAME:MIN:MAX]...
//        [--expect-topology NAME:N]... [--expect-partner NAME:FRAME:0|1]...
//
//   --items N   expect N results side by side (default: any, at least 1)
//   --shots DIR save screenshots there (default: $PLEAT_SCREENSHOTS, else none)
//   --expect-diff NAME:MIN:MAX  in the difference view, the panel named
//               NAME has a garment matched in another panel whose largest
//               per-vertex distance is within [MIN, MAX] mm (repeatable)
//   --expect-topology NAME:N  the panel named NAME is a result whose
//               topology changes per frame, with at least N distinct
//               triangle counts over its frames (repeatable)
//   --expect-partner NAME:FRAME:0|1  in the difference view at master
//               frame FRAME, the panel named NAME has a garment matched in
//               another panel (1) or none (0): with changing topologies,
//               only where they match (repeatable)
//
// The browser is Debian's chromium ($CHROMIUM, default /usr/bin/chromium),
// driven by playwright-core; nothing is downloaded. Checks, in order:
//   1. the page loads its results with no console errors, page errors,
//      failed requests or HTTP errors;
//   2. the canvas is not blank (pixels read back from WebGL differ from the
//      background over a reasonable part of it);
//   3. pressing Play advances the frame counter (#frame), and Pause stops it;
//   4. the scrub slider sets the frame;
//   5. toggling the heat map (#heat) changes the pixels, and so does an
//      orbit drag;
//   6. a mesh name has one colour in every panel and distinct garment names
//      distinct colours; unticking #body hides the body (pixels change);
//      the difference view (#error) colours matched garments (pixels
//      change) with the distances --expect-diff asks for;
//   7. for each --expect-topology panel, every frame in turn: the panel
//      draws (pixels differ from the background there) with the vertex and
//      triangle counts of the topology the server gives that frame, and
//      the counts take at least N values; the difference view gives the
//      panel statistics (possibly none) without errors at each topology;
//   8. the difference view matches garments as --expect-partner says.
// Exit status 0 only if all pass; a JSON summary goes to stdout.

import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

function usage() {
  console.error('usage: node viewer.test.mjs URL [--items N] [--shots DIR] [--expect-diff NAME:MIN:MAX]... [--expect-topology NAME:N]... [--expect-partner NAME:FRAME:0|1]...');
  process.exit(2);
}

const args = process.argv.slice(2);
let url = '', wantItems = 0, shots = process.env.PLEAT_SCREENSHOTS || '';
const wantDiffs = [];
const wantTopos = [];
const wantPartners = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--items') wantItems = Number(args[++i]);
  else if (a === '--expect-diff') {
    const [name, lo, hi] = (args[++i] || '').split(':');
    if (!name || !(Number(hi) >= Number(lo))) usage();
    wantDiffs.push({ name, lo: Number(lo), hi: Number(hi) });
  }
  else if (a === '--expect-topology') {
    const [name, n] = (args[++i] || '').split(':');
    if (!name || !(Number(n) >= 1)) usage();
    wantTopos.push({ name, n: Number(n) });
  }
  else if (a === '--expect-partner') {
    const [name, f, has] = (args[++i] || '').split(':');
    if (!name || !(Number(f) >= 0) || (has !== '0' && has !== '1')) usage();
    wantPartners.push({ name, frame: Number(f), has: has === '1' });
  }
  else if (a === '--shots') shots = args[++i] || '';
  else if (a.startsWith('--')) usage();
  else if (!url) url = a;
  else usage();
}
if (!url) usage();
if (shots) mkdirSync(shots, { recursive: true });

const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const failures = [];
const problems = []; // console errors, page errors, failed requests
const fail = (msg) => { failures.push(msg); console.error('FAIL: ' + msg); };
const log = (msg) => console.error(msg);

const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run'],
});
const summary = { url, browser: browser.version() };
try {
  const page = await browser.newPage({ viewport: { width: 1500, height: 820 } });
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
    else if (m.type() === 'warning') log(`console warning: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });

  const shot = async (name) => {
    if (!shots) return;
    const path = join(shots, name);
    await page.screenshot({ path });
    log(`screenshot ${path}`);
  };
  const text = (sel) => page.$eval(sel, (e) => e.textContent);
  const frame = async () => Number(await text('#frame'));
  const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

  // 1. Load.
  await page.goto(url, { waitUntil: 'load' });
  try {
    await page.waitForFunction(() => window.pleatViewer && window.pleatViewer.loaded, null, { timeout: 60000 });
  } catch (e) {
    const msg = await page.$eval('#msg', (m) => (m.hidden ? '' : m.textContent)).catch(() => '');
    throw new Error(`viewer did not load in 60 s${msg ? ': ' + msg : ''}`);
  }
  const items = await page.evaluate(() => window.pleatViewer.items);
  summary.items = items.map((i) => ({ name: i.name, kind: i.kind, frames: i.frames, vertices: i.vertices }));
  summary.numFrames = await page.evaluate(() => window.pleatViewer.numFrames);
  if (items.length < 1) fail('no items');
  if (wantItems && items.length !== wantItems) fail(`${items.length} items, want ${wantItems}`);
  await page.waitForFunction(() => window.pleatViewer.items.every((i) => i.shown >= 0), null, { timeout: 30000 });
  await settle();
  const stats = await page.$$eval('.vp .stats', (els) => els.map((e) => e.textContent));
  summary.stats = stats;
  if (stats.length !== items.length || stats.some((s) => !/vertices/.test(s) || !/curvature sum/.test(s))) {
    fail(`per-item stats missing: ${JSON.stringify(stats)}`);
  }

  // 2. Not blank.
  const still = await page.evaluate(() => window.pleatViewer.snapshot({ floor: false }));
  summary.still = still;
  if (!(still.fraction > 0.02)) fail(`canvas looks blank: ${(100 * still.fraction).toFixed(2)}% of pixels show a mesh`);
  await shot('viewer-still.png');

  // 3. Play advances the frame counter; pause stops it.
  if (summary.numFrames > 1) {
    const f0 = await frame();
    await page.click('#play');
    try {
      await page.waitForFunction((f) => Number(document.getElementById('frame').textContent) >= f + 3, f0, { timeout: 20000 });
    } catch {
      fail(`frame counter did not advance while playing (stayed at ${await frame()} from ${f0})`);
    }
    const f1 = await frame();
    summary.playedFrames = [f0, f1];
    await shot('viewer-playing.png');
    await page.click('#play');
    await settle();
    const p0 = await frame();
    await page.waitForTimeout(400);
    const p1 = await frame();
    if (p1 !== p0 || (await page.evaluate(() => window.pleatViewer.playing))) fail(`still playing after pause (${p0} -> ${p1})`);

    // 4. Scrub.
    const target = Math.floor(summary.numFrames / 2);
    await page.$eval('#scrub', (s, v) => { s.value = String(v); s.dispatchEvent(new Event('input', { bubbles: true })); }, target);
    await page.waitForFunction((v) => document.getElementById('frame').textContent === String(v), target, { timeout: 5000 })
      .catch(async () => fail(`scrub to ${target} left the counter at ${await frame()}`));
    await page.waitForFunction(() => window.pleatViewer.items.every((i) => i.shown >= 0), null, { timeout: 10000 });
  } else {
    log('one frame only: skipping the play and scrub checks');
  }

  // 5. Heat map changes pixels.
  await settle();
  await page.evaluate(() => window.pleatViewer.snapshot({ keep: true }));
  await shot('viewer-shaded.png');
  await page.click('#heat');
  await settle();
  const heat = await page.evaluate(() => window.pleatViewer.snapshot({ keep: true }));
  summary.heat = heat;
  if (!(await page.evaluate(() => window.pleatViewer.heat))) fail('heat toggle did not switch the heat map on');
  if (heat.changed === null) fail('the canvas changed size when the heat map was toggled');
  else if (!(heat.changed > 0.01)) fail(`heat map changed only ${(100 * heat.changed).toFixed(3)}% of pixels`);
  await shot('viewer-heat.png');

  // Orbit drag changes pixels too.
  const box = await page.$eval('#gl', (c) => { const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
  await page.mouse.move(box.x + box.w * 0.5, box.y + box.h * 0.5);
  await page.mouse.down();
  await page.mouse.move(box.x + box.w * 0.5 + 160, box.y + box.h * 0.5 + 30, { steps: 6 });
  await page.mouse.up();
  await settle();
  const orbit = await page.evaluate(() => window.pleatViewer.snapshot({ keep: true }));
  summary.orbit = orbit;
  if (orbit.changed === null) fail('the canvas changed size during the orbit drag');
  else if (!(orbit.changed > 0.01)) fail(`orbit drag changed only ${(100 * orbit.changed).toFixed(3)}% of pixels`);
  await shot('viewer-orbit.png');
  await page.click('#heat');
  await settle();
  await shot('viewer-orbit-shaded.png');

  // 6a. Colours by mesh name.
  const colors = await page.evaluate(() => window.pleatViewer.colors);
  const colorOf = new Map();
  const panelsOf = new Map();
  for (const c of colors) {
    const k = c.color.map((x) => x.toFixed(3)).join(',');
    if (colorOf.has(c.mesh) && colorOf.get(c.mesh) !== k) fail(`mesh ${c.mesh} has colour ${k} in panel ${c.item} but ${colorOf.get(c.mesh)} elsewhere`);
    colorOf.set(c.mesh, k);
    panelsOf.set(c.mesh, (panelsOf.get(c.mesh) || new Set()).add(c.item));
  }
  const garments = [...colorOf.keys()].filter((n) => !colors.find((c) => c.mesh === n).body);
  if (garments.length <= 8 && new Set(garments.map((n) => colorOf.get(n))).size !== garments.length) {
    fail(`distinct garment names share colours: ${JSON.stringify(Object.fromEntries(colorOf))}`);
  }
  summary.colors = Object.fromEntries([...colorOf].map(([n, k]) => [n, { color: k, panels: [...panelsOf.get(n)] }]));

  // 6b. Hiding the body.
  if (colors.some((c) => c.body)) {
    await page.evaluate(() => window.pleatViewer.snapshot({ keep: true }));
    await page.click('#body');
    await settle();
    const nobody = await page.evaluate(() => window.pleatViewer.snapshot({ keep: true }));
    summary.hideBody = nobody;
    if (await page.evaluate(() => window.pleatViewer.body)) fail('#body did not hide the body');
    if (!(nobody.changed > 0.005)) fail(`hiding the body changed only ${(100 * (nobody.changed || 0)).toFixed(3)}% of pixels`);
    await shot('viewer-nobody.png');
    await page.click('#body');
    await settle();
  } else {
    log('no body mesh: skipping the body toggle check');
  }

  // 6c. The difference view, at a frame every panel has (a shorter
  // result holds its last frame, which would be compared with another
  // time of the longer).
  const common = Math.min(Math.floor(summary.numFrames / 4), ...items.map((i) => i.frames - 1));
  await page.evaluate((f) => window.pleatViewer.setFrame(f), common);
  await page.waitForFunction((f) => Number(document.getElementById('frame').textContent) === f, common, { timeout: 5000 });
  await page.waitForFunction(() => window.pleatViewer.items.every((i) => i.shown >= 0), null, { timeout: 10000 });
  await settle();
  await page.evaluate(() => window.pleatViewer.snapshot({ keep: true }));
  await page.click('#error');
  await page.waitForFunction(() => window.pleatViewer.errors.every((e) => e !== null), null, { timeout: 10000 })
    .catch(() => fail('difference view: no statistics for some panel'));
  await settle();
  const diff = await page.evaluate(() => window.pleatViewer.snapshot({ keep: true }));
  const errs = await page.evaluate(() => ({ errors: window.pleatViewer.errors, range: window.pleatViewer.errRange, heat: window.pleatViewer.heat, on: window.pleatViewer.error }));
  summary.difference = { frame: common, pixels: diff, rangeMM: 1000 * errs.range, panels: errs.errors.map((e, i) => ({ panel: items[i].name, garments: (e || []).map((g) => ({ mesh: g.mesh, vs: g.partner, meanMM: +(1000 * g.mean).toFixed(4), maxMM: +(1000 * g.max).toFixed(4) })) })) };
  if (!errs.on || errs.heat) fail(`difference view: on ${errs.on}, curvature ${errs.heat} (want on, curvature off)`);
  const matched = errs.errors.some((e) => e && e.length);
  if (matched && !(diff.changed > 0.01)) fail(`difference view changed only ${(100 * (diff.changed || 0)).toFixed(3)}% of pixels`);
  for (const w of wantDiffs) {
    const k = items.findIndex((i) => i.name === w.name);
    const gs = k >= 0 ? errs.errors[k] || [] : [];
    if (!gs.some((g) => 1000 * g.max >= w.lo && 1000 * g.max <= w.hi)) {
      fail(`difference view: panel ${w.name} has no garment with a largest distance in [${w.lo}, ${w.hi}] mm: ${JSON.stringify(gs)}`);
    }
  }
  const statsText = await page.$$eval('.vp .stats', (els) => els.map((e) => e.textContent));
  if (matched && !statsText.some((t) => /Δ .* vs .*: mean .* mm, max .* mm/.test(t))) fail(`difference statistics not shown: ${JSON.stringify(statsText)}`);
  await shot('viewer-difference.png');
  await page.click('#error');
  await settle();

  // 7. Changing topology: every frame of the panel draws with its own
  // triangles (those the server gives the frame).
  for (const w of wantTopos) {
    const k = items.findIndex((i) => i.name === w.name);
    if (k < 0) { fail(`no panel named ${w.name}`); continue; }
    const counts = new Set(), frames = [];
    for (let f = 0; f < items[k].frames; f++) {
      await page.evaluate((F) => window.pleatViewer.setFrame(F), f);
      try {
        await page.waitForFunction(([k, f]) => { const it = window.pleatViewer.items[k]; return it.shown === f && window.pleatViewer.items.every((i) => i.shown >= 0); }, [k, f], { timeout: 10000 });
      } catch {
        fail(`topology panel ${w.name}: frame ${f} never shown`);
        continue;
      }
      await settle();
      const got = await page.evaluate(async ([k, f]) => {
        const it = window.pleatViewer.items[k];
        const fb = new DataView(await (await fetch(`api/item/${it.index}/frame/${f}`)).arrayBuffer());
        const topo = fb.getUint32(16, true);
        const mb = new DataView(await (await fetch(`api/item/${it.index}/mesh/${topo}`)).arrayBuffer());
        const snap = window.pleatViewer.snapshot({ floor: false });
        return { topo, nv: mb.getUint32(4, true), nt: mb.getUint32(8, true), shown: it, lit: snap.panels[k] };
      }, [k, f]);
      frames.push({ frame: f, topology: got.shown.topology, vertices: got.shown.shownVertices, triangles: got.shown.shownTriangles, lit: +got.lit.toFixed(4) });
      counts.add(got.shown.shownTriangles);
      if (got.shown.topology !== got.topo || got.shown.shownTriangles !== got.nt || got.shown.shownVertices !== got.nv) {
        fail(`topology panel ${w.name} frame ${f}: draws topology ${got.shown.topology} (${got.shown.shownVertices} vertices, ${got.shown.shownTriangles} triangles), server says ${got.topo} (${got.nv}, ${got.nt})`);
      }
      if (!(got.lit > 0.01)) fail(`topology panel ${w.name} frame ${f}: only ${(100 * got.lit).toFixed(2)}% of the panel drawn`);
      if (f === 0 || counts.size > frames.filter((x) => x.frame < f).map((x) => x.triangles).filter((v, i, a) => a.indexOf(v) === i).length) {
        await shot(`viewer-topology-${w.name}-${f}.png`);
      }
    }
    if (counts.size < w.n) fail(`topology panel ${w.name}: ${counts.size} distinct triangle counts, want at least ${w.n}`);
    // The difference view at each topology: no errors, statistics given.
    await page.click('#error');
    for (const f of [0, items[k].frames - 1]) {
      await page.evaluate((F) => window.pleatViewer.setFrame(F), f);
      await page.waitForFunction(([k, f]) => window.pleatViewer.items[k].shown === f, [k, f], { timeout: 10000 })
        .catch(() => fail(`topology panel ${w.name}: frame ${f} not shown in the difference view`));
      await settle();
      const e = await page.evaluate((k) => window.pleatViewer.errors[k], k);
      if (e === null) fail(`topology panel ${w.name}: no difference statistics at frame ${f}`);
    }
    await page.click('#error');
    await settle();
    (summary.topology ||= {})[w.name] = { triangleCounts: [...counts], frames };
  }

  // 8. Difference-view partners where topologies change.
  if (wantPartners.length) {
    await page.click('#error');
    for (const w of wantPartners) {
      const k = items.findIndex((i) => i.name === w.name);
      if (k < 0) { fail(`no panel named ${w.name}`); continue; }
      await page.evaluate((F) => window.pleatViewer.setFrame(F), w.frame);
      await page.waitForFunction((F) => Number(document.getElementById('frame').textContent) === F &&
        window.pleatViewer.items.every((i) => i.shown >= 0) && window.pleatViewer.errors.every((e) => e !== null), w.frame, { timeout: 10000 })
        .catch(() => fail(`difference view: frame ${w.frame} not shown with statistics`));
      await settle();
      const got = await page.evaluate((k) => ({ e: window.pleatViewer.errors[k], it: window.pleatViewer.items[k] }), k);
      const has = !!(got.e && got.e.length);
      (summary.partners ||= []).push({ panel: w.name, frame: w.frame, topology: got.it.topology, triangles: got.it.shownTriangles, matched: (got.e || []).map((g) => `${g.mesh} vs ${g.partner}`) });
      if (has !== w.has) fail(`difference view: panel ${w.name} at frame ${w.frame} (topology ${got.it.topology}) ${has ? 'has' : 'has no'} partner, want ${w.has ? 'one' : 'none'}: ${JSON.stringify(got.e)}`);
      await shot(`viewer-difference-${w.name}-${w.frame}.png`);
    }
    await page.click('#error');
    await settle();
  }

  await settle();
  for (const p of problems) fail(p);
} catch (e) {
  fail(e && e.stack ? e.stack : String(e));
} finally {
  await browser.close();
}
summary.failures = failures;
console.log(JSON.stringify(summary, null, 2));
process.exit(failures.length ? 1 : 0);
