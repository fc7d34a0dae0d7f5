package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// xxhashFixture is the file of fxXXHashRun, kept in testdata so that any
// rigor binary can render it: rigor report report/testdata/xxhash.json.
var xxhashFixture = filepath.Join("testdata", "xxhash.json")

// fxXXHashRun has the shape of the run of issue 13 (rigor ab over
// cespare/xxhash's "Remove bounds checks from purego Sum64"): 10
// benchmarks in 12 paired rounds, in two families whose names share long
// prefixes (Hashes/xxhash,direct,bytes,n=100B and five more like it; four
// Sum64 sizes from 4B to 10MB, so times span 3ns to 1.5ms), one
// benchmark that goes from zero allocations to one, and Sum64/4KB built
// so that the paired change (+3%: new was slower in most rounds) has the
// opposite sign of the medians (602.1ns -> 596.8ns).
func fxXXHashRun() *model.Run {
	rng := rand.New(rand.NewPCG(13, 13))
	t0 := time.Date(2026, 3, 20, 14, 2, 0, 0, time.UTC)
	const rounds = 12
	run := &model.Run{
		SchemaVersion: model.SchemaVersion, ID: "20260320-140200", Kind: model.KindAB, Paired: true,
		Start: t0, End: t0.Add(94 * time.Second),
		Command: []string{"rigor", "ab", "--old", "HEAD~1", "--old-tags", "purego", "--new-tags", "", "--bench", "Hashes|Sum64", "."},
		Sides: []model.Side{
			{Label: "old", Source: "HEAD~1", Rev: "a8cdb6b4ef6c3f14c9bd5f94a4b8a4e9b1b0c6d2", Tags: "purego"},
			{Label: "new", Source: ".", Rev: "5f3c1e9a0d2b7c4e8f6a1b3d5c7e9f0a2b4c6d8e", Dirty: true},
		},
		Env: &model.Env{GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 2,
			CPUModel: "Intel(R) Xeon(R) Processor @ 2.10GHz", LogicalCores: 2, Kernel: "6.1.0"},
	}
	cfg := map[string]string{"goos": "linux", "goarch": "amd64", "cpu": "Intel(R) Xeon(R) Processor @ 2.10GHz"}
	type spec struct {
		name     string
		bytes    float64 // b.SetBytes
		old, new float64 // sec/op
		cv       float64
		allocs   bool    // b.ReportAllocs
		newAlloc float64 // allocs/op on new (old has none)
	}
	specs := []spec{
		{"Hashes/xxhash,direct,bytes,n=5B", 5, 5.12e-9, 5.05e-9, 0.01, true, 0},
		{"Hashes/xxhash,direct,bytes,n=100B", 100, 14.1e-9, 13.6e-9, 0.01, true, 0},
		{"Hashes/xxhash,direct,string,n=100B", 100, 14.3e-9, 13.8e-9, 0.01, true, 0},
		{"Hashes/xxhash,direct,bytes,n=4KB", 4096, 331e-9, 318e-9, 0.01, true, 0},
		{"Hashes/xxhash,digest,bytes,n=100B", 100, 22.4e-9, 22.3e-9, 0.01, true, 0},
		{"Hashes/xxhash,digest,string,n=100B", 100, 23.1e-9, 41.7e-9, 0.01, true, 1},
		{"Sum64/4B", 4, 3.21e-9, 3.22e-9, 0.005, false, 0},
		{"Sum64/100B", 100, 14.6e-9, 14.1e-9, 0.01, false, 0},
		{"Sum64/4KB", 4096, 0, 0, 0, false, 0}, // hand-built below
		{"Sum64/10MB", 10 << 20, 1.5061e-3, 1.4582e-3, 0.015, false, 0},
	}
	// Sum64/4KB: new is 2-3% slower than old in nine rounds and much
	// faster in the three slowest rounds of old, so new's median is below
	// old's while the per-round ratios center on about +3%.
	sum4KOld := []float64{560, 571, 579, 588, 596, 600.5, 603.7, 611, 619, 628, 637, 645}
	sum4KNew := []float64{577.0, 588.0, 592.9, 600.7, 614.0, 618.6, 621.8, 629.3, 637.6, 540.1, 547.8, 554.7}
	sum4KRound := []int{7, 2, 11, 0, 9, 4, 10, 1, 5, 8, 3, 6} // pair of each round, so that no drift shows
	for _, sp := range specs {
		b := model.Benchmark{Name: sp.name, Procs: 2, Pkg: "github.com/cespare/xxhash/v2", Config: cfg}
		sec := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
		bps := model.Metric{Unit: "B/s", Better: model.HigherIsBetter}
		bop := model.Metric{Unit: "B/op", Better: model.LowerIsBetter}
		aop := model.Metric{Unit: "allocs/op", Better: model.LowerIsBetter}
		for r := 1; r <= rounds; r++ {
			common := 1 + 0.5*sp.cv*rng.NormFloat64()
			iters := int64(0)
			for _, side := range []string{"old", "new"} {
				var v, allocs float64
				switch {
				case sp.name == "Sum64/4KB" && side == "old":
					v = sum4KOld[sum4KRound[r-1]] * 1e-9
				case sp.name == "Sum64/4KB":
					v = sum4KNew[sum4KRound[r-1]] * 1e-9
				case side == "old":
					v = sp.old * common * (1 + sp.cv*rng.NormFloat64())
				default:
					v = sp.new * common * (1 + sp.cv*rng.NormFloat64())
					allocs = sp.newAlloc
				}
				if iters == 0 {
					// One iteration count per round, shared by both
					// sides: about 0.1s per sample, jittered.
					iters = max(1, int64(math.Round(0.1/v*(0.8+0.4*rng.Float64()))))
				}
				// go test prints ns/op with two decimals at most.
				v = math.Round(v*1e11) / 1e11
				sec.Samples = append(sec.Samples, model.Sample{Side: side, Round: r, Iters: iters, Value: v})
				bps.Samples = append(bps.Samples, model.Sample{Side: side, Round: r, Iters: iters, Value: sp.bytes / v})
				if sp.allocs {
					bop.Samples = append(bop.Samples, model.Sample{Side: side, Round: r, Iters: iters, Value: 16 * allocs})
					aop.Samples = append(aop.Samples, model.Sample{Side: side, Round: r, Iters: iters, Value: allocs})
				}
			}
		}
		b.Metrics = []model.Metric{sec, bps}
		if sp.allocs {
			b.Metrics = append(b.Metrics, bop, aop)
		}
		run.Benchmarks = append(run.Benchmarks, b)
	}
	return run
}

