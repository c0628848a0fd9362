package wrinkle

import (
	"fmt"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// transferScene is a frame source for the transfer benchmarks: the
// procedural shirt of benchDatabase with its coarse mesh, and per walk
// pose (32 frames of a walk, consecutive frames 3 cm and a few degrees
// apart) the synthesized stand-in (the settled base skinned, with a ripple),
// the coarse mesh skinned and sagging 5 mm, and the body skinned.
type transferScene struct {
	db      *DB
	fine    *mesh.Mesh
	coarse  *Coarse
	poses   []skel.Pose
	fineX   [][]geom.Vec3
	coarseX [][]geom.Vec3
	bodyX   [][]geom.Vec3
	skin    [][]geom.Rigid // the body's skinning transforms per pose
}

// transferScenes caches the scenes by shirt size (decimation takes
// seconds at 46k vertices).
var transferScenes = map[int]*transferScene{}

func newTransferScene(b testing.TB, n int) *transferScene {
	if s := transferScenes[n]; s != nil {
		return s
	}
	f := getFixture(b)
	db, _ := benchDatabase(b, n)
	fine := &mesh.Mesh{Verts: db.Rest, Tris: db.Tris}
	c, err := NewCoarse(fine, db.Weights, CoarseOptions{})
	must(b, err)
	s := &transferScene{db: db, fine: fine, coarse: c, poses: walkPoses(f.rig, 32)}
	for _, p := range s.poses {
		skin := skel.SkinMatrices(f.rig.Skeleton, p, nil)
		fx := skel.LBS(db.Base, db.Weights, skin, nil)
		for v := range fx {
			r := db.Rest[v]
			fx[v] = fx[v].Add(geom.V(0.003*math.Sin(41*r.Y), 0.002*math.Cos(37*r.X), 0.003*math.Sin(43*r.Z+29*r.Y)))
		}
		cx := skel.LBS(c.Mesh.Verts, c.Weights, skin, nil)
		for v := range cx {
			cx[v].Y -= 0.005
		}
		s.fineX = append(s.fineX, fx)
		s.coarseX = append(s.coarseX, cx)
		s.bodyX = append(s.bodyX, skel.LBS(f.body.Mesh.Verts, f.body.Weights, skin, nil))
		s.skin = append(s.skin, skin)
	}
	transferScenes[n] = s
	return s
}

// BenchmarkTransferShirt times one frame of each online stage after
// synthesis on the procedural shirt (46k vertices is issue 19's garment),
// onto its default coarse mesh: transfer (Eqs. 5–6 with 10 smoothing
// steps), prealign (the transfer with §3.4's per-joint pre-alignment),
// push (BodyPush.SetBody and Push against the procedural body) and all
// (prealign then push), over worker counts. cpu-ms/frame is the CPU time
// of all the process's threads per frame (on a busy machine the wall
// clock also counts the time the benchmark waits for a core).
func BenchmarkTransferShirt(b *testing.B) {
	f := getFixture(b)
	for _, n := range []int{10000, 46000} {
		for _, stage := range []string{"transfer", "prealign", "push", "all"} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("verts=%d/%s/workers=%d", n, stage, workers), func(b *testing.B) {
					s := newTransferScene(b, n)
					tr, err := NewTransfer(s.fine, s.coarse.Mesh, s.coarse.FinePiece, s.coarse.VertPiece, TransferOptions{Workers: workers})
					must(b, err)
					defer tr.Close()
					if stage == "transfer" {
						b.Logf("%d fine, %d coarse vertices; S^n A: %.1f coarse vertices per fine row",
							len(s.fine.Verts), len(s.coarse.Mesh.Verts), float64(len(tr.uW))/float64(len(s.fine.Verts)))
					}
					var al *Prealign
					if stage == "prealign" || stage == "all" {
						al, err = NewPrealign(s.db, f.rig, tr)
						must(b, err)
						defer al.Close()
						must(b, al.Synthesize(s.poses[0]))
						b.Logf("%d roles pre-aligned at %d of %d vertices", al.NumRoles(), len(al.bv), len(s.fine.Verts))
					}
					bm := f.body.Mesh
					bp, err := NewBodyPush(bm.Verts, bm.Tris, len(s.fine.Verts), 0, 0)
					must(b, err)
					bp.Workers = workers
					defer bp.Close()
					dst := make([]geom.Vec3, len(s.fine.Verts))
					frame := func(i int) {
						k := i % len(s.poses)
						switch stage {
						case "transfer":
							must(b, tr.Apply(s.fineX[k], s.coarseX[k], dst))
						case "prealign", "all":
							must(b, al.Apply(s.fineX[k], s.coarseX[k], dst))
						case "push":
							copy(dst, s.fineX[k])
						}
						if stage == "push" || stage == "all" {
							must(b, bp.SetBody(s.bodyX[k]))
							_, err := bp.Push(dst)
							must(b, err)
						}
					}
					frame(0)
					b.ReportAllocs()
					b.ResetTimer()
					cpu0 := cpuTime()
					for i := 0; i < b.N; i++ {
						frame(i)
					}
					b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/frame")
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(s.fine.Verts)), "ns/vert")
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
				})
			}
		}
	}
}

