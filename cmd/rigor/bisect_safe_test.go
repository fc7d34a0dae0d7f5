package main

import (
	"strings"
	"testing"
)

// TestBisectEscapesSubjects (issue 40 item 7): a commit subject that
// carries terminal escapes (set the title, clear the screen) reaches the
// terminal escaped in the "skipping" line and in the report. Before, the
// skipping line wrote it raw.
func TestBisectEscapesSubjects(t *testing.T) {
	dir, hashes := bisectRepo(t, []int{1}, -1)
	hashes = append(hashes, commitFiles(t, dir, "commit 1: broken", map[string]string{"go.mod": labGoMod + "require (\n"}))
	hashes = append(hashes, commitFiles(t, dir, "commit 2: mended", map[string]string{"go.mod": labGoMod, "lab/work.go": strings.Replace(workGo, "SCALE", "10", 1)}))
	run := bisectStateIn(t, hashes, &bisectSettings{Bench: "."})
	st, err := loadBisectState(run)
	if err != nil {
		t.Fatal(err)
	}
	// As git log gave it: the subjects are the commits' authors'.
	st.Commits[1].Subject = "broken \x1b]0;pwned\x07\x1b[2J\u202e"
	st.Commits[2].Subject = "mended \x1b[8m"
	if err := st.save(run); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := rigorIn(t, dir, append([]string{"bisect", "--resume", run}, bisectFlags...)...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("%s holds a raw escape: %q", name, out)
		}
	}
	if want := `skipping ` + hashes[1][:12] + ` (broken \x1b]0;pwned\x07\x1b[2J\u202e)`; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr)
	}
	if !strings.Contains(stdout, hashes[2][:12]) || !strings.Contains(stdout, `mended \x1b[8m`) {
		t.Errorf("stdout does not name commit 2, escaped:\n%s", stdout)
	}
}
