package gotest

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// MaxShards bounds a Shard's Count: a suite split more finely than this
// leaves most shards a benchmark or none.
const MaxShards = 1000

// A Shard selects one part of a suite split across machines: the
// top-level benchmarks that Assign gives Index of Count shards. Every
// machine given the same list of benchmarks and the same Costs computes
// the same split, so that the shards together run every benchmark once.
type Shard struct {
	// Index is from 0 to Count-1.
	Index, Count int
	// Costs, when set, are the benchmarks' costs (seconds per round, by
	// key, as Costs reads them from an earlier run) that the split is
	// balanced by; a benchmark without a cost is placed by hashing. Each
	// machine must be given the same costs (a file every shard reads),
	// never its own calibration's: machines that split by different
	// costs would lose some benchmarks and run others twice.
	Costs map[string]float64
	// Config is recorded in the run (model.Shard.Config): a hash of the
	// settings shards of one suite must share.
	Config string
	// Options are recorded in the run (model.Shard.Options).
	Options map[string]string
}

// ParseShard parses INDEX/COUNT, INDEX from 0 to COUNT-1 and COUNT from
// 1 to MaxShards: "0/4" to "3/4".
func ParseShard(s string) (index, count int, err error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || strings.HasPrefix(i, "+") || strings.HasPrefix(n, "+") ||
		count < 1 || count > MaxShards || index < 0 || index >= count {
		return 0, 0, fmt.Errorf("shard %q: want INDEX/COUNT with INDEX from 0 to COUNT-1 (0/4 to 3/4), COUNT at most %d", s, MaxShards)
	}
	return index, count, nil
}

// String is INDEX/COUNT.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Split rules, as model.Shard.Split records them.
const (
	SplitHash  = "hash"
	SplitCosts = "costs"
)

// Assign splits keys (top-level benchmarks, "pkg.BenchmarkName", in any
// order, repeats ignored) into count shards and returns each key's
// shard. It depends on nothing but its arguments, so every machine
// computes the same split.
//
// Without costs, each key goes to the shard that ranks highest for it
// by rendezvous (highest random weight) hashing: SHA-256 of the key and
// the shard's index. Adding a key moves no other, and removing one
// moves none; the shards hold about len(keys)/count benchmarks each,
// binomially spread (a standard deviation of sqrt(n(1/count)(1-1/count))).
//
// With costs, the keys that have one are dealt out first, most costly
// first (ties by key), each to the shard with the least cost so far
// (ties to the lowest index): the longest-processing-time rule, within
// 4/3 of the best possible balance. Keys without a cost are then placed
// by hashing, as above, so that a benchmark added since the costs were
// measured moves no other.
func Assign(keys []string, count int, costs map[string]float64) map[string]int {
	out := make(map[string]int, len(keys))
	var known []string
	for _, k := range keys {
		if _, dup := out[k]; dup {
			continue
		}
		out[k] = -1
		if c, ok := costs[k]; ok && c >= 0 && !math.IsInf(c, 0) && !math.IsNaN(c) {
			known = append(known, k)
		}
	}
	slices.SortFunc(known, func(a, b string) int {
		return cmp.Or(cmp.Compare(costs[b], costs[a]), strings.Compare(a, b))
	})
	load := make([]float64, count)
	for _, k := range known {
		best := 0
		for i := 1; i < count; i++ {
			if load[i] < load[best] {
				best = i
			}
		}
		out[k] = best
		load[best] += costs[k]
	}
	for k, i := range out {
		if i < 0 {
			out[k] = rendezvous(k, count)
		}
	}
	return out
}

// rendezvous is the shard of count that ranks highest for key.
func rendezvous(key string, count int) int {
	best, bestScore := 0, uint64(0)
	for i := range count {
		h := sha256.New()
		h.Write([]byte(key))
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(i)))
		score := binary.BigEndian.Uint64(h.Sum(nil))
		if i == 0 || score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// KeysDigest is the SHA-256, in hex, of keys sorted, one per line: what
