package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// docsDir holds one page per command, each its --help as the binary
// prints it.
const docsDir = "../../docs/commands"

// commandPages returns, by file name, the page of every command: its
// help, as `rigor CMD --help` prints it, and an index.
func commandPages(t *testing.T) map[string]string {
	t.Helper()
	root := newRootCmd(stdio{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &bytes.Buffer{}})
	pages := map[string]string{}
	var index strings.Builder
	index.WriteString("# rigor's commands\n\nEach page is the command's `--help`, generated from it by `RIGOR_WRITE_DOCS=1 go test -run TestCommandDocs ./cmd/rigor`\n(the test fails when a page and the help differ). The reference, with the reasons: [../reference.md](../reference.md).\n\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			path := strings.TrimPrefix(sub.CommandPath(), "rigor ")
			args := append(strings.Fields(path), "--help")
			var out, errb bytes.Buffer
			if code := execute(t.Context(), args, stdio{in: strings.NewReader(""), out: &out, err: &errb}); code != 0 {
				t.Fatalf("rigor %s --help: exit %d: %s", path, code, errb.String())
			}
			name := "rigor_" + strings.ReplaceAll(path, " ", "_") + ".md"
			pages[name] = fmt.Sprintf("# rigor %s\n\n%s\n\n```\n%s```\n", path, sub.Short, out.String())
			fmt.Fprintf(&index, "- [rigor %s](%s): %s\n", path, name, sub.Short)
			walk(sub)
		}
	}
	walk(root)
	pages["README.md"] = index.String()
	return pages
}

// TestCommandDocs: docs/commands holds every command's --help, word for
// word, and nothing else; RIGOR_WRITE_DOCS=1 rewrites it.
func TestCommandDocs(t *testing.T) {
	pages := commandPages(t)
	if os.Getenv("RIGOR_WRITE_DOCS") == "1" {
		os.RemoveAll(docsDir)
		if err := os.MkdirAll(docsDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, page := range pages {
			if err := os.WriteFile(filepath.Join(docsDir, name), []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for name, page := range pages {
		b, err := os.ReadFile(filepath.Join(docsDir, name))
		if err != nil || string(b) != page {
			t.Errorf("docs/commands/%s is not rigor's help (%v): RIGOR_WRITE_DOCS=1 go test -run TestCommandDocs ./cmd/rigor", name, err)
		}
	}
	entries, _ := os.ReadDir(docsDir)
	for _, e := range entries {
		if _, ok := pages[e.Name()]; !ok {
			t.Errorf("docs/commands/%s is no command's page", e.Name())
		}
	}
}

// TestReadmeCommands: the README's second command is the test command
// .ci/run runs, and its links lead to files that exist.
func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?m)^# 2\\. .*\n(.+)$").FindStringSubmatch(string(readme))
	if m == nil {
		t.Fatal("the README has no command under '# 2.'")
	}
	if test := strings.TrimSpace(m[1]); !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(test) + `$`).Match(ci) {
		t.Errorf("the README's test command %q is not a line of .ci/run", test)
	}
	if n := bytes.Count(readme, []byte("\n")); n > 150 {
		t.Errorf("the README has %d lines, more than 150", n)
	}
	for _, link := range regexp.MustCompile(`\]\(([A-Za-z][^)#\s]*)[^)]*\)`).FindAllStringSubmatch(string(readme), -1) {
		if strings.Contains(link[1], "://") {
			continue
		}
		if _, err := os.Stat(filepath.Join("../..", link[1])); err != nil {
			t.Errorf("the README links to %s: %v", link[1], err)
		}
	}
}
