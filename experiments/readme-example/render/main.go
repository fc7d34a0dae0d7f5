// Command render writes the README of docs/examples/xxhash-inline from
// the files experiments/readme-example/run.sh leaves in its directory:
// the commit message with the author's benchstat table (author.txt),
// rigor's report (rigor.txt, and verdicts.json: the verdicts of rigor
// report --format json), benchstat's tables at the same budget and at
// -count 10 (benchstat-count*.txt and .csv), the count the budget
// allowed (count.txt) and the machine's state (machine.txt).
//
//	go run ./experiments/readme-example/render docs/examples/xxhash-inline
package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: render DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(2)
	}
}

// An authorRow is one line of the author's time/op table.
type authorRow struct {
	name  string // without the -GOMAXPROCS suffix
	delta string // "-25.27%" or "~"
	p     string // "p=0.000 n=8+10"
}

// procs is the -GOMAXPROCS suffix of a benchmark name.
var procs = regexp.MustCompile(`-\d+$`)

var authorLine = regexp.MustCompile(`^\s*(\S+)\s+.*\s(~|[+-]\d+\.\d+%)\s+\((p=[^)]*)\)`)

// parseAuthor reads the first time/op table of a commit message written
// by the old benchstat.
func parseAuthor(msg string) ([]authorRow, error) {
	var rows []authorRow
	in := false
	for line := range strings.Lines(msg) {
		switch {
		case strings.Contains(line, "time/op"):
			in = true
		case in && strings.TrimSpace(line) == "":
			if len(rows) > 0 {
				return rows, nil
			}
		case in:
			if m := authorLine.FindStringSubmatch(line); m != nil {
				rows = append(rows, authorRow{procs.ReplaceAllString(m[1], ""), m[2], m[3]})
			}
		}
	}
	if len(rows) == 0 {
		return nil, errors.New("no time/op table in the commit message")
	}
	return rows, nil
}

// A rigorRow is one benchmark's verdict in rigor's JSON report.
type rigorRow struct {
	Name      string `json:"name"`
	Verdict   string `json:"verdict"`
	Decisions []struct {
		Unit     string  `json:"unit"`
		Estimate float64 `json:"estimate"`
		Lo       float64 `json:"lo"`
		Hi       float64 `json:"hi"`
	} `json:"decisions"`
}

func (r rigorRow) String() string {
	if len(r.Decisions) == 0 {
		return r.Verdict
	}
	d := r.Decisions[0]
	clock := ""
	if d.Unit == "cpu-sec/op" {
		clock = " (CPU)"
	}
	return fmt.Sprintf("%s %+.1f%% [%+.1f%%, %+.1f%%]%s", r.Verdict, 100*d.Estimate, 100*d.Lo, 100*d.Hi, clock)
}

func parseRigor(data []byte) ([]rigorRow, error) {
	var rep struct {
		Benchmarks []rigorRow `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, err
	}
	if len(rep.Benchmarks) == 0 {
		return nil, errors.New("no benchmarks in verdicts.json")
	}
	return rep.Benchmarks, nil
}

// parseBenchstat reads the sec/op table of benchstat -format csv: per
// benchmark (without the -GOMAXPROCS suffix), "vs base" and "P".
func parseBenchstat(data []byte) (map[string][2]string, error) {
	out := map[string][2]string{}
	var body bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if strings.Contains(sc.Text(), ":") && !strings.Contains(sc.Text(), ",") {
			continue // goos: linux and the like
		}
		body.WriteString(sc.Text() + "\n")
	}
	r := csv.NewReader(&body)
	r.FieldsPerRecord = -1
	table := ""
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) > 1 && rec[0] == "" && rec[1] != "" && !strings.HasSuffix(rec[1], ".txt") {
			table = rec[1] // the unit row
			continue
		}
		if table != "sec/op" || len(rec) < 7 || rec[0] == "" || rec[0] == "geomean" {
			continue
		}
		out[procs.ReplaceAllString(rec[0], "")] = [2]string{rec[5], rec[6]}
	}
	if len(out) == 0 {
		return nil, errors.New("no sec/op rows in benchstat's CSV")
	}
	return out, nil
}

// found reports whether a benchstat delta is a significant improvement.
func found(delta string) bool { return strings.HasPrefix(delta, "-") }

// authorChanged reports whether the author measured a change beyond the
// ±1% noise band rigor uses.
func authorChanged(delta string) bool {
	f, err := strconv.ParseFloat(strings.TrimSuffix(delta, "%"), 64)
	return err == nil && (f <= -1 || f >= 1)
}

func readFile(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	return string(b), err
}

func run(dir string) error {
	msg, err := readFile(dir, "author.txt")
	if err != nil {
		return err
	}
	author, err := parseAuthor(msg)
	if err != nil {
		return err
	}
	rj, err := os.ReadFile(filepath.Join(dir, "verdicts.json"))
	if err != nil {
		return err
	}
	rigor, err := parseRigor(rj)
	if err != nil {
		return err
	}
	countTxt, err := readFile(dir, "count.txt")
	if err != nil {
		return err
	}
	n := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(countTxt), "N="))
	same, err := readFile(dir, "benchstat-count"+n+".csv")
	if err != nil {
		return err
	}
	bsSame, err := parseBenchstat([]byte(same))
	if err != nil {
		return fmt.Errorf("benchstat-count%s.csv: %w", n, err)
	}
	ten, err := readFile(dir, "benchstat-count10.csv")
	if err != nil {
		return err
	}
	bsTen, err := parseBenchstat([]byte(ten))
	if err != nil {
		return fmt.Errorf("benchstat-count10.csv: %w", err)
	}
	texts := map[string]string{}
	for _, f := range []string{"machine.txt", "rigor.txt", "benchstat-count" + n + ".txt", "benchstat-count10.txt"} {
		if texts[f], err = readFile(dir, f); err != nil {
			return err
		}
	}
	var b strings.Builder
	writeReadme(&b, readme{
		n: n, author: author, rigor: rigor, same: bsSame, ten: bsTen, msg: msg,
		machine: texts["machine.txt"], rigorTxt: texts["rigor.txt"],
		sameTxt: texts["benchstat-count"+n+".txt"], tenTxt: texts["benchstat-count10.txt"],
	})
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(b.String()), 0o644)
}
