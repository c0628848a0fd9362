# Blender cloth peer for `pleat bench sim` (package internal/bench).
#
# Run headless:
#   blender -b --factory-startup -noaudio --python blender_cloth.py -- params.json
#
# params.json (written by internal/bench) names little-endian raw arrays in the
# same folder, all in pleat's frame (metres, +Y up):
#   garment rest positions  float32 [nv][3]   (rest lengths: the rest shape key)
#   garment triangles       int32   [nt][3]
#   garment start positions float32 [nv][3]   (pleat's settled frame 0)
#   pinned vertex ids       int32   [np]
#   pin targets             float32 [frames][np][3] (pleat's attachment targets)
#   body triangles          int32   [ntb][3]  (pleat's collision proxy)
#   body positions          float32 [frames][nvb][3] (the proxy skinned per frame)
# and the cloth settings. It writes the garment positions per frame
# (float32 [frames][nv][3], pleat's frame) and a JSON file of timings.
#
# Scene: Blender is +Z up, so positions are mapped (x, y, z) -> (x, -z, y) on
# the way in and back on the way out. Pleat frame f is Blender frame f+1; the
# cloth starts at frame 1 from the start positions with zero velocity.
#   - body: a mesh with one shape key per frame (keyed 0/1 with constant
#     interpolation) and a Collision modifier;
#   - garment: a mesh whose basis is the rest shape (cloth rest_shape_key), a
#     shape key per frame holding the start positions with the pinned
#     vertices moved to that frame's targets, and a Cloth modifier
#     pinning the vertex group "pin" (weight 1: Blender moves vertices with
#     goal >= 0.999 with the input mesh, i.e. hard pins).
# Each frame is timed around scene.frame_set(f); reading the evaluated mesh
# is not timed. With "overhead" set, a second pass with the cloth modifier
# disabled times the rest of the frame update (shape keys, collision BVH).

import json
import os
import sys
import time

import bpy

try:
    import numpy as np
except ImportError:
    sys.stderr.write("blender_cloth.py: numpy is missing (Debian: apt-get install python3-numpy)\n")
    sys.exit(3)

MIN_VERSION = (2, 90, 0)


def fail(msg, code=2):
    sys.stderr.write("blender_cloth.py: " + msg + "\n")
    sys.stderr.flush()
    sys.exit(code)


def to_blender(p):
    """pleat (x, y, z), +Y up -> Blender (x, -z, y), +Z up; p is [..., 3]."""
    q = np.empty_like(p)
    q[..., 0] = p[..., 0]
    q[..., 1] = -p[..., 2]
    q[..., 2] = p[..., 1]
    return q


def to_pleat(q):
    p = np.empty_like(q)
    p[..., 0] = q[..., 0]
    p[..., 1] = q[..., 2]
    p[..., 2] = -q[..., 1]
    return p


def load(d, name, dtype, shape):
    a = np.fromfile(os.path.join(d, name), dtype=dtype)
    n = 1
    for s in shape:
        n *= s
    if a.size != n:
        fail("%s: %d values, want %d (%s)" % (name, a.size, n, shape))
    return a.reshape(shape)


def make_mesh(name, verts, tris):
    me = bpy.data.meshes.new(name)
    nv, nt = len(verts), len(tris)
    me.vertices.add(nv)
    me.vertices.foreach_set("co", verts.astype(np.float32).ravel())
    me.loops.add(3 * nt)
    me.loops.foreach_set("vertex_index", tris.astype(np.int32).ravel())
    me.polygons.add(nt)
    me.polygons.foreach_set("loop_start", np.arange(0, 3 * nt, 3, dtype=np.int32))
    me.polygons.foreach_set("loop_total", np.full(nt, 3, dtype=np.int32))
    me.update(calc_edges=True)
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    return ob


