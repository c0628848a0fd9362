// Package online is wang2010's online phase as a stream (§3.2–3.4, Fig. 3):
// poses go in one at a time (a clip, a game loop, a live mocap stream) and
// the fine, wrinkled garment comes out in a caller-owned buffer. Each Step
//
//  1. synthesizes the fine garment for the pose from the wrinkle database
//     (wrinkle.Synthesizer: per-joint interpolation, Eqs. 1–3, and
//     influence blending, Eq. 4, with the database's influence weights
//     soft-thresholded by Options.MinInfluence: a vertex skips the roles
//     that barely move it);
//  2. steps the coarse garment (wrinkle.NewCoarse: the fine garment
//     decimated to about 700 vertices, skin weights kept) one frame with
//     sim.Simulator: BDF2, body collision with a safety distance, layered
//     cloth–cloth collision, no self-collision (§3.2), no body-overlap
//     hook (coarseSimOptions);
//  3. corrects the coarse result's bias: a coarse garment does not hang
//     where the fine one does, by an amount that depends on the pose.
//     When the database has coarse samples for this coarse garment
//     (wrinkle.DB.Coarse: the builder settled it in every sample's pose,
//     CoarseSettler), they are synthesized like the fine samples and each
//     coarse vertex is moved from where the coarse garment comes to rest
//     in the pose to where the synthesized fine garment has it (poseCal);
//     otherwise by the offset, skinned, from where it came to rest when
//     New settled the coarse garment in the rest pose to where the
//     database's fine rest settle (DB.Base) has it (calibration). Off with
//     Options.NoCalibrate;
//  4. transfers the wrinkles onto the coarse result (wrinkle.Transfer,
//     Eqs. 5–6 with smoothed up-sampling, §3.4), with the per-joint
//     pre-alignment of §3.4's last paragraph where regions blend, and
//     pushes the fine vertices a safety distance out of the skinned body
//     (wrinkle.BodyPush), counting those that were inside.
//
// Steps 1 and 2 run concurrently, as the paper runs its garments and the
// transfer in threads. The first Step settles the coarse garment from the
// rest pose, placed at the pose's root, into its pose
// (sim.Simulator.SettleTo), starting from the coarse rest settle the
// coarse samples started from when they are used; later Steps advance
// one frame of 1/Options.FPS s.
//
// Units: metres, seconds; positions are world coordinates of the posed
// body (+Y up). Results are deterministic: the same database, character,
// options and poses give bit-identical vertices. A Pipeline is used by one
// goroutine at a time; Close ends its goroutines. Step allocates nothing
// in the steady state except what the simulator does.
package online
