// Command gen writes a git repository of generated benchmarks for
// experiments/shards/run.sh: HEAD~1 is the old revision, HEAD the new,
// which differs in the benchmarks -changes lists (see package suite).
//
//	go run ./experiments/shards/gen -n 200 -dir /tmp/shards
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rigorbench/rigor/experiments/shards/suite"
)

func main() {
	n := flag.Int("n", 200, "number of benchmarks")
	dir := flag.String("dir", "", "directory to create (must not exist)")
	changesFlag := flag.String("changes", "7:1.25,42:0.8,123:1.15,177:0.75", "benchmark:factor of work on the new revision, comma-separated")
	flag.Parse()
	if *dir == "" {
		log.Fatal("gen: -dir is required")
	}
	changes := map[int]float64{}
	for _, kv := range strings.Split(*changesFlag, ",") {
		k, v, ok := strings.Cut(kv, ":")
		i, err1 := strconv.Atoi(k)
		f, err2 := strconv.ParseFloat(v, 64)
		if !ok || err1 != nil || err2 != nil || i < 0 || i >= *n || f <= 0 {
			log.Fatalf("gen: -changes %q: want INDEX:FACTOR,...", kv)
		}
		changes[i] = f
	}
	if _, err := os.Stat(*dir); err == nil {
		log.Fatalf("gen: %s exists", *dir)
	}
	old, new := suite.Revisions(*n, changes)
	for i, files := range []map[string]string{old, new} {
		for name, content := range files {
			p := filepath.Join(*dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				log.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				log.Fatal(err)
			}
		}
		git(*dir, "init", "-q", "-b", "main")
		git(*dir, "add", "-A")
		git(*dir, "commit", "-q", "-m", fmt.Sprintf("revision %d", i+1))
	}
	fmt.Printf("%s: %d benchmarks; changed on HEAD: %s; B%03d changes by $%s percent\n", *dir, *n,
		strings.Join(suite.Changed(changes), ", "), suite.Offset, suite.OffsetEnv)
}

func git(dir string, args ...string) {
	cmd := exec.Command("git", append([]string{"-c", "user.name=gen", "-c", "user.email=gen@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		log.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
