package lint

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// NoReset reports expensive set-up before a b.N loop with no b.ResetTimer
// (or StopTimer/StartTimer around it) between the two. testing times the
// whole benchmark function and calls it once for each trial b.N, so the
// set-up's time divided by b.N is added to ns/op: the set-up's share of
// the run. That is 1% for 10 ms of set-up in go test's default 1 s run,
// and for 1 ms in one of rigor's 100 ms samples (which run the function
// once per sample with a fixed b.N). A b.Loop benchmark is not reported:
// b.Loop resets the timer when it starts.
//
// Set-up is expensive when it does I/O or runs processes (os.ReadFile,
// os.Open, io.ReadAll, exec.Command, net.Listen, time.Sleep, runtime.GC
// and the like), or a `for i := 0; i < K; i++` loop with K at least a
// million. Set-up after a StopTimer is not timed and not reported. The
// suggested fix inserts b.ResetTimer() before the loop.
var NoReset = &analysis.Analyzer{
	Name:     "noreset",
	Doc:      "report expensive set-up before a b.N loop without b.ResetTimer",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#NoReset",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runNoReset,
}

// slowFuncs are calls that make set-up expensive: I/O, processes, the
// network, sleeping.
var slowFuncs = map[string]bool{
	"os.ReadFile": true, "os.WriteFile": true, "os.Open": true, "os.OpenFile": true, "os.Create": true,
	"os.ReadDir": true, "os.MkdirTemp": true, "os.CreateTemp": true, "os.Stat": true,
	"io/ioutil.ReadFile": true, "io/ioutil.ReadAll": true, "io/ioutil.ReadDir": true, "io/ioutil.WriteFile": true,
	"io/ioutil.TempDir": true, "io/ioutil.TempFile": true, "io.ReadAll": true, "io.Copy": true,
	"path/filepath.Walk": true, "path/filepath.WalkDir": true, "path/filepath.Glob": true,
	"os/exec.Command": true, "os/exec.CommandContext": true,
	"net.Listen": true, "net.Dial": true, "net.DialTimeout": true, "net/http.Get": true,
	"net/http/httptest.NewServer": true, "time.Sleep": true, "runtime.GC": true,
}

func runNoReset(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	for _, f := range benchFuncs(pass, in) {
		// The first b.N loop (a range over b.N elements before it is
		// more likely to fill its input than to be the work).
		var l *timedLoop
		hasLoop := false
		for _, fl := range f.loops {
			hasLoop = hasLoop || fl.kind == loopLoop
			if l == nil && fl.kind == loopN {
				l = fl
			}
		}
		if l == nil || hasLoop {
			continue
		}
		// The set-up: what precedes the loop in the function.
		var last ast.Node
		var what string
		ast.Inspect(f.body, func(n ast.Node) bool {
			if n == nil || n.Pos() >= l.stmt.Pos() {
				return false
			}
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			if w := expensive(info, n, l); w != "" {
				last, what = n, w
				return false
			}
			return true
		})
		if last == nil {
			continue
		}
		// Set-up after a StopTimer that is not undone before it is not
		// timed.
		if s := lastCall(f.body, timerCall(info, "StopTimer"), last.Pos()); s != nil {
			if st := lastCall(f.body, timerCall(info, "StartTimer"), last.Pos()); st == nil || st.Pos() < s.Pos() {
				continue
			}
		}
		reset := false
		for _, c := range calls(f.body, func(c *ast.CallExpr) bool {
			return timerCall(info, "ResetTimer")(c) || timerCall(info, "StartTimer")(c)
		}) {
			if c.Pos() > last.End() && c.Pos() < l.stmt.Pos() {
				reset = true
			}
		}
		if reset {
			continue
		}
		bname := f.b.Name()
		indent := strings.Repeat("\t", pass.Fset.Position(l.stmt.Pos()).Column-1)
		pass.Report(analysis.Diagnostic{
			Pos: last.Pos(), End: last.End(),
			Message: fmt.Sprintf("set-up before the b.N loop (%s) is timed: it runs once per trial b.N and its time divided by b.N is added to ns/op "+
				"(1 ms is 1%% of a 100 ms rigor sample, 10 ms of go test's 1 s); call %s.ResetTimer() before the loop, or use %s.Loop()", what, bname, bname),
			SuggestedFixes: []analysis.SuggestedFix{{
				Message:   "call b.ResetTimer() before the loop",
				TextEdits: []analysis.TextEdit{{Pos: l.stmt.Pos(), End: l.stmt.Pos(), NewText: []byte(bname + ".ResetTimer()\n" + indent)}},
			}},
		})
	}
	return nil, nil
}

// expensive says what makes n expensive set-up, "" when nothing does.
func expensive(info *types.Info, n ast.Node, l *timedLoop) string {
	switch n := n.(type) {
	case *ast.CallExpr:
		if fn, ok := typeutil.Callee(info, n).(*types.Func); ok && fn.Pkg() != nil {
			name := fn.Pkg().Path() + "." + fn.Name()
			if fn.Signature().Recv() == nil && slowFuncs[name] {
				return fn.Pkg().Name() + "." + fn.Name()
			}
		}
	case *ast.ForStmt:
		if within(l.stmt.Pos(), n) {
			return "" // the timed loop is inside: a loop over cases
		}
		if k := tripCount(info, n); k >= minSetupLoop {
			return fmt.Sprintf("a loop of %d iterations", k)
		}
	case *ast.RangeStmt:
		if within(l.stmt.Pos(), n) {
			return ""
		}
		if tv := info.Types[n.X]; tv.Value != nil {
			if k, ok := constant.Int64Val(tv.Value); ok && k >= minSetupLoop {
				return fmt.Sprintf("a loop of %d iterations", k)
			}
		}
	}
	return ""
}

// minSetupLoop is the constant trip count from which a set-up loop is
// taken to be expensive: a million iterations of even a few instructions
// take a millisecond, 1% of one of rigor's 100 ms samples.
const minSetupLoop = 1_000_000

// tripCount returns the constant bound of `for i := 0; i < K; i++` (or
// i <= K), 0 for any other loop.
func tripCount(info *types.Info, f *ast.ForStmt) int64 {
	init, ok := f.Init.(*ast.AssignStmt)
	cond, ok2 := f.Cond.(*ast.BinaryExpr)
	post, ok3 := f.Post.(*ast.IncDecStmt)
	if !ok || !ok2 || !ok3 || len(init.Lhs) != 1 || (cond.Op != token.LSS && cond.Op != token.LEQ) ||
		types.ExprString(cond.X) != types.ExprString(init.Lhs[0]) || types.ExprString(post.X) != types.ExprString(init.Lhs[0]) {
		return 0
	}
	if tv := info.Types[cond.Y]; tv.Value != nil && tv.Value.Kind() == constant.Int {
		k, _ := constant.Int64Val(tv.Value)
		return k
	}
	return 0
}

// lastCall returns the last call in body before pos that match accepts.
func lastCall(body *ast.BlockStmt, match func(*ast.CallExpr) bool, pos token.Pos) *ast.CallExpr {
	var last *ast.CallExpr
	for _, c := range calls(body, match) {
		if c.Pos() < pos {
			last = c
		}
	}
	return last
}
