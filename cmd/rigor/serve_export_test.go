package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestServeExport: rigor serve --export writes the dashboard as static
// pages whose every link is a file of the export (a history without a
// server, for GitHub Pages or an artifact): the index, both series and the
// runs their charts link to; names from the input stay escaped.
func TestServeExport(t *testing.T) {
	_, loc := seedStore(t, 12)
	dir := filepath.Join(t.TempDir(), "pages")
	stdout, stderr, code := rigorIn(t, t.TempDir(), "serve", "--store", loc, "--export", dir)
	if code != exitOK || !strings.Contains(stdout, "pages of") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	entries, _ := os.ReadDir(dir)
	var series, runs int
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), "series-"):
			series++
		case strings.HasPrefix(e.Name(), "run-"):
			runs++
		}
	}
	if series != 2 || runs != 12 {
		t.Errorf("%d series pages and %d run pages, want 2 and 12", series, runs)
	}
	link := regexp.MustCompile(`href="([^"]*)"`)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		if strings.Contains(page, "<script>alert(1)</script>") {
			t.Errorf("%s: the hostile name is not escaped", e.Name())
		}
		for _, m := range link.FindAllStringSubmatch(page, -1) {
			if strings.HasPrefix(m[1], "#") {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, m[1])); err != nil {
				t.Errorf("%s links to %q, which is not in the export", e.Name(), m[1])
			}
		}
	}
	index, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if strings.Contains(string(index), "<form") || !strings.Contains(string(index), "static export") {
		t.Errorf("index.html keeps the filter form or does not say it is static")
	}
}
