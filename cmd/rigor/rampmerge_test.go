package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rigorbench/rigor/model"
)

func TestRampShardUsageErrors(t *testing.T) {
	url := "http://127.0.0.1:1/"
	json := []string{"--format", "json"}
	for _, args := range [][]string{
		append([]string{"ramp", "--shard", "2/2", url}, json...),
		append([]string{"ramp", "--shard", "-1/2", url}, json...),
		append([]string{"ramp", "--shard", "0/0", url}, json...),
		append([]string{"ramp", "--shard", "1", url}, json...),
		append([]string{"ramp", "--shard", "a/b", url}, json...),
		{"ramp", "--shard", "0/2", url},
		append([]string{"ramp", "--shard", "0/4", "--ramp", "1..8x2", url}, json...),
		{"ramp", "--start-at", "2001-02-03T04:05:06Z", url},
		{"ramp", "--start-at", "in a minute", url},
		{"ramp", "merge"},
		{"ramp", "merge", "/nonexistent/shard.json"},
		{"ramp", "merge", "--format", "yaml", seedBase},
		{"ramp", "merge", seedBase},
		{"ramp", "merge", t.TempDir()},
	} {
		_, stderr, code := rigor(t, args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
		if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 || !strings.HasPrefix(stderr, "rigor: ") {
			t.Errorf("%q: stderr should be one line, got %q", args, stderr)
		}
	}
}

// runShardProcesses runs n rigor processes, one per shard of a ramp
// against url, at once, and returns the paths of their JSON results.
func runShardProcesses(t *testing.T, url string, n int, extra ...string) []string {
	t.Helper()
	bin := rigorBinary(t)
	dir := t.TempDir()
	paths := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		args := append([]string{"ramp", "-q", "--shard", fmt.Sprintf("%d/%d", i, n), "--concurrency", "2,4", "--warmup", "50ms", "--duration", "300ms", "--format", "json"}, extra...)
		cmd := exec.Command(bin, append(args, url)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Run(); err != nil || errb.Len() > 0 {
				errs[i] = fmt.Errorf("shard %d: %v: %s", i, err, errb.String())
				return
			}
			errs[i] = os.WriteFile(paths[i], out.Bytes(), 0o644)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// Two shards run as two rigor processes and merged by rigor ramp merge:
// each merged step holds the shards' requests and the latency of one
// histogram of both shards' requests.
func TestRampShardProcessesMerge(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	paths := runShardProcesses(t, srv.URL, 2)

	stdout, stderr, code := rigor(t, "ramp", "merge", "--format", "json", filepath.Dir(paths[0]))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	merged, err := model.ReadJSON(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	var shards []*model.Run
	for _, p := range paths {
		r, err := model.ReadFile(p, "")
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, r)
	}
	m := merged.Ramp
	if m == nil || m.MergedShards != 2 || len(m.Steps) != 2 || merged.Kind != model.KindRamp {
		t.Fatalf("merged result: %+v", merged)
	}
	for k, st := range m.Steps {
		ref := hdrhistogram.New(1, int64(time.Hour), 3)
		var requests int64
		for _, s := range shards {
			p := s.Ramp.Steps[k]
			requests += p.Requests
			h, err := hdrhistogram.Decode([]byte(p.Histograms.Latency))
			if err != nil {
				t.Fatal(err)
			}
			ref.Merge(h)
		}
		if st.Requests != requests || st.Concurrency != []int{2, 4}[k] {
			t.Errorf("step %d: %d requests at concurrency %d; the shards sent %d at %d", k+1, st.Requests, st.Concurrency, requests, []int{2, 4}[k])
		}
		if want := time.Duration(ref.ValueAtQuantile(99)); st.Latency.P99 != want || st.Latency.Count != ref.TotalCount() {
			t.Errorf("step %d: merged p99 %v of %d, the shards' histograms together %v of %d", k+1, st.Latency.P99, st.Latency.Count, want, ref.TotalCount())
		}
	}
	stdout, _, code = rigor(t, append([]string{"ramp", "merge"}, paths...)...)
	if code != exitOK || !strings.Contains(stdout, "merged from 2 generators") {
		t.Errorf("text: exit %d\n%s", code, stdout)
	}
	// rigor report renders the merged JSON as a ramp.
	out := filepath.Join(t.TempDir(), "merged.json")
	if err := os.WriteFile(out, []byte(mustJSON(t, merged)), 0o644); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code := rigor(t, "report", "--format", "md", out); code != exitOK || !strings.Contains(stdout, "merged from 2 generators") {
		t.Errorf("report: exit %d %s\n%s", code, stderr, stdout)
	}

	// What merge refuses, in one line and exit 2.
	other := filepath.Join(t.TempDir(), "other.json")
	edited := strings.Replace(readFile(t, paths[1]), shards[1].Ramp.Shard.Config, "0123456789abcdef", 1)
	if err := os.WriteFile(other, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{paths[0]}, "shard 1/2 is missing"},
		{[]string{paths[0], paths[0]}, "are both shard 0/2"},
		{[]string{paths[0], other}, "were not run with the same configuration: their request settings"},
		{[]string{paths[0], paths[1], out}, "already merged"},
	} {
		_, stderr, code := rigor(t, append([]string{"ramp", "merge"}, tt.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("merge %q: exit %d, stderr %q; want exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

func mustJSON(t *testing.T, r *model.Run) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
