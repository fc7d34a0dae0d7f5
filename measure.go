package rigor

import (
	"context"

	"github.com/rigorbench/rigor/model"
)

// Measure measures g with g.Config and returns the run.
func (g *Group) Measure(ctx context.Context) (*model.Run, error) {
	cfg := g.Config.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if g.err != nil {
		return nil, g.err
	}
	return g.measurePass(ctx, cfg, cfg.Seed, nil)
}
