package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionWords: rigor version names the module version and, when the
// build recorded it, the commit (it printed "(devel)" and nothing else for
// every binary built from a clone).
func TestVersionWords(t *testing.T) {
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "(devel) " + runtime.Version()},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}}, "v0.3.0 go1.26.8"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "16a183d0123456789abcdef0123456789abcdef0"},
			{Key: "vcs.time", Value: "2026-12-01T18:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}}, "(devel) commit 16a183d01234+dirty (2026-12-01T18:00:00Z) go1.26.8"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201180000-16a183d01234"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "16a183d01234"}, {Key: "vcs.modified", Value: "false"},
		}}, "v0.0.0-20261201180000-16a183d01234 commit 16a183d01234 go1.26.8"},
	} {
		if got := versionWords(tc.bi); got != tc.want {
			t.Errorf("versionWords = %q, want %q", got, tc.want)
		}
	}
	stdout, _, code := rigorIn(t, "", "version")
	if code != 0 || !strings.HasPrefix(stdout, "rigor ") || !strings.Contains(stdout, runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("rigor version: exit %d, %q", code, stdout)
	}
}
