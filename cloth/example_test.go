package cloth_test

import (
	"fmt"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// A denim sheet pinned at two corners swings down and comes to rest.
func ExampleSheetScene() {
	s, err := cloth.SheetScene(cloth.Material{Fabric: cloth.Denim()}, 10, 10, cloth.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	peak, last := 0.0, 0.0
	for frame := 0; frame < 90; frame++ { // 3 s at 30 frames/s
		st, err := s.Cloth.Step(s.FrameDt)
		if err != nil {
			fmt.Println(err)
			return
		}
		peak, last = max(peak, st.KineticEnergy), st.KineticEnergy
	}
	fmt.Printf("pinned corner at %.2f\n", s.Cloth.X[0])
	fmt.Println("settled:", last < 0.02*peak)
	// Output:
	// pinned corner at {-0.50 1.00 0.50}
	// settled: true
}

// floor keeps a cloth above the plane y = h by pushing vertices up in End,
// and as a cloth.LimitHook takes back the pushes that would leave an edge
// beyond the strain limit once the cloth has limited strain again.
type floor struct {
	h      float64
	pushed map[int]float64 // vertex → its height before the push
	undone int
}

func (f *floor) Begin(*cloth.StepContext) error { return nil }

func (f *floor) End(s *cloth.StepContext) error {
	clear(f.pushed)
	for i, x := range s.X {
		if x.Y < f.h {
			f.pushed[i] = x.Y
			s.X[i].Y = f.h
		}
	}
	return nil
}

func (f *floor) AfterLimit(s *cloth.StepContext) error {
	limit := 1 + s.Cloth().Options().StrainLimit
	rest := s.Cloth().EdgeRest()
	for k, e := range s.Cloth().Edges() {
		if s.X[e[0]].Dist(s.X[e[1]]) <= limit*rest[k]*(1+1e-9) {
			continue
		}
		for _, v := range e {
			if y, ok := f.pushed[int(v)]; ok {
				s.X[v].Y = y
				delete(f.pushed, int(v))
				f.undone++
			}
		}
	}
	return nil
}

// A 1 m sheet hanging from two corners 1 m up sweeps over a floor 70 cm
// high. The floor pushes vertices out in End; with a strain limit the cloth
// then limits strain a second time, spreading each push over the
// neighbours, and calls AfterLimit, which takes back what would still
// overstretch an edge.
func ExampleLimitHook() {
	s, err := cloth.SheetScene(cloth.Material{Fabric: cloth.Denim()}, 8, 8, cloth.Options{StrainLimit: 0.1})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := &floor{h: 0.7, pushed: map[int]float64{}}
	s.Cloth.Hooks = append(s.Cloth.Hooks, f)
	for frame := 0; frame < 60; frame++ {
		if _, err := s.Cloth.Step(s.FrameDt); err != nil {
			fmt.Println(err)
			return
		}
	}
	lowest := s.Cloth.X[0].Y
	for _, x := range s.Cloth.X {
		lowest = min(lowest, x.Y)
	}
	fmt.Printf("lowest vertex %.2f m up, max strain within the limit: %v\n", lowest, s.Cloth.MaxStretch() <= 0.1*1.002)
	// Output:
	// lowest vertex 0.70 m up, max strain within the limit: true
}

// A garment posed from outside (here a sheet pulled 30 % along x, as
// skinning can tear a garment where its weights change fast) is brought
// within the strain limit before the first Step; its hard-attached corner
// stays where it is.
func ExampleCloth_LimitStrain() {
	m := mesh.Grid(0.2, 0.1, 10, 5)
	c, err := cloth.NewCloth(m, cloth.Material{Fabric: cloth.Denim()}, cloth.Options{RestFromMesh: true, StrainLimit: 0.1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, p := range c.X {
		c.X[i] = geom.V(p.X*1.3, p.Y, p.Z)
	}
	c.Attach(cloth.Attachment{Vertex: 10}) // the corner at x = 0.26 m
	_, before := c.MaxEdgeStrain()
	after := c.LimitStrain()
	fmt.Printf("max strain before %.2f, after within 10 %%: %v; corner at x = %.2f m\n", before, after <= 0.1, c.X[10].X)
	// Output:
	// max strain before 0.30, after within 10 %: true; corner at x = 0.26 m
}
