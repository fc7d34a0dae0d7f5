package harness

import (
	"testing"

	"github.com/rigorbench/rigor"
)

func Run(b *testing.B, g *rigor.Group) {}
