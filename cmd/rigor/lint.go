package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/lint"
)

// lintOptions are the flags and arguments of rigor lint.
type lintOptions struct {
	Packages []string // package patterns, as go list takes them
	Format   string   // text or json
	Checks   []string // only these checks; all when empty
	Tests    bool     // include _test.go files (where benchmarks live)
}

// newLintCmd builds rigor lint; its RunE only calls runLint.
func newLintCmd(s stdio) *cobra.Command {
	opts := lintOptions{Format: "text", Tests: true}
	cmd := &cobra.Command{
		Use:   "lint [packages]",
		Short: "Find benchmarks whose numbers would be wrong, before running them",
		Long: `lint checks benchmark code for what makes its numbers wrong: work the
compiler deletes, b.N and b.Loop mixed, exits from a timed loop, timers stopped
and not restarted, toggled or reset inside the loop, untimed set-up left timed,
b.N used as a problem size, ignored or written, RunParallel bodies that ignore
pb.Next or share variables, timed work in a benchmark that calls b.Run, and
misuse of rigor's own API. Each finding names its check and says what goes
wrong.

lint exits 0 when nothing is found, 1 when something is, and 2 when the
packages cannot be loaded (a package that does not compile is shown with
the compiler's errors). The same checks run under go vet with
go vet -vettool=$(which rigor-lint), which also sees through calls into
every package (rigor lint through those into the module packages the
benchmarks import).`,
		Example: `  rigor lint ./...
  rigor lint --checks elided,loopexit ./bench
  rigor lint std`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Packages = args
			if code := runLint(cmd.Context(), opts, s.out, s.err); code != exitOK {
				return &exitError{code: code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", opts.Format, "output format: text or json")
	cmd.Flags().StringSliceVar(&opts.Checks, "checks", nil, "run only these checks (comma-separated names)")
	cmd.Flags().BoolVar(&opts.Tests, "tests", opts.Tests, "check _test.go files too")
	return cmd
}

// A lintFinding is one diagnostic, as rigor lint prints it.
type lintFinding struct {
	Check   string `json:"check"`
	Pos     string `json:"pos"`
	Message string `json:"message"`
}

// runLint loads the packages, runs the checks and prints the findings;
// it returns the exit code.
func runLint(ctx context.Context, opts lintOptions, stdout, stderr io.Writer) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "rigor: lint: "+format+"\n", args...)
		return exitUsage
	}
	if opts.Format != "text" && opts.Format != "json" {
		return fail("unknown --format %q (want text or json)", opts.Format)
	}
	prime, all := lint.RootAnalyzers()
	analyzers, err := selectChecks(all, opts.Checks)
	if err != nil {
		return fail("%v", err)
	}
	patterns := opts.Packages
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	start := time.Now()
	// Loading and type-checking allocate much that lives until the end:
	// collecting less often takes about a fifth less CPU for std, for
	// about 15% more memory. GOGC, when set, has the last word.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	loaded, err := lint.Load(ctx, patterns, opts.Tests)
	if err != nil {
		return fail("%v", err)
	}
	pkgs := loaded.Packages
	// First what is pure in every package, so that p_test knows p's,
	// and a benchmark those of the other packages it calls.
	if err := loaded.Prime(prime); err != nil {
		return fail("%v", oneLine(err))
	}
	graph, err := checker.Analyze(analyzers, pkgs, nil)
	if err != nil {
		return fail("%v", oneLine(err))
	}
	findings, err := collectFindings(graph)
	if err != nil {
		return fail("%v", oneLine(err))
	}
	if opts.Format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if findings == nil {
			findings = []lintFinding{}
		}
		if err := enc.Encode(findings); err != nil {
			return fail("%v", err)
		}
	} else {
		count := map[string]int{}
		for _, f := range findings {
			fmt.Fprintf(stdout, "%s: %s (%s)\n", f.Pos, f.Message, f.Check)
			count[f.Check]++
		}
		var per []string
		for c, n := range count {
			per = append(per, fmt.Sprintf("%s %d", c, n))
		}
		sort.Strings(per)
		summary := fmt.Sprintf("rigor lint: %s in %s with benchmarks or rigor groups, of %d (%.1fs)",
			words.Count(len(findings), "finding", "findings"), words.Count(len(loaded.Candidates), "package", "packages"), loaded.Listed, time.Since(start).Seconds())
		if len(per) > 0 {
			summary += ": " + strings.Join(per, ", ")
		}
		fmt.Fprintln(stdout, summary)
	}
	if len(findings) > 0 {
		return exitGateFail
	}
	return exitOK
}

// selectChecks returns the analyzers named in names, all when names is
// empty.
func selectChecks(all []*analysis.Analyzer, names []string) ([]*analysis.Analyzer, error) {
	if len(names) == 0 {
		return all, nil
	}
	byName := map[string]*analysis.Analyzer{}
	var known []string
	for _, a := range all {
		byName[a.Name] = a
		known = append(known, a.Name)
	}
	var out []*analysis.Analyzer
	for _, n := range names {
		a := byName[strings.TrimSpace(n)]
		if a == nil {
			return nil, fmt.Errorf("unknown check %q (checks: %s)", n, strings.Join(known, ", "))
		}
		out = append(out, a)
	}
	return out, nil
}

// collectFindings returns the diagnostics of the graph's root actions,
// sorted by position, without duplicates, with paths relative to the
// working directory where that is shorter.
func collectFindings(graph *checker.Graph) ([]lintFinding, error) {
	wd, _ := os.Getwd()
	seen := map[lintFinding]bool{}
	var out []lintFinding
	type key struct {
		file      string
		line, col int
	}
	keys := map[lintFinding]key{}
	for _, act := range graph.Roots {
		if act.Err != nil {
			return nil, fmt.Errorf("%s on %s: %w", act.Analyzer.Name, act.Package.PkgPath, act.Err)
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			file := pos.Filename
			if rel, err := filepath.Rel(wd, file); err == nil && len(rel) < len(file) && !strings.HasPrefix(rel, "..") {
				file = rel
			}
			f := lintFinding{Check: act.Analyzer.Name, Pos: fmt.Sprintf("%s:%d:%d", file, pos.Line, pos.Column), Message: d.Message}
			if seen[f] {
				continue
			}
			seen[f] = true
			keys[f] = key{file, pos.Line, pos.Column}
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := keys[out[i]], keys[out[j]]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.line != b.line {
			return a.line < b.line
		}
		if a.col != b.col {
			return a.col < b.col
		}
		return out[i].Check < out[j].Check
	})
	return out, nil
}

// oneLine keeps an error to its first line: go list errors can run to
// many.
func oneLine(err error) string {
	s := strings.TrimPrefix(strings.TrimSpace(err.Error()), "-: ")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
