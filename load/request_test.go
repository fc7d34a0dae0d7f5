package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseHeader(t *testing.T) {
	for _, tt := range []struct {
		in          string
		name, value string
		ok          bool
	}{
		{"Content-Type: application/json", "Content-Type", "application/json", true},
		{"  X-A  :  b c  ", "X-A", "b c", true},
		{"X-Empty:", "X-Empty", "", true},
		{"Host: a:8080", "Host", "a:8080", true}, // the value keeps its colons
		{"no colon", "", "", false},
		{": value", "", "", false},
		{"   : value", "", "", false},
		{"", "", "", false},
	} {
		name, value, err := ParseHeader(tt.in)
		if (err == nil) != tt.ok || name != tt.name || value != tt.value {
			t.Errorf("ParseHeader(%q) = %q, %q, %v; want %q, %q, ok %v", tt.in, name, value, err, tt.name, tt.value, tt.ok)
		}
	}
}

// FuzzParseHeader: never a panic; a header parsed is a name without a
// colon or surrounding space and a trimmed value, which together are
// the input.
func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"Content-Type: text/plain", "a:b:c", ":", " x :", "no colon", "\x00:\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, value, err := ParseHeader(s)
		if err != nil {
			return
		}
		if name == "" || strings.Contains(name, ":") || name != strings.TrimSpace(name) || value != strings.TrimSpace(value) {
			t.Fatalf("ParseHeader(%q) = %q, %q", s, name, value)
		}
		if k, v, _ := strings.Cut(s, ":"); strings.TrimSpace(k) != name || strings.TrimSpace(v) != value {
			t.Fatalf("ParseHeader(%q) = %q, %q: not the input's parts", s, name, value)
		}
	})
}

// Issue 11 item 12: a body file is read up to its cap, and no further.
func TestReadBodyCap(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		size int64
		ok   bool
	}{
		{0, true},
		{MaxBody, true},
		{MaxBody + 1, false},
	} {
		path := filepath.Join(dir, "body")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, tt.size); err != nil { // sparse: no disk used
			t.Fatal(err)
		}
		b, err := ReadBody(path)
		if tt.ok && (err != nil || int64(len(b)) != tt.size) || !tt.ok && (err == nil || !strings.Contains(err.Error(), "64 MiB")) {
			t.Errorf("size %d: %d bytes, error %v", tt.size, len(b), err)
		}
	}
	if _, err := ReadBody(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file read without error")
	}
}
