package execbench

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
)

// A Param is a parameter of a scan: each of its values is substituted for
// {Name} in the commands (and in --prepare, --conclude, --setup and
// --cleanup), and each combination of the parameters' values is a
// benchmark of its own, measured on every command.
type Param struct {
	Name   string
	Values []string
}

// MaxBenchmarks bounds the combinations of parameter values: each is a
// benchmark run on every command in every round, at least MinRounds
// times, so a scan of a million values would never finish.
const MaxBenchmarks = 1000

// maxDigits bounds the numbers of a scan: its values are written with as
// many decimals as the longest has.
const maxDigits = 40

// decimal is a plain decimal number, as -P and -D take.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)

// ScanValues returns the values of a parameter scan from lo to hi in steps
// of step (hyperfine's -P NAME LO HI -D STEP; step "" is 1), written with
// as many decimals as the most precise of the three. The arithmetic is
// exact, so 0.3 0.7 by 0.2 gives 0.3, 0.5 and 0.7 and never 0.7000000001.
// An empty range, a step that is not positive and a range of more than
// MaxBenchmarks values are errors.
func ScanValues(lo, hi, step string) ([]string, error) {
	if step == "" {
		step = "1"
	}
	places := 0
	var r [3]*big.Rat
	for i, s := range []string{lo, hi, step} {
		if !decimal.MatchString(s) || len(s) > maxDigits {
			return nil, fmt.Errorf("%q is not a decimal number of at most %d characters", s, maxDigits)
		}
		if _, frac, ok := strings.Cut(s, "."); ok {
			places = max(places, len(frac))
		}
		r[i], _ = new(big.Rat).SetString(s)
	}
	from, to, by := r[0], r[1], r[2]
	if by.Sign() <= 0 {
		return nil, fmt.Errorf("step %s is not positive", step)
	}
	if to.Cmp(from) < 0 {
		return nil, fmt.Errorf("the range %s to %s is empty", lo, hi)
	}
	// n = floor((to - from) / by) + 1, checked before a value is made.
	q := new(big.Rat).Quo(new(big.Rat).Sub(to, from), by)
	n := new(big.Int).Quo(q.Num(), q.Denom())
	n.Add(n, big.NewInt(1))
	if n.Cmp(big.NewInt(MaxBenchmarks)) > 0 {
		return nil, fmt.Errorf("the range %s to %s in steps of %s has %s values, more than the %d a run can measure (each is a benchmark run on every command in every round)", lo, hi, step, n, MaxBenchmarks)
	}
	values := make([]string, 0, n.Int64())
	for v := new(big.Rat).Set(from); v.Cmp(to) <= 0; v.Add(v, by) {
		values = append(values, v.FloatString(places))
	}
	return values, nil
}

// ListValues returns the values of a comma-separated list (hyperfine's
// -L NAME A,B,C). An empty item is a value (-L opt ,-O2 compares no
// option with -O2); a repeated one is an error.
func ListValues(list string) ([]string, error) {
	values := strings.Split(list, ",")
	for i, v := range values {
		if slices.Contains(values[:i], v) {
			return nil, fmt.Errorf("value %q appears twice in %q", v, list)
		}
	}
	if len(values) > MaxBenchmarks {
		return nil, fmt.Errorf("%d values, more than the %d a run can measure", len(values), MaxBenchmarks)
	}
	return values, nil
}

// validParamName reports whether name can be a parameter's name: {name}
// must be unambiguous in a command line.
func validParamName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "{}= \t\n/,")
}

// hyperfineIndex returns where the combination at index i of
// combinations (the first parameter varying slowest) comes in hyperfine's
// order, in which the first parameter varies fastest.
func hyperfineIndex(params []Param, i int) int {
	h, mult := 0, 1
	idx := combinationIndices(params, i)
	for p := range params {
		h += idx[p] * mult
		mult *= max(len(params[p].Values), 1)
	}
	return h
}

// combinationIndices returns the index of each parameter's value in the
// combination at index i of combinations.
func combinationIndices(params []Param, i int) []int {
	idx := make([]int, len(params))
	for p := len(params) - 1; p >= 0; p-- {
		n := max(len(params[p].Values), 1)
		idx[p] = i % n
		i /= n
	}
	return idx
}

// A binding is one combination of parameter values: one benchmark.
type binding []paramValue

type paramValue struct{ name, value string }

// combinations returns every combination of the parameters' values, the
// first parameter varying slowest. No parameter gives one empty binding.
func combinations(params []Param) ([]binding, error) {
	total := 1
	for _, p := range params {
		total *= max(len(p.Values), 1)
		if total > MaxBenchmarks {
			return nil, fmt.Errorf("the parameters have more than %d combinations, the most a run can measure (each is a benchmark run on every command in every round)", MaxBenchmarks)
		}
	}
	out := []binding{nil}
	for _, p := range params {
		var next []binding
		for _, b := range out {
			for _, v := range p.Values {
				next = append(next, append(slices.Clone(b), paramValue{p.Name, v}))
			}
		}
		out = next
	}
	return out, nil
}

// substitute replaces every {name} in line with its value, in one pass
// as hyperfine does: a value that holds another parameter's {name} is
// not substituted again.
func (b binding) substitute(line string) string {
	if len(b) == 0 {
		return line
	}
	pairs := make([]string, 0, 2*len(b))
	for _, p := range b {
		pairs = append(pairs, "{"+p.name+"}", p.value)
	}
	return strings.NewReplacer(pairs...).Replace(line)
}

// name is the benchmark's name: "x=1/y=a", or DefaultName without
// parameters.
func (b binding) name() string {
	if len(b) == 0 {
		return DefaultName
	}
	parts := make([]string, len(b))
	for i, p := range b {
		parts[i] = p.name + "=" + p.value
	}
	return strings.Join(parts, "/")
}

// config is the benchmark's configuration: its parameter values.
func (b binding) config() map[string]string {
	if len(b) == 0 {
		return nil
	}
	m := make(map[string]string, len(b))
	for _, p := range b {
		m[p.name] = p.value
	}
	return m
}

// DefaultName names the one benchmark of a run without parameters.
const DefaultName = "exec"
