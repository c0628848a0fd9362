// Package build makes wrinkle databases (Wang et al. 2010 §3.1) by
// simulation. The garments are first settled once in the rest pose (the
// database's base shape); then for each sample of a wrinkle.Spec, a fresh
// sim.Simulator started from that settled shape (sim.Simulator.StartFrom)
// moves the character from its rest pose into a pose where only the
// sample's joint has turned (wrinkle.Rig.SamplePose) and holds it until
// the garments are at rest (sim.Simulator.SettleTo); the settled garment
// is the sample. The package wrinkle holds the format, the journal and
// the synthesis, which do not need the simulator.
//
// A build that refines the garments (sim.Options.TargetVerts) to
// DefaultCoarseMinVerts or more settles each sample coarse-to-fine by
// default (Options.Coarse; Options.NoCoarse turns it off): first on the
// same garments refined to a quarter of the vertices, the whole way from
// the rest pose, then on the fine garment started from that shape in the
// pose (sim.Simulator.StartPosed: each fine rest vertex lies on a coarse
// rest triangle, both refining the same source triangles; it starts at
// its skinned rest settle moved by the coarse displacement interpolated
// there) until it is at rest by the same criteria. The long part of a
// heavy sample, the cloth sliding over a raised limb under strain
// limiting, then runs on the coarse garment, and the fine garment forms
// its own folds. MakeHuman suit at 25k vertices, shards 10/40 and 25/40
// of the default spec: 1.52 and 1.85 times less CPU (2.4 to 5.1 times on
// the heaviest samples, 0.7 to 1.1 on light ones, whose fine stage needs
// 12 frames or more: the drift window is 10), the same worst strain,
// curvature sums over the garment 0.93 to 1.04 of the direct settle's,
// and in pleat eval with a 6k database, the CMU walk and kick, mean
// error within 0.1 mm and curvature within 2 points of a direct build's,
// Pearson r 0.04 lower. Below the
// threshold it does not pay: at 6k vertices the coarse stage is the
// garment as given (2k vertices), a third of the fine one, and the fine
// stage needs 20 frames or more.
//
// The fine stage settles only the part of the garment the sample's role
// stores (wrinkle.Build.StoredVerts: the vertices its influence map
// reaches, the only ones synthesis reads from its samples) and
// FineStageMargin around it, cut out of the fine garment with
// sim.Prepared.Sub, its cut held where the coarse stage put it
// (sim.Simulator.Hold); the rest of the sample is the coarse stage's
// shape, which the database does not store. Options.FullFineStage settles
// the whole garment. On the MakeHuman suit at 25k vertices the roles
// store 8 % (elbows) to 39 % (spine) of the vertices; the interleaved
// shard 0/16 of the default spec took 12.8 CPU-seconds a sample against
// 27.0 with the whole garment (2.1 times less), its samples 1.1 to 6.0 mm
// from the whole garment's (mean weighted by the role's influence; two
// builds of the same samples by code a day apart differ by 2 to 5 mm).
// On male_casualsuit04 at 6k vertices with a coarse stage of 1,500,
// pleat eval on the CMU walk and kick gave 10.0 and 11.2 mm, r 0.42 and
// 0.80, against 10.0 and 11.1 mm, r 0.42 and 0.81 with the whole garment.
//
// Each sample also settles the online pipeline's coarse garment
// (wrinkle/online.CoarseSettler: the fine garment decimated to about 700
// vertices, simulated as the pipeline simulates it, from its own rest
// settle) into the sample's pose, and the database stores it beside the
// sample (wrinkle.CoarseInfo; Options.NoCoarseSamples leaves it out), so
// that synthesis can correct its coarse simulation's bias pose by pose. On
// the MakeHuman suits at 6k vertices it costs 0.2 to 0.4 s of CPU a
// sample, under a tenth of the fine settle.
//
// Samples are independent and deterministic, so a build runs them in
// parallel (Options.Jobs simulators of one worker each: one-worker
// simulations scale better than parallel solves on a shared machine) and
// in shards (Options.Shard of Shards: samples k ≡ Shard mod Shards),
// whose files wrinkle.Merge joins into a file byte-identical to a
// one-machine build. Finished samples go to a wrinkle.Journal as they
// finish, so an interrupted build continues where it stopped.
//
// Before simulating, Run checks that every sample is a pose the body can
// take: the skin that follows the moving joints rigidly (the forearm and
// hand for an elbow) is skinned into the pose and tested against the rest
// of the body (collide.Body signed distance), without the segment the limb
// hangs from, where a limb folds against itself (inner elbow, back of the
// knee, armpit). There the skinning itself lets the two segments pass into
// each other (the MakeHuman calf 58 mm into the thigh at a knee flexion of
// 150°, the thigh 4 cm into the belly at a hip flexion of 105°), so the
// samples settle on a body flattened at the rig's elbows, knees and hips
// (RigCreases, skel.Creaser; Options.NoCreases keeps the skinned body),
// where cloth caught in the crease has an outside to go to (a waistband
// target caught under the raised thigh is pushed out of it, sim's
// attached loops), and
// cloth caught in a closing crease is moved toward its mouth
// (sim.Options.SqueezeFolds; Options.NoSqueeze). A limb more than
// Options.PoseTolerance inside is a pose
// no body takes; Run refuses such a spec unless told to keep them
// (Options.KeepInvalid) or to record them as missing
// (Options.SkipInvalid; Options.SkipUnsettled likewise for samples that
// do not come to rest): synthesis fills a missing sample in from its
// grid neighbours (wrinkle.DB.FillIn). RenderSample draws a sample with a
// curvature heat map.
//
// A sample that does not come to rest is kept, reported and counted as not
// converged: one that reaches the time limit (Settle.MaxTime), and one
// whose garment holds its shape while it buzzes, given up before
// (Settle.Stall; SampleResult.Stalled, Summary.Stalled).
//
// Units: metres, seconds, radians (reports print degrees and
// millimetres). Statistics per sample (wrinkle.SampleStats): Converged
// and Steps (frames) from the settle, Residual the final kinetic energy
// per kilogram (J/kg), MaxStrain the largest edge strain l/L − 1,
// MaxPenetration the deepest garment vertex inside the body (m) and
// Penetrating the vertices more than 2 mm inside.
package build
