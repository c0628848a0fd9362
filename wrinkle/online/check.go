package online

import (
	"encoding/json"
	"fmt"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/wrinkle"
)

// CheckGarments returns an error (wrapping a *wrinkle.MismatchError) if
// db was not built for these garments on ch: it prepares them as the
// builder did (sim.New with the database's recorded settings, which split
// and refine them into pieces), joins the pieces and compares the result's
// hash with the database's (wrinkle.DB.CheckGarment).
func CheckGarments(db *wrinkle.DB, ch *character.Character, garments []*character.Garment) error {
	var so sim.Options
	if len(db.Header.Settings) > 0 && string(db.Header.Settings) != "null" {
		var rec struct {
			Sim sim.Options `json:"sim"`
		}
		if err := json.Unmarshal(db.Header.Settings, &rec); err != nil {
			return fmt.Errorf("online: database HEAD.settings.sim: %w", err)
		}
		so = rec.Sim
	}
	so.Workers = 1
	p, err := sim.Prepare(ch, garments, so)
	if err != nil {
		return fmt.Errorf("online: preparing the garments: %w", err)
	}
	pieces := p.Pieces()
	m, w, _, _ := sim.JoinPieces(pieces)
	if err := db.CheckGarment(m, w); err != nil {
		return fmt.Errorf("online: %w", err)
	}
	return nil
}
