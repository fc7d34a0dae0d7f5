package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiments/shards/suite"
	"github.com/rigorbench/rigor/model"
)

// shardFlags keep the shards' runs short: 2 ms samples, 6 rounds, one
// link, no profiling pass, no tests first.
var shardQuick = []string{"--benchtime", "2ms", "--min-rounds", "6", "--max-rounds", "6", "--layouts", "1", "--profile", "off", "--no-check", "--no-record"}

// TestShardsEndToEnd splits a generated module of 12 benchmarks (16 rows:
// two have three sub-benchmarks) into two shards run by rigor ab --shard,
// each in its own results directory, and merges them: every benchmark
// measured once, by its shard, and the merged changes are the shards'.
func TestShardsEndToEnd(t *testing.T) {
	old, new := suite.Revisions(12, map[int]float64{3: 1.5, 8: 0.6})
	dir := commitRevisions(t, old, new)
	tmp := t.TempDir()
	var outs []string
	var runs []*model.Run
	for i := range 2 {
		out := filepath.Join(tmp, fmt.Sprintf("shard-%d", i))
		args := append([]string{"ab", "--old", "HEAD~1", "--new", "HEAD", "--shard", fmt.Sprintf("%d/2", i), "--out", out}, shardQuick...)
		stdout, stderr, code := rigorIn(t, dir, append(args, "./...")...)
		if code != 0 {
			t.Fatalf("shard %d: exit %d\n%s\n%s", i, code, stdout, stderr)
		}
		outs = append(outs, out)
		runs = append(runs, readJSONFile(t, filepath.Join(out, "run.json")))
	}
	// Complete and disjoint, every shard listing the same suite, each
	// measuring only its own.
	var all []string
	for i, r := range runs {
		sh := r.Shard
		if sh == nil || sh.Index != i || sh.Count != 2 || sh.Selected != 12 || sh.Digest != runs[0].Shard.Digest || sh.Config != runs[0].Shard.Config {
			t.Fatalf("shard %d records %+v", i, sh)
		}
		if r.Env == nil || r.Env.Hostname == "" {
			t.Errorf("shard %d: no hostname in run.json's env", i)
		}
		all = append(all, sh.Benchmarks...)
		for _, b := range r.Benchmarks {
			top, _, _ := strings.Cut(b.Name, "/")
			if !slices.Contains(sh.Benchmarks, b.Pkg+".Benchmark"+top) {
				t.Errorf("shard %d measured %s, which is not its own", i, b.Key())
			}
		}
	}
	slices.Sort(all)
	if len(all) != 12 || len(slices.Compact(slices.Clone(all))) != 12 {
		t.Errorf("the shards hold %d benchmarks (%d distinct), want 12 once each: %v", len(all), len(slices.Compact(slices.Clone(all))), all)
	}
	// Merged: the shards' changes, benchmark by benchmark.
	m, err := mergeShards(outs, runs)
	if err != nil {
		t.Fatal(err)
	}
	opts := analysis.DefaultOptions()
	rep, _ := analysis.Analyze(m.run, opts)
	got := timeChanges(rep)
	if len(got) != 16 {
		t.Errorf("merged report has %d rows, want 16", len(got))
	}
	for _, r := range runs {
		srep, _ := analysis.Analyze(r, opts)
		for k, c := range timeChanges(srep) {
			if g := got[k]; g == nil || g.Estimate != c.Estimate || g.Lo != c.Lo || g.Hi != c.Hi || g.P != c.P {
				t.Errorf("%s: merged %+v, shard %+v", k, g, c)
			}
		}
	}
	if !testing.Short() {
		// --plan: calibration only, the rounds in words.
		stdout, stderr, code := rigorIn(t, dir, "ab", "--old", "HEAD~1", "--new", "HEAD", "--plan", "--time", "30s", "--no-check", "./...")
		if code != 0 || !strings.Contains(stdout, "Plan for 16 benchmarks at --time 30s") || !strings.Contains(stdout, "so each benchmark would get about") {
			t.Errorf("--plan: exit %d\n%s\n%s", code, stdout, stderr)
		}
	}
	if _, stderr, code := rigorIn(t, "", "merge", outs[0], outs[1]); code != 0 {
		t.Errorf("merge: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := rigorIn(t, "", "merge", outs[1]); code != exitGateFail || !strings.Contains(stderr, "rigor: gate: shard 0/2 is missing") {
		t.Errorf("merge without shard 0: exit %d, want 1 naming it\n%s", code, stderr)
	}
}

// TestShardFingerprint: shards of one suite share every flag but those
// each machine may set for itself.
func TestShardFingerprint(t *testing.T) {
	fingerprint := func(args ...string) (string, map[string]string) {
		t.Helper()
		cmd := newABCmd(stdio{})
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		var o shardFlags
		o.parsed(cmd, cmd.Flags().Args(), nil)
		return o.fingerprint, o.options
	}
	base, opts := fingerprint("--shard", "0/4", "./...")
	if opts["correction"] != "holm" || opts["alpha"] != "0.05" || opts["noise"] != "1" {
		t.Errorf("options %v", opts)
	}
	for _, same := range [][]string{
		{"--shard", "3/4", "./..."},
		{"--shard", "0/4", "--time", "5m", "--out", "x", "--format", "json", "--max-regression", "5", "./..."},
		{"--shard", "0/4", "--shard-costs", "/artifacts/costs", "./..."},
	} {
		if f, _ := fingerprint(same...); f != base {
			t.Errorf("%v: fingerprint differs, but shards may differ in these", same)
		}
	}
	for _, other := range [][]string{
		{"--shard", "0/4", "--noise", "2", "./..."},
		{"--shard", "0/4", "--old", "main", "./..."},
		{"--shard", "0/4", "--bench", "Foo", "./..."},
		{"--shard", "0/4", "./pkg"},
	} {
		if f, _ := fingerprint(other...); f == base {
			t.Errorf("%v: same fingerprint, but shards must share these", other)
		}
	}
}

// TestShardFlagErrors: bad --shard values are one line and exit 2,
// before anything is built.
func TestShardFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		words string
	}{
		{[]string{"ab", "--shard", "4/4"}, "INDEX from 0 to COUNT-1"},
		{[]string{"ab", "--shard", "1"}, "INDEX/COUNT"},
		{[]string{"ab", "--shard", "-1/2"}, "INDEX/COUNT"},
		{[]string{"ab", "--shard", "0/0"}, "INDEX/COUNT"},
		{[]string{"run", "--shard", "a/b"}, "INDEX/COUNT"},
		{[]string{"ab", "--shard-costs", "x"}, "give --shard too"},
		{[]string{"ab", "--shard", "0/2", "--shard-costs", "/nonexistent"}, "--shard-costs /nonexistent"},
	} {
		stdout, stderr, code := rigorIn(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.words) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q\n%s", tc.args, code, stderr, tc.words, stdout)
		}
	}
}
