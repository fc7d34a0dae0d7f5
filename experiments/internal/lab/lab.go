// Package lab holds what the experiments' programs share: finding the
// rigor repository they measure and making their output directory.
package lab

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Module is rigor's module path.
const Module = "github.com/rigorbench/rigor"

// FindRepo returns the root of the rigor module above the current
// directory.
func FindRepo() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && ModulePath(data) == Module {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the %s repository; run from it or pass -repo", Module)
		}
		dir = parent
	}
}

// ModulePath returns the module line's path of a go.mod.
func ModulePath(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// EmptyDir makes dir if it does not exist and refuses one with files in
// it, so that two runs' results never mix.
func EmptyDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		return fmt.Errorf("-out %s is not empty", dir)
	}
	return nil
}
