package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// Environment variables of the multi-process protocol: a parent sets them
// for the child processes it starts.
const (
	envChild    = "RIGOR_CHILD"     // the group the child measures
	envChildOut = "RIGOR_CHILD_OUT" // where the child writes its passes
)

// isChild reports whether this process is a child started to measure
// the named group.
func isChild(group string) bool {
	return os.Getenv(envChild) != "" && os.Getenv(envChild) == group
}

// writeChild writes a child's passes for its parent.
func writeChild(passes []*model.Run) error {
	path := os.Getenv(envChildOut)
	if path == "" {
		return fmt.Errorf("%s is set but %s is not", envChild, envChildOut)
	}
	data, err := json.Marshal(passes)
	if err != nil {
		return fmt.Errorf("writing passes for the parent process: %w", err)
	}
	return os.WriteFile(path, data, 0o600)
}

// spawn re-executes this program to measure the named group in a fresh
// process, and returns the child's passes.
func spawn(ctx context.Context, group string, args []string, index int) ([]*model.Run, error) {
	dir, err := os.MkdirTemp("", "rigor-child-")
	if err != nil {
		return nil, fmt.Errorf("starting process %d: %w", index+1, err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "passes.json")
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), envChild+"="+group, envChildOut+"="+out)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("process %d of group %q: %w: %s", index+1, group, err, words.Tail(buf.String(), 10))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("process %d of group %q wrote no results (does it run the group?): %s", index+1, group, words.Tail(buf.String(), 10))
	}
	var runs []*model.Run
	if err := json.Unmarshal(data, &runs); err != nil || len(runs) == 0 {
		return nil, fmt.Errorf("process %d of group %q: reading its results: %v", index+1, group, err)
	}
	for _, r := range runs {
		r.Notes = append(r.Notes, model.Note{Kind: model.NoteProcess, Topic: "process", Source: source, Text: fmt.Sprintf("measured in process %d", index+1)})
	}
	return runs, nil
}
