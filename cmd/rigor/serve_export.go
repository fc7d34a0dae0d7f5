package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// hrefAttr finds the links of a dashboard page.
var hrefAttr = regexp.MustCompile(`href="([^"]*)"`)

// filterForm is the index page's filter, which static pages cannot run.
var filterForm = regexp.MustCompile(`(?s)<form method="get" action="/">.*?</form>`)

// charsetMeta opens every page's head; an exported page's
// Content-Security-Policy follows it (cspMeta: pageCSP, whose every
// directive a meta tag may carry).
const (
	charsetMeta = `<meta charset="utf-8">`
	cspMeta     = `<meta http-equiv="Content-Security-Policy" content="` + pageCSP + `">`
)

// exportPages writes the dashboard's pages, as rigor serve would serve
// them, to dir as static files: index.html, one series-HASH.html per
// series and one run-ID.html per run a page links to, every link
// rewritten to the file's name, so that the directory can be published
// as it is (GitHub Pages, an Actions artifact) with no server and no
// database. The filter form is left out: the pages show every series. It
// returns the number of pages written.
func exportPages(ctx context.Context, d *dashboard, dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	h := d.handler()
	files := map[string]string{"/": "index.html"}
	queue := []string{"/"}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			return 0, fmt.Errorf("exporting %s: %d %s", path, rec.Code, strings.TrimSpace(rec.Body.String()))
		}
		page := rec.Body.String()
		if path == "/" {
			page = filterForm.ReplaceAllString(page, "<p>A static export of rigor serve: every series, no filter.</p>")
		}
		page = hrefAttr.ReplaceAllStringFunc(page, func(attr string) string {
			link := html.UnescapeString(hrefAttr.FindStringSubmatch(attr)[1])
			name, ok := files[link]
			if !ok {
				if name = pageFile(link); name == "" {
					return attr // not a page of the dashboard
				}
				files[link] = name
				if name != "index.html" { // a filtered index is the index
					queue = append(queue, link)
				}
			}
			return `href="` + html.EscapeString(name) + `"`
		})
		// A static host sends no Content-Security-Policy: the page
		// carries it.
		if !strings.Contains(page, charsetMeta) {
			return 0, fmt.Errorf("exporting %s: the page has no %s to put its Content-Security-Policy after", path, charsetMeta)
		}
		page = strings.Replace(page, charsetMeta, charsetMeta+cspMeta, 1)
		if err := os.WriteFile(filepath.Join(dir, files[path]), []byte(page), 0o644); err != nil {
			return 0, err
		}
	}
	written := map[string]bool{}
	for _, name := range files {
		written[name] = true
	}
	return len(written), nil
}

// pageFile names the static file of a dashboard link: "/" and its
// filtered forms are the index, a series its query's hash, a run its ID;
// "" for a link that is no page of the dashboard.
func pageFile(link string) string {
	switch {
	case link == "/" || strings.HasPrefix(link, "/?"):
		return "index.html"
	case strings.HasPrefix(link, "/series?"):
		sum := sha256.Sum256([]byte(link))
		return "series-" + hex.EncodeToString(sum[:8]) + ".html"
	case strings.HasPrefix(link, "/run/") && !strings.ContainsAny(link[len("/run/"):], "/?.\\"):
		return "run-" + link[len("/run/"):] + ".html"
	}
	return ""
}
