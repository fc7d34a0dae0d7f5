package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// bigStore records, at loc, a history of commits runs (one per commit)
// of benches benchmarks, each with sec/op, B/op and allocs/op of 10
// samples: the store of issue 28's serve rows (1,000 x 50). Bench07
// steps up 5% at commit 600.
func bigStore(tb testing.TB, loc string, commits, benches int) {
	tb.Helper()
	ctx := context.Background()
	s, err := sqlstore.Open(ctx, loc, sqlstore.Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(28, 1))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for c := range commits {
		h := fmt.Sprintf("%040x", c+1)
		run := &model.Run{SchemaVersion: model.SchemaVersion, ID: fmt.Sprint(c), Kind: model.KindRun, Start: t0.Add(time.Duration(c) * time.Hour),
			Env:   &model.Env{GOOS: "linux", GOARCH: "amd64", CPUModel: "Bench CPU", Hostname: "runner"},
			Sides: []model.Side{{Label: "current", Rev: h}}}
		for b := range benches {
			level := 1e-6 * float64(b+1)
			if b == 7 && c >= commits*6/10 {
				level *= 1.05
			}
			ns := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
			bytes := model.Metric{Unit: "B/op", Better: model.LowerIsBetter, Assume: model.AssumeExact}
			allocs := model.Metric{Unit: "allocs/op", Better: model.LowerIsBetter, Assume: model.AssumeExact}
			for r := range 10 {
				ns.Samples = append(ns.Samples, model.Sample{Side: "current", Round: r, Iters: 1000, Value: level * math.Exp(0.01*rng.NormFloat64())})
				bytes.Samples = append(bytes.Samples, model.Sample{Side: "current", Round: r, Iters: 1000, Value: 64})
				allocs.Samples = append(allocs.Samples, model.Sample{Side: "current", Round: r, Iters: 1000, Value: 2})
			}
			run.Benchmarks = append(run.Benchmarks, model.Benchmark{Name: fmt.Sprintf("Bench%02d", b), Procs: 2, Pkg: "example.com/big",
				Metrics: []model.Metric{ns, bytes, allocs}})
		}
		if _, err := s.Record(ctx, run, sqlstore.Recording{Project: "example.com/big", Branch: "main",
			Commits: map[string]sqlstore.Commit{h: {Hash: h, Time: t0.Add(time.Duration(c) * time.Hour), Subject: fmt.Sprintf("commit %d", c)}}}); err != nil {
			tb.Fatal(err)
		}
	}
}

// bigStoreAt returns a store of bigStore(commits, benches), made once
// per process (or kept at $RIGOR_BENCH_STORE when set, made there if
// missing: the store curl's timings of rigor serve read).
func bigStoreAt(tb testing.TB, commits, benches int) string {
	tb.Helper()
	loc := os.Getenv("RIGOR_BENCH_STORE")
	if loc == "" {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("rigor-bench-store-%d", os.Getpid()))
		loc = filepath.Join(dir, fmt.Sprintf("big-%dx%d.db", commits, benches))
		tb.Cleanup(func() { os.RemoveAll(dir) })
	}
	if _, err := os.Stat(loc); err != nil {
		bigStore(tb, loc, commits, benches)
	}
	return loc
}

// TestWriteBenchStore writes the store of issue 28's serve rows to
// $RIGOR_BENCH_STORE (skipped without it), for timing rigor serve with
// curl:
//
//	RIGOR_BENCH_STORE=/tmp/big.db go test -run TestWriteBenchStore ./cmd/rigor
//	rigor serve --store /tmp/big.db --addr 127.0.0.1:8090 &
//	curl -so /dev/null -w '%{time_total}\n' http://127.0.0.1:8090/
//
// RIGOR_BENCH_COMMITS sets another number of commits (100: the store of
// the pages' memory against the history's length).
func TestWriteBenchStore(t *testing.T) {
	if os.Getenv("RIGOR_BENCH_STORE") == "" {
		t.Skip("writes a store of 1,000 commits x 50 benchmarks to $RIGOR_BENCH_STORE; unset")
	}
	commits := 1000
	if c := os.Getenv("RIGOR_BENCH_COMMITS"); c != "" {
		n, err := strconv.Atoi(c)
		if err != nil || n < 1 {
			t.Fatalf("RIGOR_BENCH_COMMITS=%q: want a number of commits", c)
		}
		commits = n
	}
	bigStoreAt(t, commits, 50)
}

