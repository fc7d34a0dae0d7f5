package experiment

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rigorbench/rigor/model"
)

// RunFile is the name of the rigor JSON file in a results directory.
const RunFile = "run.json"

// WriteRun writes run as dir/name through a temporary file and a rename,
// so that a reader, or a crash, never sees half a file. The file is
// readable by all (0644), as os.Create would make it.
func WriteRun(dir, name string, run *model.Run) error {
	return WriteFile(dir, name, run.WriteJSON)
}

// WriteFile writes dir/name, as WriteRun does, with what write writes.
func WriteFile(dir, name string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(0o644) // not CreateTemp's 0600
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
