package report

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// These tests load reports in a real browser: Debian's headless Chromium
// (.ci/run installs it). They are skipped with -short, and skipped with
// a reason when no Chromium is installed.

// chromium returns the path of a Chromium binary, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a headless browser; skipped with -short")
	}
	if p := os.Getenv("RIGOR_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (apt-get install chromium, or set RIGOR_CHROMIUM)")
	return ""
}

// runChromium loads file in headless Chromium with args added, and
// returns its standard output and the network log it wrote.
func runChromium(t *testing.T, bin, file string, args ...string) (stdout []byte, netlog string) {
	t.Helper()
	dir := t.TempDir()
	netlog = filepath.Join(dir, "netlog.json")
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--log-net-log=" + netlog,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+file)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(errb.String(), 2000))
	}
	return out.Bytes(), netlog
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// pageRequests returns the URLs the page loaded from file:// asked the
// network for, from Chromium's network log: requests whose network
// isolation key is the file:// site. (Chromium's own background
// requests, which the flags do not all silence, have other keys.)
func pageRequests(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL string `json:"url"`
				NIK string `json:"network_isolation_key"`
			} `json:"params"`
		} `json:"events"`
	}
	// Chromium may leave the closing of the events array out when it is
	// killed; it exits normally here, so the file is complete.
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatalf("reading the network log: %v", err)
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("the network log has no URL_REQUEST_START_JOB event type")
	}
	var urls []string
	for _, e := range log.Events {
		if e.Type == start && strings.Contains(e.Params.NIK, "file://") && !strings.HasPrefix(e.Params.URL, "file:") && !strings.HasPrefix(e.Params.URL, "data:") {
			urls = append(urls, e.Params.URL)
		}
	}
	return urls
}

// The detector is not vacuous: a page with an external image and style
// sheet shows both requests.
func TestBrowserDetectsRequests(t *testing.T) {
	bin := chromium(t)
	file := filepath.Join(t.TempDir(), "external.html")
	page := `<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png"><link rel="stylesheet" href="http://127.0.0.1:9/s.css"></body></html>`
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	_, netlog := runChromium(t, bin, file, "--dump-dom")
	if got := pageRequests(t, netlog); len(got) != 2 {
		t.Errorf("requests seen %q, want the image and the style sheet", got)
	}
}

// The HTML report renders in Chromium from disk: the screenshot is not
// blank and shows the charts' colours, the DOM has the titles and the
// hostile benchmark name as text, and the page asked the network for
// nothing.
func TestBrowserRendersReport(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(renderHTMLString(t, fxPaired(t))), 0o644); err != nil {
		t.Fatal(err)
	}

	dom, netlog := runChromium(t, bin, file, "--dump-dom")
	for _, want := range []string{
		"<title>rigor report: old vs new</title>", "<h2>Run</h2>", "What the system was doing",
		"Change against old", "Distribution of sec/op", "Per round: sec/op", "Paired differences per round",
		"&lt;script&gt;alert(1)&lt;/script&gt;",
	} {
		if !bytes.Contains(dom, []byte(want)) {
			t.Errorf("the DOM lacks %q", want)
		}
	}
	if bytes.Contains(bytes.ToLower(dom), []byte("<script")) {
		t.Error("the DOM holds a script element")
	}
	if got := pageRequests(t, netlog); len(got) > 0 {
		t.Errorf("the page made network requests: %q", got)
	}

	shot := filepath.Join(dir, "shot.png")
	if keep := os.Getenv("RIGOR_SCREENSHOT"); keep != "" {
		shot = keep
	}
	runChromium(t, bin, file, "--window-size=1280,2400", "--screenshot="+shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	nonWhite, blue, orange := 0, 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			if r < 235 || g < 235 || bl < 235 {
				nonWhite++
			}
			// The sides' colours, #0072B2 and #E69F00, within a margin
			// for anti-aliasing.
			if near8(r, 0x00) && near8(g, 0x72) && near8(bl, 0xB2) {
				blue++
			}
			if near8(r, 0xE6) && near8(g, 0x9F) && near8(bl, 0x00) {
				orange++
			}
		}
	}
	total := (b.Dx() / 2) * (b.Dy() / 2)
	if frac := float64(nonWhite) / float64(total); frac < 0.03 {
		t.Errorf("screenshot %dx%d is %.2f%% non-white: blank?", b.Dx(), b.Dy(), 100*frac)
	}
	if blue < 20 || orange < 20 {
		t.Errorf("screenshot shows %d pixels of the baseline's blue and %d of the new side's orange: charts missing?", blue, orange)
	}
}

func near8(v, want uint32) bool { return v+24 >= want && v <= want+24 }