// openForPages opens the store at loc until tb ends, and returns it with
// the detection's default options, as rigor serve shows its pages.
func openForPages(tb testing.TB, loc string) (sqlstore.Store, history.Options) {
	tb.Helper()
	s, err := sqlstore.Open(context.Background(), loc, sqlstore.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	opts, err := (&seriesFlags{window: history.DefaultWindowLen, maxP: history.DefaultMaxPValue, transient: history.DefaultTransient}).options()
	if err != nil {
		tb.Fatal(err)
	}
	return s, opts
}

// BenchmarkServe times the dashboard's pages on a store of 1,000 commits
// x 50 benchmarks x 3 units (issue 28: they took 1 s each, reading the
// whole history to show one page): cold, each request on a dashboard
// of its own (as the first after a run is recorded), and warm, the
// requests after it.
func BenchmarkServe(b *testing.B) {
	s, opts := openForPages(b, bigStoreAt(b, 1000, 50))
	machine := sqlstore.MachineOf(&model.Run{Env: &model.Env{GOOS: "linux", GOARCH: "amd64", CPUModel: "Bench CPU"}}).Fingerprint
	for _, page := range []struct{ name, url string }{
		{"index", "/"},
		{"series", "/series?bench=Bench07-2&branch=main&machine=" + machine + "&pkg=example.com%2Fbig&unit=sec%2Fop"},
		{"run", "/run/500"},
	} {
		for _, cold := range []bool{true, false} {
			name := page.name + "/warm"
			if cold {
				name = page.name + "/cold"
			}
			b.Run(name, func(b *testing.B) {
				h := (&dashboard{store: s, flags: seriesFlags{unit: "sec/op"}, opts: opts}).handler()
				if !cold {
					h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", page.url, nil))
				}
				defer reportCPU(b, processCPU())
				for b.Loop() {
					if cold {
						h = (&dashboard{store: s, flags: seriesFlags{unit: "sec/op"}, opts: opts}).handler()
					}
					w := httptest.NewRecorder()
					h.ServeHTTP(w, httptest.NewRequest("GET", page.url, nil))
					if w.Code != http.StatusOK {
						b.Fatalf("GET %s: %d\n%.500s", page.url, w.Code, w.Body.String())
					}
				}
			})
		}
	}
	// The first index after a run is recorded: the dashboard kept the
	// series and analyses of the history before it.
	b.Run("index/after-run", func(b *testing.B) {
		ctx := context.Background()
		n, last, err := s.RecordedRuns(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var cpu time.Duration
		for b.Loop() {
			b.StopTimer()
			d := &dashboard{store: s, flags: seriesFlags{unit: "sec/op"}, opts: opts}
			f := filterOf(httptest.NewRequest("GET", "/", nil), "sec/op")
			list, err := d.sets.read(ctx, s, f, sqlstore.Filter{Unit: f.Unit}, [2]int64{n - 1, last - 1})
			if err != nil {
				b.Fatal(err)
			}
			d.analyses.analyze(list.All(), opts)
			h := d.handler()
			cpu -= processCPU()
			b.StartTimer()
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
			cpu += processCPU()
			if w.Code != http.StatusOK {
				b.Fatalf("GET /: %d\n%.500s", w.Code, w.Body.String())
			}
		}
		if cpu > 0 {
			b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
		}
	})
	// Reading every point of the index's series, as a dashboard that
	// kept nothing between runs would at each index (issue 28: serve's
	// memory flat in the history's length would cost this in CPU at
	// every run, beside the analysis).
	b.Run("index/read-all", func(b *testing.B) {
		ctx := context.Background()
		n, last, err := s.RecordedRuns(ctx)
		if err != nil {
			b.Fatal(err)
		}
		f := filterOf(httptest.NewRequest("GET", "/", nil), "sec/op")
		defer reportCPU(b, processCPU())
		for b.Loop() {
			var sets seriesSets
			if _, err := sets.read(ctx, s, f, sqlstore.Filter{Unit: f.Unit}, [2]int64{n, last}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// What the dashboard keeps of the history once it made the index,
	// per point of the index's series (the live heap after a collection):
	// issue 28's serve memory against the history's length.
	b.Run("index/kept", func(b *testing.B) {
		var kept, points uint64
		for b.Loop() {
			d := &dashboard{store: s, flags: seriesFlags{unit: "sec/op"}, opts: opts}
			h := d.handler()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
			if w.Code != http.StatusOK {
				b.Fatalf("GET /: %d\n%.500s", w.Code, w.Body.String())
			}
			w = nil
			runtime.GC()
			runtime.ReadMemStats(&after)
			if after.HeapAlloc > before.HeapAlloc {
				kept += after.HeapAlloc - before.HeapAlloc
			}
			for _, ks := range d.sets.sets[filterOf(httptest.NewRequest("GET", "/", nil), "sec/op")].byKey {
				points += uint64(len(ks.heads))
			}
			runtime.KeepAlive(h)
		}
		if points > 0 {
			b.ReportMetric(float64(kept)/float64(points), "kept-B/point")
		}
	})
	// A series page first asked for after the index (as rigor serve
	// makes the index itself once a run is recorded): the index has
	// analyzed its series.
	b.Run("series/after-index", func(b *testing.B) {
		url := "/series?bench=Bench07-2&branch=main&machine=" + machine + "&pkg=example.com%2Fbig&unit=sec%2Fop"
		var cpu time.Duration
		for b.Loop() {
			b.StopTimer()
			h := (&dashboard{store: s, flags: seriesFlags{unit: "sec/op"}, opts: opts}).handler()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
			cpu -= processCPU()
			b.StartTimer()
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", url, nil))
			cpu += processCPU()
			if w.Code != http.StatusOK {
				b.Fatalf("GET %s: %d\n%.500s", url, w.Code, w.Body.String())
			}
		}
		if cpu > 0 {
			b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
		}
	})
}

// reportCPU reports the CPU time the process used since start, per
// operation of b (on a busy machine, what a page costs better than the
// time it took).
func reportCPU(b *testing.B, start time.Duration) {
	if cpu := processCPU() - start; cpu > 0 && start > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
	}
}
