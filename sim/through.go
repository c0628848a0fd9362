package sim

import (
	"fmt"

	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
)

// measureThrough adds to st the skin of the full body pb that comes
// through the garments (collide.Through).
func (s *Simulator) measureThrough(pb *collide.Body, st *FrameStats) error {
	if s.through == nil {
		t, err := collide.NewThrough(s.meshes)
		if err != nil {
			return fmt.Errorf("sim: through: %w", err)
		}
		t.Workers = s.workers
		s.through = t
	}
	x := make([][]geom.Vec3, len(s.cloths))
	for i, c := range s.cloths {
		x[i] = c.X
	}
	th := s.through.MeasureBody(x, pb)
	st.Covered, st.Through, st.MaxThrough = th.Covered, th.Through, th.MaxThrough
	return nil
}
