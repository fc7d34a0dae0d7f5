package main

import "testing"

// TestPooledRows pools two chunks by hand and leaves out a third in
// which hyperfine failed, for both tools.
func TestPooledRows(t *testing.T) {
	chunk := func(tool string, k int, times []float64, failed bool) record {
		r := newRecord(partInterleaved, "", "p", 1)
		r.Tool, r.Chunk = tool, k
		if failed {
			r.Error = "boom"
			return r
		}
		r.Commands = []cmdStat{{Command: "c", Times: times}}
		return r
	}
	recs := []record{
		chunk("rigor", 1, []float64{1, 2, 3}, false),
		chunk("hyperfine", 1, []float64{1.5, 2.5, 3.5}, false),
		chunk("hyperfine", 2, []float64{4.5, 5.5, 6.5}, false),
		chunk("rigor", 2, []float64{4, 5, 6}, false),
		chunk("rigor", 3, []float64{100, 100, 100}, false),
		chunk("hyperfine", 3, nil, true),
	}
	rows, failed := pooledRows(recs)
	if len(rows) != 1 || len(failed) != 1 || failed[0].Chunk != 3 {
		t.Fatalf("rows %+v, failed %+v: want one row and chunk 3 failed", rows, failed)
	}
	r := rows[0]
	// Six values each: the median is the mean of the 3rd and 4th; at 95%
	// the binomial interval of the median of 6 is [x(1), x(6)]
	// (coverage 1 - 2/2^6 = 0.969; [x(2), x(5)] covers only 0.781).
	want := []struct {
		name           string
		got            cmdStat
		n              int
		median, lo, hi float64
	}{
		{"rigor", r.Rigor, 6, 3.5, 1, 6},
		{"hyperfine", r.HF, 6, 4, 1.5, 6.5},
	}
	for _, w := range want {
		if w.got.N != w.n || float64(w.got.Median) != w.median || float64(w.got.Lo) != w.lo || float64(w.got.Hi) != w.hi {
			t.Errorf("%s: n %d median %v CI [%v, %v], want n %d median %v CI [%v, %v]", w.name,
				w.got.N, w.got.Median, w.got.Lo, w.got.Hi, w.n, w.median, w.lo, w.hi)
		}
	}
	if r.Chunks != 2 || !r.RigorInHF || !r.HFInRigor {
		t.Errorf("chunks %d, rigor in hf %v, hf in rigor %v: want 2, true, true", r.Chunks, r.RigorInHF, r.HFInRigor)
	}
}

// TestRigorTimes reads every run's wall time from a results directory
// rigor wrote (testdata) and refuses a count that disagrees with the
// summary.
func TestRigorTimes(t *testing.T) {
	r := newRecord(partInterleaved, "", "sleep", 1)
	r.Commands = []cmdStat{{Command: "sleep 0.01", Label: "sleep 0.01", N: 3}, {Command: "sleep 0.012", Label: "sleep 0.012", N: 3}}
	if err := r.rigorTimes("testdata/rigor-exec-run3.json"); err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0.011429965, 0.011875379, 0.014217341}, {0.016817138, 0.013758123, 0.014593386}}
	for i, c := range r.Commands {
		if len(c.Times) != len(want[i]) {
			t.Fatalf("%s: times %v, want %v", c.Command, c.Times, want[i])
		}
		for j := range c.Times {
			if c.Times[j] != want[i][j] {
				t.Errorf("%s run %d: %v, want %v", c.Command, j+1, c.Times[j], want[i][j])
			}
		}
	}
	r.Commands[1].N = 4
	if err := r.rigorTimes("testdata/rigor-exec-run3.json"); err == nil {
		t.Error("4 runs claimed, 3 in the file: no error")
	}
}
