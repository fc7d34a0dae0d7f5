package main

import (
	"context"
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// goldenStore records at loc a small varied history: 60 commits on main
// and 25 on dev, two benchmarks with sec/op and B/op, a +8% step on main
// at commit 35, an outlier run at 12, and 20 runs of rigor exec with two
// commands.
func goldenStore(t *testing.T, loc string) {
	t.Helper()
	s, err := sqlstore.Open(context.Background(), loc, sqlstore.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(7, 8))
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	record := func(run *model.Run, branch, h string, at time.Time, subject string) {
		t.Helper()
		if _, err := s.Record(context.Background(), run, sqlstore.Recording{Project: "example.com/g", Branch: branch,
			Commits: map[string]sqlstore.Commit{h: {Hash: h, Time: at, Subject: subject}}}); err != nil {
			t.Fatal(err)
		}
	}
	env := &model.Env{GOOS: "linux", GOARCH: "amd64", CPUModel: "Golden CPU"}
	for _, br := range []struct {
		name string
		n    int
	}{{"main", 60}, {"dev", 25}} {
		for c := range br.n {
			h := fmt.Sprintf("%s%036x", map[string]string{"main": "a1a1", "dev": "d2d2"}[br.name], c+1)
			at := t0.Add(time.Duration(c) * time.Hour)
			run := &model.Run{SchemaVersion: model.SchemaVersion, ID: br.name + fmt.Sprint(c), Kind: model.KindRun, Start: at, Env: env,
				Sides: []model.Side{{Label: "current", Rev: h}}}
			for b, name := range []string{"Encode/size=64", "Decode"} {
				level := 1e-6 * float64(b+1)
				if br.name == "main" && b == 0 && c >= 35 {
					level *= 1.08
				}
				if br.name == "main" && b == 1 && c == 12 {
					level *= 1.3
				}
				ns := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
				by := model.Metric{Unit: "B/op", Better: model.LowerIsBetter, Assume: model.AssumeExact}
				for r := range 8 {
					ns.Samples = append(ns.Samples, model.Sample{Side: "current", Round: r, Iters: 1000, Value: level * math.Exp(0.01*rng.NormFloat64())})
					by.Samples = append(by.Samples, model.Sample{Side: "current", Round: r, Iters: 1000, Value: float64(64 * (b + 1))})
				}
				run.Benchmarks = append(run.Benchmarks, model.Benchmark{Name: name, Procs: 4, Pkg: "example.com/g/codec", Metrics: []model.Metric{ns, by}})
			}
			record(run, br.name, h, at, fmt.Sprintf("%s: change %d", br.name, c))
		}
	}
	for c := range 20 {
		h := fmt.Sprintf("e3e3%036x", c+1)
		at := t0.Add(time.Duration(100+c) * time.Hour)
		run := &model.Run{SchemaVersion: model.SchemaVersion, ID: fmt.Sprint("exec", c), Kind: "exec", Start: at, Env: env,
			Sides: []model.Side{{Label: "sleep 0.01", Rev: h}, {Label: "sleep 0.02", Rev: h}}}
		m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
		for r := range 6 {
			m.Samples = append(m.Samples, model.Sample{Side: "sleep 0.01", Round: r, Iters: 1, Value: 0.0105 * math.Exp(0.02*rng.NormFloat64())},
				model.Sample{Side: "sleep 0.02", Round: r, Iters: 1, Value: 0.0207 * math.Exp(0.02*rng.NormFloat64())})
		}
		run.Benchmarks = []model.Benchmark{{Name: "exec", Metrics: []model.Metric{m}}}
		record(run, "main", h, at, fmt.Sprintf("exec %d", c))
	}
}

var goldenLink = regexp.MustCompile(`href="(/(?:series|run/)[^"]*)"`)

// TestServeGolden: the dashboard's pages of goldenStore, byte for byte,
// on SQLite and on PostgreSQL alike: the index with the default unit,
// every unit and a filter, and every series page it links
// (testdata/serve-golden.txt; go test -run TestServeGolden -update
// rewrites it). Work that changes how the pages are read or computed
// must leave them as they are.
func TestServeGolden(t *testing.T) {
	for engine, loc := range testStores(t) {
		t.Run(engine, func(t *testing.T) {
			if loc == "" {
				loc = filepath.Join(t.TempDir(), sqlstore.FileName)
			}
			goldenStore(t, loc)
			testGolden(t, loc, *updateGolden && engine == "sqlite")
		})
	}
}

func testGolden(t *testing.T, loc string, update bool) {
	s, opts := openForPages(t, loc)
	h := (&dashboard{store: s, flags: seriesFlags{unit: "sec/op"}, opts: opts}).handler()
	page := func(url string) string {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", url, nil))
		return fmt.Sprintf("== GET %s: %d\n%s\n", url, w.Code, w.Body.String())
	}
	var b strings.Builder
	// (The run pages are the report's HTML, which has golden files of its
	// own.)
	urls := []string{"/", "/?unit=", "/?unit=B%2Fop&branch=dev", "/?pkg=example.com%2Fg%2Fcodec&machine=nosuch"}
	seen := map[string]bool{}
	for i := 0; i < len(urls); i++ {
		u := urls[i]
		body := page(u)
		b.WriteString(body)
		if u != "/?unit=" {
			continue
		}
		for _, m := range goldenLink.FindAllStringSubmatch(body, -1) {
			link := html.UnescapeString(m[1])
			if !seen[link] && strings.HasPrefix(link, "/series") {
				seen[link] = true
				urls = append(urls, link)
			}
		}
	}
	if len(seen) != 10 {
		t.Fatalf("the index links %d series, want 10", len(seen))
	}
	got := b.String()
	path := filepath.Join("testdata", "serve-golden.txt")
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("the pages differ from %s at line %d:\n got: %.300s\nwant: %.300s", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("the pages differ from %s in length: %d lines, want %d", path, len(gl), len(wl))
	}
}
