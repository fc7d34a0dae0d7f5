package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/rigorbench/rigor/history"
)

// procsSuffix is the GOMAXPROCS suffix of a benchmark's full name.
var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

// bisectSuggestion returns the rigor bisect command that would find which
// commit between from and to made a change of s, when they are commits of
// this repository with others between them on the first-parent history
// (recorded commits that are adjacent need no search), and "" otherwise:
// for a series of a time metric of a package's benchmark only, since
// bisect searches time.
func bisectSuggestion(ctx context.Context, s *history.Series, from, to history.Point) string {
	if s.Pkg == "" || from.Commit == "" || to.Commit == "" || from.Commit == to.Commit ||
		(s.Unit != "sec/op" && s.Unit != "cpu-sec/op") {
		return ""
	}
	// The commits after from up to to: to's own, when it is from's child.
	out, err := gitOutput(ctx, ".", "rev-list", "--count", "--first-parent", "--ancestry-path", from.Commit+".."+to.Commit)
	n, cerr := strconv.Atoi(out)
	if err != nil || cerr != nil || n < 2 {
		return ""
	}
	name := procsSuffix.ReplaceAllString(s.Benchmark, "")
	return fmt.Sprintf("made by one of %d commits: rigor bisect --good %s --bad %s --bench '%s' %s",
		n, from.Commit[:min(12, len(from.Commit))], to.Commit[:min(12, len(to.Commit))], benchPattern(name), shellWord(s.Pkg))
}

// shellWord quotes s for a POSIX shell when it needs quoting.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
