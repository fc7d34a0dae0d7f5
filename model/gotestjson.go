package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"
)

// A testEvent is one event of `go test -json` (cmd/test2json) output.
type testEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// isTestJSONLine reports whether line is a test2json event.
func isTestJSONLine(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	var ev struct{ Action *string }
	return json.Unmarshal(line, &ev) == nil && ev.Action != nil
}

// readTestJSON reads `go test -json` output: the text of each package's
// output events, concatenated in order (test2json may split a line across
// events), is Go benchmark format.
func readTestJSON(data []byte, name, label string) (*Run, error) {
	type pkgOutput struct {
		pkg  string
		text bytes.Buffer
	}
	var pkgs []*pkgOutput
	byPkg := make(map[string]*pkgOutput)
	b := newSideBuilder(name, label)
	var failures []string

	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var ev testEvent
		if line[0] != '{' {
			b.warn(fmt.Sprintf("%s:%d: not a go test -json event; line skipped", name, lineNo))
			continue
		}
		if err := json.Unmarshal(line, &ev); err != nil {
			b.warn(fmt.Sprintf("%s:%d: not a go test -json event (%v); line skipped", name, lineNo, err))
			continue
		}
		switch ev.Action {
		case "output":
			p := byPkg[ev.Package]
			if p == nil {
				p = &pkgOutput{pkg: ev.Package}
				byPkg[ev.Package] = p
				pkgs = append(pkgs, p)
			}
			p.text.WriteString(ev.Output)
		case "fail":
			what := ev.Package
			if ev.Test != "" {
				what += " " + ev.Test
			}
			failures = append(failures, what)
		}
	}

	br := benchfmt.NewReader(nil, name)
	for _, p := range pkgs {
		src := name
		if p.pkg != "" {
			src = fmt.Sprintf("%s (output of %s)", name, oneLine(p.pkg))
		}
		if err := b.scan(br, &p.text, src, p.pkg); err != nil {
			return nil, err
		}
	}
	run, err := b.finish(br.Units())
	if err != nil {
		return nil, err
	}
	for _, f := range failures {
		run.Notes = append(run.Notes, Note{Kind: NoteFailure, Source: "model", Text: fmt.Sprintf("%s: go test reported a failure: %s", name, oneLine(f))})
	}
	return run, nil
}

// oneLine returns s, quoted if it would not print as one line of text.
func oneLine(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	return s
}