// BenchmarkPrealignSynthesize times the synthesis of every blending
// role's own wrinkle mesh on the procedural shirt, which runs beside the
// coarse simulation: own (Prealign.Synthesize: a Synthesizer per role at
// its blend vertices, one role after the other), and plain and shared
// (the main Synthesizer alone, and sharing it with Prealign.Share, which
// writes the roles' meshes as it blends; shared − plain is their cost).
func BenchmarkPrealignSynthesize(b *testing.B) {
	f := getFixture(b)
	for _, n := range []int{10000, 46000} {
		for _, mode := range []string{"own", "plain", "shared"} {
			b.Run(fmt.Sprintf("verts=%d/%s", n, mode), func(b *testing.B) {
				s := newTransferScene(b, n)
				tr, err := NewTransfer(s.fine, s.coarse.Mesh, s.coarse.FinePiece, s.coarse.VertPiece, TransferOptions{})
				must(b, err)
				defer tr.Close()
				al, err := NewPrealign(s.db, f.rig, tr)
				must(b, err)
				defer al.Close()
				sy, err := NewSynthesizer(s.db, f.rig, SynthOptions{})
				must(b, err)
				defer sy.Close()
				if mode == "shared" {
					must(b, al.Share(sy))
				}
				dst := make([]geom.Vec3, sy.NumVerts())
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					p := s.poses[i%len(s.poses)]
					if mode == "own" {
						must(b, al.Synthesize(p))
						continue
					}
					_, err := sy.Synthesize(p, dst)
					must(b, err)
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/frame")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
			})
		}
	}
}

// BenchmarkBodyPush times BodyPush.SetBody and Push per frame on the
// procedural shirt's 46k vertices (the synthesized stand-in of
// transferScene) against the moving procedural body, through the walk's
// 32 poses in a loop: exact (Refresh = 1, a BVH query per point), walk
// (the default Refresh: local walks, exact queries where they are due)
// parts (walk with BodyParts' labels, SetParts) and held (parts, with
// the skinning transforms: SetBodyPose), on one worker.
// ns/point is the CPU time per garment point.
func BenchmarkBodyPush(b *testing.B) {
	f := getFixture(b)
	s := newTransferScene(b, 46000)
	bm := f.body.Mesh
	parts, err := BodyParts(bm.Tris, f.body.Weights)
	must(b, err)
	for _, mode := range []struct {
		name    string
		refresh int
		parts   bool
		held    bool
	}{{"exact", 1, false, false}, {"walk", 0, false, false}, {"parts", 0, true, false}, {"held", 0, true, true}} {
		b.Run(mode.name, func(b *testing.B) {
			bp, err := NewBodyPush(bm.Verts, bm.Tris, len(s.fine.Verts), 0, 0)
			must(b, err)
			defer bp.Close()
			bp.Workers, bp.Refresh = 1, mode.refresh
			if mode.parts {
				must(b, bp.SetParts(parts))
			}
			dst := make([]geom.Vec3, len(s.fine.Verts))
			var st PushStats
			frame := func(i int) {
				k := i % len(s.poses)
				copy(dst, s.fineX[k])
				if mode.held {
					must(b, bp.SetBodyPose(s.bodyX[k], s.skin[k]))
				} else {
					must(b, bp.SetBody(s.bodyX[k]))
				}
				ps, err := bp.Push(dst)
				must(b, err)
				st.Add(ps)
			}
			for i := range 2 * len(s.poses) {
				frame(i)
			}
			st = PushStats{}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				frame(i)
			}
			cpu := float64(cpuTime() - cpu0)
			b.ReportMetric(cpu/float64(b.N)/1e6, "cpu-ms/frame")
			b.ReportMetric(cpu/float64(b.N)/float64(len(dst)), "ns/point")
			b.ReportMetric(float64(st.Inside)/float64(b.N), "inside/frame")
			b.ReportMetric(float64(st.Exact)/float64(b.N), "exact/frame")
			b.ReportMetric(float64(st.Held)/float64(b.N), "held/frame")
		})
	}
}