// every shard of one suite records (model.Shard.Digest).
func KeysDigest(keys []string) string {
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	h := sha256.New()
	for _, k := range sorted {
		h.Write([]byte(k))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CostsDigest is the SHA-256, in hex, of costs: key and cost, sorted by
// key.
func CostsDigest(costs map[string]float64) string {
	keys := make([]string, 0, len(costs))
	for k := range costs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s %g\n", k, costs[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// topLevel is the key of the top-level benchmark that a benchmark of
// package pkg named name (without "Benchmark", sub-benchmarks and
// GOMAXPROCS suffix included or not) belongs to: "pkg.BenchmarkName".
func topLevel(pkg, name string) string {
	top, _, _ := strings.Cut(name, "/")
	return pkg + ".Benchmark" + top
}

// ShardCosts returns, from earlier runs (the run.json of a run or of
// every shard of one), what one round of each top-level benchmark cost:
// by key ("pkg.BenchmarkName"), the sum over its rows and sides of the
// median sample's wall time (sec/op times iterations), in seconds. A
// benchmark in several runs keeps the largest. Assign balances shards by
// these costs; every machine must read the same runs.
func ShardCosts(runs []*model.Run) map[string]float64 {
	costs := map[string]float64{}
	for _, r := range runs {
		per := map[string]float64{}
		for _, b := range r.Benchmarks {
			m := b.Metric(analysis.WallUnit)
			if m == nil {
				continue
			}
			bySide := map[string][]float64{}
			for _, s := range m.Samples {
				bySide[s.Side] = append(bySide[s.Side], s.Value*float64(s.Iters))
			}
			k := topLevel(b.Pkg, b.Name)
			for _, v := range bySide {
				per[k] += stats.Median(v)
			}
		}
		for k, c := range per {
			costs[k] = max(costs[k], c)
		}
	}
	return costs
}

// splitShard keeps, of the benchmarks found (keys, "pkg.BenchmarkName",
// the top-level benchmarks the filter selected on any side), those the
// shard holds, and records the shard in the run. It returns the keys the
// shard holds.
func (s *session) splitShard(keys []string) map[string]bool {
	sh := s.cfg.Shard
	assigned := Assign(keys, sh.Count, sh.Costs)
	mine := map[string]bool{}
	rec := &model.Shard{Index: sh.Index, Count: sh.Count, Split: SplitHash, Selected: len(assigned),
		Digest: KeysDigest(keys), Benchmarks: []string{}, Config: sh.Config, Options: sh.Options}
	if len(sh.Costs) > 0 {
		rec.Split, rec.CostsDigest = SplitCosts, CostsDigest(sh.Costs)
	}
	for k, i := range assigned {
		if i == sh.Index {
			mine[k] = true
			rec.Benchmarks = append(rec.Benchmarks, k)
		}
	}
	slices.Sort(rec.Benchmarks)
	s.run.Shard = rec
	// Benchmarks of one side only, marked missing while listing, belong
	// to their shard too.
	s.run.Benchmarks = slices.DeleteFunc(s.run.Benchmarks, func(b model.Benchmark) bool {
		return !mine[topLevel(b.Pkg, b.Name)]
	})
	return mine
}

// A todo is a top-level benchmark calibration runs: its package, name
// ("BenchmarkX") and -test.bench pattern.
type todo struct{ pkg, name, pattern string }

// shardWork returns the part of work that the shard holds, with every
// benchmark the filter selects on any side counted in the suite.
func (s *session) shardWork(work []todo) []todo {
	keys := make([]string, 0, len(work)+len(s.run.Benchmarks))
	for _, w := range work {
		keys = append(keys, w.pkg+"."+w.name)
	}
	for _, b := range s.run.Benchmarks {
		keys = append(keys, topLevel(b.Pkg, b.Name))
	}
	mine := s.splitShard(keys)
	return slices.DeleteFunc(work, func(w todo) bool { return !mine[w.pkg+"."+w.name] })
}
