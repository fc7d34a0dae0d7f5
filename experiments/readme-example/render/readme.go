package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// readme is what the example's README is written from.
type readme struct {
	n                                       string // the count benchstat's passes had in rigor's time
	author                                  []authorRow
	rigor                                   []rigorRow
	same, ten                               map[string][2]string
	msg, machine, rigorTxt, sameTxt, tenTxt string
}

// cell is a benchstat row as the side-by-side table shows it.
func cell(m map[string][2]string, name string) string {
	r, ok := m[name]
	if !ok {
		return "(no row)"
	}
	return fmt.Sprintf("%s (%s)", r[0], r[1])
}

// machineLine returns the line of machine.txt that starts with prefix,
// without it.
func (r readme) machineLine(prefix string) string {
	for line := range strings.Lines(r.machine) {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			return strings.TrimSpace(s)
		}
	}
	return "?"
}

func writeReadme(b *strings.Builder, r readme) {
	authorOf := map[string]authorRow{}
	for _, a := range r.author {
		authorOf[a.name] = a
	}
	// Tally: the author's changes beyond ±1%, and every other benchmark.
	var changed, others int
	var rigorFound, sameFound, tenFound int
	var rigorWrong, sameWrong, tenWrong []string
	// Opposite: a regression called on a change the author measured as
	// an improvement.
	var rigorOpposite, sameOpposite, tenOpposite []string
	var rigorUnchanged, rigorInconclusive int
	// bounds are, per inconclusive benchmark, the largest change its
	// interval leaves possible, in percent.
	var bounds []float64
	for _, row := range r.rigor {
		a, ok := authorOf[row.Name]
		if ok && authorChanged(a.delta) {
			changed++
			if row.Verdict == "improved" {
				rigorFound++
			}
			if row.Verdict == "regressed" {
				rigorOpposite = append(rigorOpposite, row.Name)
			}
			if d := r.same[row.Name][0]; found(d) {
				sameFound++
			} else if strings.HasPrefix(d, "+") {
				sameOpposite = append(sameOpposite, row.Name+" "+d)
			}
			if d := r.ten[row.Name][0]; found(d) {
				tenFound++
			} else if strings.HasPrefix(d, "+") {
				tenOpposite = append(tenOpposite, row.Name+" "+d)
			}
			continue
		}
		others++
		switch row.Verdict {
		case "improved", "regressed":
			rigorWrong = append(rigorWrong, row.Name+" "+row.Verdict)
		case "unchanged":
			rigorUnchanged++
		case "inconclusive":
			rigorInconclusive++
			if len(row.Decisions) > 0 {
				d := row.Decisions[0]
				bounds = append(bounds, 100*max(math.Abs(d.Lo), math.Abs(d.Hi)))
			}
		}
		if d := r.same[row.Name][0]; d != "~" && d != "" {
			sameWrong = append(sameWrong, row.Name+" "+d)
		}
		if d := r.ten[row.Name][0]; d != "~" && d != "" {
			tenWrong = append(tenWrong, row.Name+" "+d)
		}
	}
	list := func(xs []string) string {
		if len(xs) == 0 {
			return "none"
		}
		return strings.Join(xs, ", ")
	}
	rigorTime := r.machineLine("rigor ab:")
	sameTime := r.machineLine("go test -count " + r.n + ", old then new:")
	tenTime := r.machineLine("go test -count 10, old then new:")
	first := func(s string) string { return strings.TrimSuffix(strings.Fields(s + " ?")[0], ";") }

	fmt.Fprintf(b, `# A real change: cespare/xxhash, "Allow Sum64String and (*Digest).WriteString to be inlined"

<!-- Written by experiments/readme-example/run.sh (render); do not edit by hand. -->

Commit [a7909af](https://github.com/cespare/xxhash/commit/a7909af24e080cb18e105af79be6915531147a86)
of github.com/cespare/xxhash (November 2020) reshapes `+"`Sum64String`"+` and
`+"`(*Digest).WriteString`"+` so that the compiler can inline them. Its author
published benchstat numbers in the commit message: Sum64String -25%% at 4 bytes
and -11%% at 100 bytes, DigestString -15%% and -10%%, nothing at 4 KB and
10 MB. The package has 16 benchmarks; the 8 of `+"`Sum64`"+` and
`+"`DigestBytes`"+` run code the commit does not touch.

Here that commit is measured three ways, one after the other, on a 2-core VM
shared with other work, as a CI runner or a developer's laptop is (a load
average of %s on its 2 CPUs before rigor's run; the rest under "The
machine" at the end):

1. `+"`rigor ab --old a7909af^ --new a7909af .`"+` at the default budget
   (`+"`--time 1m`"+`): %s, builds included;
2. benchstat's usual workflow in the same wall time: `+"`go test -bench . -count %s`"+`
   on the old commit, then on the new one, then `+"`benchstat old new`"+` (%s);
3. the same with `+"`-count 10`"+`, the count in benchstat's documentation
   (%s).

## Side by side

| benchmark | the author (2020) | rigor ab, 1m | benchstat, -count %s | benchstat, -count 10 |
|---|---|---|---|---|
`, first(r.machineLine("load before rigor ab:")), first(rigorTime), r.n, first(sameTime), first(tenTime), r.n)
	for _, row := range r.rigor {
		au := "not published; code untouched"
		if a, ok := authorOf[row.Name]; ok {
			au = fmt.Sprintf("%s (%s)", a.delta, a.p)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", row.Name, au, row, cell(r.same, row.Name), cell(r.ten, row.Name))
	}
	fmt.Fprintf(b, `
rigor's column is the verdict with the change of the clock that decided it
and its 95%% interval (CPU time where marked "(CPU)", wall time otherwise);
benchstat's is its delta ("~" when not significant) with its p-value and
sample counts.

- **The author's %d improvements beyond ±1%%**: rigor called %d of them `+"`improved`"+`
  and a regression on %s; benchstat at the same budget (-count %s) found %d and
  a regression on %s; benchstat at -count 10 found %d and a regression on %s.%s
- **The other %d benchmarks** (untouched by the commit, or changed by less
  than 1%% by the author's account): rigor said `+"`unchanged`"+` for %d and
  `+"`inconclusive`"+` for %d%s; it called a change on %s. benchstat at -count %s
  called a change on %s; at -count 10 on %s.

Today's compiler is not 2020's (this is Go 1.26; the author measured in
November 2020, when Go 1.15 was current, with GOMAXPROCS 12), and this
machine is not the author's, so where a verdict and the author disagree
the change may simply not be there any more: each tool's row says what it
measured here, and the author's column is the claim it is checked against.

What rigor adds is not a different median. Its rounds run the old and the
new test binaries back to back, in counterbalanced order, so round i of
each side saw the same machine and the comparison is paired: a burst of
load on a shared machine moves both sides of a round alike, where
benchstat's workflow measures all of old and then all of new, and a change
in the machine's load between the two passes reads as a change in the
code. Each side is also linked several times with random code layouts, the
rounds cycling through them, so the interval includes the few percent by
which the linker's placement of code alone can move a benchmark, where
benchstat compares one binary of each commit. Each row gets an interval for
the size of the change, not only a p-value; a change is `+"`improved`"+` or `+"`regressed`"+` only when that interval
clears the ±1%% noise band, `+"`unchanged`"+` when it lies inside it, and
`+"`inconclusive`"+`, with the reason, otherwise; and the exit status gates
CI (`+"`--max-regression 5`"+` exits 1 on a regression beyond 5%%).%s Within the
same minute, benchstat's workflow gets %s sample(s) per side.

## rigor ab, default budget

`+"```"+`
%s`+"```"+`

The same run in Markdown: [rigor.md](rigor.md); its samples: [run.json](run.json)
(`+"`rigor report run.json`"+` renders it again).

## benchstat, -count %s (the same wall time)

`+"```"+`
%s`+"```"+`

## benchstat, -count 10

`+"```"+`
%s`+"```"+`

## The author's numbers (the commit message)

`+"```"+`
%s`+"```"+`

## The machine

`+"```"+`
%s`+"```"+`

## Regenerate

From this repository's root, with a clone of xxhash (with network:
`+"`git clone https://github.com/cespare/xxhash /tmp/xxhash`"+`):

    experiments/readme-example/run.sh /tmp/xxhash

It clones it again into a temporary directory, builds rigor from this
checkout's HEAD and benchstat from the golang.org/x/perf version in go.mod,
runs the three measurements (about 15 minutes on this machine, most of it
the -count 10 passes) and rewrites this directory.
`, changed, rigorFound, list(rigorOpposite), r.n, sameFound, list(sameOpposite), tenFound, list(tenOpposite), tenWords(rigorFound, tenFound, len(tenWrong), tenTime),
		others, rigorUnchanged, rigorInconclusive, boundWords(bounds), list(rigorWrong), r.n, list(sameWrong), list(tenWrong),
		cpuWords(r.rigor), r.n, r.rigorTxt, r.n, r.sameTxt, r.tenTxt, strings.TrimSpace(r.msg)+"\n", r.machine)
}

// boundWords says how large a change the inconclusive rows' intervals
// leave possible: " (their intervals rule out changes beyond ±2.7% in
// median, ±12% at most)", or "" when there are none.
func boundWords(b []float64) string {
	if len(b) == 0 {
		return ""
	}
	slices.Sort(b)
	med := b[len(b)/2]
	if len(b)%2 == 0 {
		med = (b[len(b)/2-1] + b[len(b)/2]) / 2
	}
	return fmt.Sprintf(" (their 95%% intervals rule out changes beyond ±%.1f%% in median, ±%.1f%% at most)", med, b[len(b)-1])
}

// cpuWords says, when CPU time decided some of rigor's verdicts, why that
// matters on a busy machine; "" otherwise.
func cpuWords(rows []rigorRow) string {
	n := 0
	for _, r := range rows {
		if len(r.Decisions) > 0 && r.Decisions[0].Unit == "cpu-sec/op" {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" Here %d of rigor's %d verdicts rest on CPU time: those benchmarks only compute, on one thread, so rigor judged them by the CPU time they used, which waiting for a CPU does not inflate (its notes say why); go test's sec/op, which benchstat reads, is wall time.", n, len(rows))
}

// tenWords says how benchstat at -count 10 compares with rigor on the
// author's changes, in plain words.
func tenWords(rigorFound, tenFound, tenWrong int, tenTime string) string {
	t := strings.TrimSuffix(strings.Fields(tenTime + " ?")[0], ";")
	switch {
	case tenFound >= rigorFound && tenWrong == 0:
		return fmt.Sprintf(" With ten samples a side benchstat finds them too, in %s.", t)
	case tenFound >= rigorFound:
		return fmt.Sprintf(" With ten samples a side benchstat finds them too, in %s, but it also calls changes on %d benchmarks the commit does not touch (below).", t, tenWrong)
	}
	return ""
}
