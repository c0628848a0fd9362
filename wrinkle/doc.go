// Package wrinkle is example-based wrinkle synthesis (Wang, O'Brien and
// Ramamoorthi 2010, "wang2010"): a database of high-resolution garment
// shapes settled with one joint moved at a time (§3.1), and the online
// synthesis that interpolates each joint's samples (§3.3, Eqs. 1–3) and
// blends the joints with influence maps (Eq. 4). It depends only on geom,
// mesh and skel; the builder, which runs the simulator, lives in
// wrinkle/build.
//
// # Conventions
//
//   - Metres and radians inside; the spec file's angles are degrees.
//     Right-handed coordinates; no up or forward axis is assumed: the
//     body's axes come from the rig.
//   - Garment vertices keep the garment mesh's 0-based order everywhere.
//   - Same inputs give bit-identical outputs: file encoding is canonical,
//     iteration orders are fixed, and the position predictor of the file
//     format is written without fused multiply-adds.
//   - Bad input (spec, rig, garment, pose, file) gives an error naming the
//     field, role, vertex, sample or section; nothing here panics on input.
//     Spec, Rig, Build and DB are immutable and safe for concurrent use; a
//     Synthesizer is one goroutine's.
//
// # Roles and anatomical angles
//
// Nine roles (§3.1, Fig. 4): elbows and knees are hinges with one DoF,
// flexion; shoulders, hips and the spine are ball joints with three DoFs,
// two swing angles and a twist. Bind maps roles to skeleton joints by name
// (presets for the CMU names of MakeHuman's cmu_mb rig and the procedural
// mannequin, Mixamo glTF rigs, MakeHuman's default rig, or a NameMap) and
// derives every axis from the rest geometry, never from a rig's bone-roll
// conventions:
//
//   - Body axes: Left from the right to the left shoulder and hip joints,
//     Up from the spine chain (made perpendicular to Left), Forward =
//     Left × Up.
//   - Hinges: flexion turns the bone (forearm, shank) about an axis
//     through the joint towards Forward (elbows) or backward (knees). When
//     the rig's limb is bent at rest (MakeHuman's elbows by 47°) the axis
//     is the normal of that bend plane. Flexion is anatomical: 0 is the
//     straight limb, whatever the rest pose.
//   - Ball joints: angles are anatomical, measured from a neutral pose
//     whatever the rig's rest pose: arms hanging at the sides and legs
//     straight down (bone along −Up), the spine along Up. The neutral
//     rotation N turns the rest bone onto the neutral direction b by the
//     shortest arc (an A-pose's and a T-pose's arms reach the same
//     neutral). The pose's rotation D of the joint (relative to its
//     parent, expressed in world rest coordinates) times N⁻¹ is split by
//     geom.SwingTwist about b into swing·twist. The swing's rotation
//     vector is read on two axes: flexion (moves b towards Forward) and
//     abduction (moves b away from the midline), for the spine side
//     bending (towards Left). Positive twist is internal rotation on both
//     sides, and turning left for the spine. A T-pose rig rests at
//     shoulder abduction 90°, MakeHuman's A-pose at about 40°.
//   - The spine's rotation is spread evenly over its chain of joints
//     (D^(1/n) each) and read back as the rotation of the chain's top
//     relative to the parent of its base.
//
// skel.JointAngles is not used because its swing axes follow the rig's
// bone frames, which differ between rigs.
//
// # Samples
//
// A Spec lists per role a Range per DoF; the samples are the grid points,
// enumerated joint by joint in spec order, row-major within a joint (twist
// fastest). Rig.SamplePose gives a sample's pose: the rest pose with only
// that role moved.
//
// # Regions and influence maps
//
// A garment vertex's region is the body segment, delimited by the sampled
// roles, whose joints carry most of its skin weight; its influences are
// the roles bordering that segment weighted by inverse path distance to
// the segment across each (Eq. 4 generalised), then smoothed. See Regions.
//
// # Database files
//
// A .pdb holds a JSON header (hashes of garment, base shape, regions, rig
// and spec; the simulator settings; the quantisation step; the shard),
// the garment (rest shape, settled base shape, triangles, skin weights),
// the regions, and per sample its stats, the skinning transforms of its
// pose and its settled positions. A database may also hold coarse
// samples (CoarseInfo; format version 3): the online pipeline's coarse
// garment, settled in the rest pose and in every stored sample's pose,
// with which it corrects its coarse simulation pose by pose
// (wrinkle/online). Positions are stored as residuals from
// the base shape skinned into the sample's pose, quantised (DefaultQuantum
// 0.1 mm: at most 0.05 mm per coordinate) and zstd-compressed. Every
// section has a CRC-32C and the file ends with its SHA-256. Build encodes
// samples as a builder settles them; a Journal makes a build resumable;
// shard k of n holds samples i ≡ k (mod n) and Merge joins shards into a
// file byte-identical to a one-machine build. See format.go for the layout.
//
// # Synthesis: how samples reach the pose
//
// Sample s of role J is a garment shape x_s in the pose Π_J(θ_s) where
// only J is moved, so all of J's samples share one frame: the joint's
// parent at rest. For a pose P, Synthesize
//
//  1. reads J's angles θ from P, clamps them to the sampled range
//     (Status.Clamped; SynthOptions.OnClamp is told once per role and DoF)
//     and finds the grid cell and the fractions t_d along each DoF;
//  2. interpolates the cell's corner samples vertex by vertex in that
//     frame, one DoF at a time in a fixed order: twist with the screw
//     scheme about the bone (Eqs. 2–3; the bone as swung at that corner),
//     then the two swing angles, or a hinge's flexion, with the rotational
//     scheme about the joint centre (Eq. 1). This gives y_J, J's wrinkle
//     mesh at θ in the pose Π_J(θ);
//  3. carries y_J into P through skinning: with s_J the rest shape skinned
//     into Π_J(θ) and R_J(v) the vertex's blended skinning rotation there,
//     the local offset δ_J(v) = R_J(v)ᵀ (y_J(v) − s_J(v)) is the wrinkle
//     relative to the skinned garment, independent of the rest of the pose;
//  4. blends the roles with the influence weights (Eq. 4) and poses the
//     result: x(v) = LBS_P(v) + R_P(v) Σ_J w_J(v) δ_J(v), where LBS_P is
//     the rest shape skinned into P and R_P(v) the normalised blend of the
//     vertex's joint rotations. Vertices no role influences get the settled
//     base shape, skinned the same way.
//
// At a sample's pose, the vertices only its role influences come out at
// the stored positions (up to float32 storage). The result is the fine
// mesh of §3.3; detail transfer onto the coarse simulation (§3.4) follows
// it. Synthesize allocates nothing; the Synthesizer holds the samples of
// each role's influenced vertices as float32.
package wrinkle