// TestXXHashFixture keeps testdata/xxhash.json what fxXXHashRun builds
// (go test ./report -run XXHashFixture -update rewrites it).
func TestXXHashFixture(t *testing.T) {
	var b bytes.Buffer
	if err := fxXXHashRun().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "xxhash.json", b.Bytes())
}

// fxXXHash analyses the fixture as read back from its file, as rigor
// report does.
func fxXXHash(t testing.TB) *analysis.Report {
	t.Helper()
	run, err := model.ReadFile(xxhashFixture, "")
	if err != nil {
		t.Fatal(err)
	}
	return fxAnalyze(t, run)
}

// TestGoldenXXHash keeps the text forms of the xxhash fixture: every
// text style off a terminal (no width: names whole, every column) and on
// terminals of 100 and 72 columns (names grouped under their shared
// prefix), and Markdown.
func TestGoldenXXHash(t *testing.T) {
	rep := fxXXHash(t)
	cases := []struct {
		name string
		opts Options
	}{
		{"xxhash.text.golden", Options{Format: "text"}},
		{"xxhash.text-100.golden", Options{Format: "text", Width: 100}},
		{"xxhash.text-72.golden", Options{Format: "text", Width: 72}},
		{"xxhash.tree.golden", Options{Format: "text", Style: "tree"}},
		{"xxhash.tree-100.golden", Options{Format: "text", Style: "tree", Width: 100}},
		{"xxhash.table.golden", Options{Format: "text", Style: "table"}},
		{"xxhash.table-100.golden", Options{Format: "text", Style: "table", Width: 100}},
		{"xxhash.md.golden", Options{Format: "md"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, rep, c.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, b.Bytes())
		})
	}
}