def key_per_frame(ob, positions, first_frame):
    """Adds a relative shape key per row of positions (absolute coordinates,
    Blender frame), keyed to 1 on its frame and 0 elsewhere (constant)."""
    if ob.data.shape_keys is None:
        ob.shape_key_add(name="Basis", from_mix=False)
    key = ob.data.shape_keys
    key.use_relative = True
    ad = key.animation_data_create()
    act = bpy.data.actions.new(ob.name + "_keys")
    ad.action = act
    for k, pos in enumerate(positions):
        kb = ob.shape_key_add(name="f%d" % k, from_mix=False)
        kb.data.foreach_set("co", pos.astype(np.float32).ravel())
        kb.slider_min, kb.slider_max = 0.0, 1.0
        fc = act.fcurves.new('key_blocks["%s"].value' % kb.name)
        f = first_frame + k
        pts = [(f - 1, 0.0), (f, 1.0), (f + 1, 0.0)] if k > 0 else [(f, 1.0), (f + 1, 0.0)]
        fc.keyframe_points.add(len(pts))
        for i, (x, y) in enumerate(pts):
            kp = fc.keyframe_points[i]
            kp.co = (x, y)
            kp.interpolation = "CONSTANT"
        fc.update()
    return key


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) != 1:
        fail("usage: blender -b --factory-startup -noaudio --python blender_cloth.py -- params.json")
    if tuple(bpy.app.version) < MIN_VERSION:
        fail("Blender %s is too old (need >= %d.%d)" % (bpy.app.version_string, MIN_VERSION[0], MIN_VERSION[1]))
    with open(argv[0]) as f:
        P = json.load(f)
    d = os.path.dirname(os.path.abspath(argv[0]))
    t_setup = time.perf_counter()
    notes = []

    nf = int(P["frames"])
    g, b, c = P["garment"], P["body"], P["cloth"]
    nv, nt, npin = int(g["verts"]), int(g["tris"]), int(g["pins"])
    nvb, ntb = int(b["verts"]), int(b["tris"])
    rest = to_blender(load(d, g["rest"], "<f4", (nv, 3)))
    gtris = load(d, g["tris_file"], "<i4", (nt, 3))
    start = to_blender(load(d, g["start"], "<f4", (nv, 3)))
    pins = load(d, g["pins_file"], "<i4", (npin,)) if npin > 0 else np.zeros(0, np.int32)
    targets = to_blender(load(d, g["pin_targets"], "<f4", (nf, npin, 3))) if npin > 0 else None
    btris = load(d, b["tris_file"], "<i4", (ntb, 3))
    bframes = to_blender(load(d, b["frames_file"], "<f4", (nf, nvb, 3)))

    # Empty scene at the benchmark's frame rate.
    for ob in list(bpy.data.objects):
        bpy.data.objects.remove(ob, do_unlink=True)
    scene = bpy.context.scene
    scene.render.fps = int(round(float(P["fps"])))
    scene.render.fps_base = scene.render.fps / float(P["fps"])
    scene.frame_start, scene.frame_end = 1, nf
    scene.frame_set(1)

    # Body: shape key per frame + collision.
    body = make_mesh("body", bframes[0], btris)
    key_per_frame(body, bframes, 1)
    col = body.modifiers.new("Collision", "COLLISION")
    body.collision.thickness_outer = float(c["collider_thickness"])
    body.collision.cloth_friction = float(c.get("friction", 5.0))
    body.collision.use_culling = True

    # Garment: rest basis, shape key per frame (start + pin targets), cloth.
    garment = make_mesh("garment", rest, gtris)
    shapes = np.repeat(start[None, :, :], nf, axis=0)
    if npin > 0:
        shapes[:, pins, :] = targets
    key = key_per_frame(garment, shapes, 1)
    vg = garment.vertex_groups.new(name="pin")
    if npin > 0:
        vg.add([int(i) for i in pins], 1.0, "REPLACE")
    cm = garment.modifiers.new("Cloth", "CLOTH")
    s = cm.settings
    s.quality = int(c["quality"])
    s.mass = float(c["mass"])
    s.air_damping = float(c["air_damping"])
    s.bending_model = "ANGULAR"
    s.tension_stiffness = float(c["tension"])
    s.compression_stiffness = float(c["compression"])
    s.shear_stiffness = float(c["shear"])
    s.bending_stiffness = float(c["bending"])
    s.tension_damping = float(c["tension_damping"])
    s.compression_damping = float(c["compression_damping"])
    s.shear_damping = float(c["shear_damping"])
    s.bending_damping = float(c["bending_damping"])
    s.time_scale = 1.0
    s.rest_shape_key = key.key_blocks["Basis"]
    if npin > 0:
        s.vertex_group_mass = "pin"
        s.pin_stiffness = float(c.get("pin_stiffness", 1.0))
    cs = cm.collision_settings
    cs.use_collision = True
    cs.distance_min = float(c["distance_min"])
    cs.collision_quality = int(c["collision_quality"])
    cs.use_self_collision = False
    cs.friction = float(c.get("friction", 5.0))
    cm.point_cache.frame_start = 1
    cm.point_cache.frame_end = nf
    setup = time.perf_counter() - t_setup

    dg = bpy.context.evaluated_depsgraph_get()
    out = np.empty((nf, nv, 3), dtype=np.float32)
    buf = np.empty(nv * 3, dtype=np.float32)
    frame_s = []
    for f in range(1, nf + 1):
        t0 = time.perf_counter()
        scene.frame_set(f)
        frame_s.append(time.perf_counter() - t0)
        ev = garment.evaluated_get(dg)
        me = ev.to_mesh()
        if len(me.vertices) != nv:
            fail("evaluated garment has %d vertices, want %d" % (len(me.vertices), nv))
        me.vertices.foreach_get("co", buf)
        ev.to_mesh_clear()
        out[f - 1] = to_pleat(buf.reshape(nv, 3))
        if "progress" in P and P["progress"]:
            sys.stderr.write("blender frame %d/%d %.3f s\n" % (f, nf, frame_s[-1]))
    out.astype("<f4").tofile(os.path.join(d, P["out"]))

    overhead_s = []
    if P.get("overhead"):
        cm.show_viewport = False
        cm.show_render = False
        scene.frame_set(1)
        for f in range(1, nf + 1):
            t0 = time.perf_counter()
            scene.frame_set(f)
            overhead_s.append(time.perf_counter() - t0)
    if not np.all(np.isfinite(out)):
        notes.append("non-finite garment positions")

    with open(os.path.join(d, P["times"]), "w") as f:
        json.dump({
            "version": bpy.app.version_string,
            "threads": bpy.context.scene.render.threads,
            "setup_s": setup,
            "frame_s": frame_s,
            "overhead_s": overhead_s,
            "notes": notes,
        }, f)
    print("blender_cloth.py: done, %d frames" % nf)


try:
    main()
except SystemExit:
    raise
except Exception as e:  # report and exit non-zero instead of Blender's default 0
    import traceback
    traceback.print_exc()
    fail("error: %s" % e, 1)
sys.exit(0)
