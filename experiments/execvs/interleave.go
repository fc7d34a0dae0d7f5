package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rigorbench/rigor/model"
)

// partInterleaved is part 4: the tools take turns in short chunks of a
// fixed number of runs, so that a drift in the machine between the tools'
// runs (the weakness of part 1, where each tool runs its whole block)
// falls on both alike; each tool's runs are pooled over the chunks.
const partInterleaved = "interleaved"

// chunkPair is a pair of part 4 with the runs each tool makes of every
// command in one chunk (about 1-5 s of work a chunk).
type chunkPair struct {
	name string
	cmds []string
	runs int
}

// interleaved is part 4: for every trial and pair, -chunks chunks; in
// chunk k rigor goes first when k mod 4 is 0 or 3 (ABBA), so a linear
// drift over a trial charges both tools the same.
func (e *experiment) interleaved(ctx context.Context, input string) error {
	pairs := []chunkPair{
		{"true", []string{"true"}, 100},
		{"sleep", []string{"sleep 0.01", "sleep 0.012"}, 50},
		{"gzip", []string{"gzip -1 -c " + input, "gzip -9 -c " + input}, 4},
	}
	for t := 1; t <= e.c.trials && ctx.Err() == nil; t++ {
		for _, p := range pairs {
			dir := filepath.Join(e.c.out, "part4", fmt.Sprintf("trial-%02d", t), p.name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			runs := p.runs
			if e.c.chunkRuns > 0 {
				runs = e.c.chunkRuns
			}
			for k := 0; k < e.c.chunks && ctx.Err() == nil; k++ {
				tools := []string{"rigor", "hyperfine"}
				if k%4 == 1 || k%4 == 2 {
					tools[0], tools[1] = tools[1], tools[0]
				}
				for _, tool := range tools {
					r := newRecord(partInterleaved, "", p.name, t)
					r.Chunk = k + 1
					base := filepath.Join(dir, fmt.Sprintf("chunk-%02d-%s", k+1, tool))
					if tool == "rigor" {
						e.runRigor(ctx, &r, base, []string{"--runs", strconv.Itoa(runs)}, p.cmds)
						if r.Error == "" {
							if err := r.rigorTimes(base + "-run/run.json"); err != nil {
								r.Error = err.Error()
							}
						}
					} else {
						e.runHyperfine(ctx, &r, base, runs, p.cmds)
					}
					if ctx.Err() != nil {
						return nil
					}
					if err := e.add(r); err != nil {
						return err
					}
				}
			}
			e.logf("part 4 trial %d/%d %s: %d chunks of %d runs", t, e.c.trials, p.name, e.c.chunks, runs)
		}
	}
	return nil
}

// rigorTimes reads the wall time of every run of every command from
// rigor's results directory (run.json) into r.Commands[i].Times.
func (r *record) rigorTimes(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	run, err := model.ReadJSON(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(run.Benchmarks) != 1 {
		return fmt.Errorf("%s: %d benchmarks, want 1", path, len(run.Benchmarks))
	}
	for _, m := range run.Benchmarks[0].Metrics {
		if m.Unit != "sec/op" {
			continue
		}
		for i := range r.Commands {
			r.Commands[i].Times = m.Values(r.Commands[i].Label)
			if len(r.Commands[i].Times) != r.Commands[i].N {
				return fmt.Errorf("%s: %d runs of %q, rigor's summary says %d", path, len(r.Commands[i].Times), r.Commands[i].Label, r.Commands[i].N)
			}
		}
		return nil
	}
	return fmt.Errorf("%s: no wall time (sec/op)", path)
}

// pooledRow is one command of one pair in one trial of part 4: each
// tool's runs pooled over its chunks.
type pooledRow struct {
	Pair    string
	Trial   int
	Command string
	// Chunks counts the chunks in which both tools ran.
	Chunks    int
	Rigor, HF cmdStat
	// RigorInHF: rigor's median lies in hyperfine's interval; HFInRigor:
	// hyperfine's median in rigor's.
	RigorInHF, HFInRigor bool
}

// pooledRows pools part 4's chunks by pair, trial and command. A chunk in
// which either tool failed is left out for both, so that the two pools
// cover the same stretches of time.
func pooledRows(recs []record) (rows []pooledRow, failed []record) {
	type key struct {
		pair  string
		trial int
	}
	type chunkKey struct {
		key
		chunk int
	}
	byChunk := map[chunkKey][2]*record{}
	var order []key
	seen := map[key]bool{}
	for i := range recs {
		r := &recs[i]
		if r.Part != partInterleaved {
			continue
		}
		k := key{r.Pair, r.Trial}
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
		ck := chunkKey{k, r.Chunk}
		both := byChunk[ck]
		switch r.Tool {
		case "rigor":
			both[0] = r
		case "hyperfine":
			both[1] = r
		}
		byChunk[ck] = both
		if r.Error != "" {
			failed = append(failed, *r)
		}
	}
	for _, k := range order {
		var pool [2][][]float64 // tool, command, times
		var cmds []string
		chunks := 0
		for ck, both := range byChunk {
			if ck.key != k || both[0] == nil || both[1] == nil || both[0].Error != "" || both[1].Error != "" {
				continue
			}
			if len(both[0].Commands) != len(both[1].Commands) {
				continue
			}
			if cmds == nil {
				for _, c := range both[0].Commands {
					cmds = append(cmds, c.Command)
				}
				pool[0], pool[1] = make([][]float64, len(cmds)), make([][]float64, len(cmds))
			}
			if len(both[0].Commands) != len(cmds) {
				continue
			}
			chunks++
			for tool := range 2 {
				for i, c := range both[tool].Commands {
					pool[tool][i] = append(pool[tool][i], c.Times...)
				}
			}
		}
		for i, cmd := range cmds {
			row := pooledRow{Pair: k.pair, Trial: k.trial, Command: cmd, Chunks: chunks,
				Rigor: pooledStat(cmd, pool[0][i]), HF: pooledStat(cmd, pool[1][i])}
			row.RigorInHF = within(float64(row.Rigor.Median), float64(row.HF.Lo), float64(row.HF.Hi))
			row.HFInRigor = within(float64(row.HF.Median), float64(row.Rigor.Lo), float64(row.Rigor.Hi))
			rows = append(rows, row)
		}
	}
	return rows, failed
}

// pooledStat is the median of times with its interval, by rigor's method
// for both tools.
func pooledStat(cmd string, times []float64) cmdStat {
	iv := medianCI(times)
	return cmdStat{Command: cmd, N: len(times), Median: num(medianOf(times)), Lo: num(iv.Lo), Hi: num(iv.Hi),
		Mean: num(nan), Stddev: num(nan), CPUPerRun: num(nan)}
}
