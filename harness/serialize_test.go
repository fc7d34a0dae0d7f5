package harness

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/model"
)

// TestRunSerializes measures a group that uses every per-variant setting
// (parallel, custom timing, a name with a space and capitals, subgroups,
// parameters, throughput) and checks that its run survives rigor JSON and
// Go benchmark format: the configuration keys must be ones that format
// can carry.
func TestRunSerializes(t *testing.T) {
	g := rigor.NewGroup("ser")
	g.Config = quick()
	g.Config.MinRounds, g.Config.MaxRounds = 3, 3
	for _, size := range []string{"8", "64"} {
		g.Bytes(8)
		g.Bench("plain/size="+size, func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
		g.Subgroup("odd ones")
		g.BenchParallel("Par Allel/size="+size, 2, func(b *rigor.B) { rigor.Iter(b, func() int { return 2 }) })
		g.Bench(`cus"tom=/size=`+size, func(b *rigor.B) {
			b.IterCustom(func(n int) time.Duration { return time.Duration(n) * time.Microsecond })
		})
		g.Subgroup("")
	}
	run, err := Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	par := `"Par Allel"`
	cfg := run.Benchmarks[0].Config
	if got := parseVariantList(cfg[configGoroutines]); len(got) != 1 || got["Par Allel"] != "2" {
		t.Errorf("goroutines %q reads as %v, want only %s=2", cfg[configGoroutines], got, par)
	}
	if ov := parseVariantList(cfg[configLoopOverhead]); ov["plain"] == "" || ov["Par Allel"] == "" || ov[`cus"tom=`] != "" {
		t.Errorf("loop-overhead %q reads as %v: want plain and %s, not the custom-timed variant", cfg[configLoopOverhead], ov, par)
	}
	if run.Sides[1].Subgroup != "odd ones" || run.Sides[2].Subgroup != "odd ones" || run.Sides[0].Subgroup != "" {
		t.Errorf("sides %+v: want the last two in subgroup \"odd ones\"", run.Sides)
	}

	var js bytes.Buffer
	if err := run.WriteJSON(&js); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	back, err := model.ReadJSON(bytes.NewReader(js.Bytes()))
	if err != nil {
		t.Fatalf("ReadJSON: %v", err)
	}
	var again bytes.Buffer
	if err := back.WriteJSON(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(js.Bytes(), again.Bytes()) {
		t.Errorf("JSON does not round-trip:\n%.400s\nvs\n%.400s", js.String(), again.String())
	}

	for _, side := range run.Sides {
		var bf bytes.Buffer
		if err := model.WriteBenchfmt(&bf, run, side.Label); err != nil {
			t.Fatalf("WriteBenchfmt %s: %v", side.Label, err)
		}
		read, err := model.Read(&bf, side.Label+".txt", side.Label)
		if err != nil {
			t.Fatalf("reading back %s: %v", side.Label, err)
		}
		if len(read.Benchmarks) != len(run.Benchmarks) {
			t.Fatalf("%s: %d benchmarks read back, want %d", side.Label, len(read.Benchmarks), len(run.Benchmarks))
		}
		for i, b := range read.Benchmarks {
			orig := &run.Benchmarks[i]
			want := orig.Metric(unitTime).Values(side.Label)
			if got := b.Metric(unitTime).Values(side.Label); !slices.Equal(got, want) {
				t.Errorf("%s %s: sec/op %v read back, want %v", side.Label, b.Name, got, want)
			}
			for k, v := range orig.Config {
				if b.Config[k] != v {
					t.Errorf("%s %s: config %s: %q read back, want %q", side.Label, b.Name, k, b.Config[k], v)
				}
			}
			if !strings.HasPrefix(b.Name, "ser/size=") {
				t.Errorf("%s: benchmark %q", side.Label, b.Name)
			}
		}
	}
}

func TestVariantList(t *testing.T) {
	for _, names := range [][]string{
		{"a", "b_2t"},
		{"Par Allel", `q"uote`, "eq=ual", "tab\there", "ünïcode"},
		{""},
	} {
		var l variantList
		want := map[string]string{}
		for i, n := range names {
			v := strings.Repeat("x", i+1)
			l.add(n, v)
			want[n] = v
		}
		cfg := map[string]string{}
		l.set(cfg, "k")
		if got := parseVariantList(cfg["k"]); !maps.Equal(got, want) {
			t.Errorf("%q: %q parses as %v, want %v", names, cfg["k"], got, want)
		}
	}
}

func TestSubgroupConflict(t *testing.T) {
	g := rigor.NewGroup("g")
	g.Config = quick()
	g.Bench("a/n=1", func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	g.Subgroup("s")
	g.Bench("a/n=2", func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	if _, err := Measure(context.Background(), g); err == nil || !strings.Contains(err.Error(), "subgroup") {
		t.Errorf("a variant in two subgroups: error %v, want one about subgroups", err)
	}
}
