package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A Filter selects points. Empty fields select everything.
type Filter struct {
	Project string
	Branch  string
	// Machine is a machine fingerprint, or a prefix of one.
	Machine string
	Pkg     string
	// Name is a benchmark's name (without "Benchmark" and without the
	// GOMAXPROCS suffix).
	Name string
	Unit string
	// Dirty includes sides that are not a commit's: measured from a
	// working tree with uncommitted changes, or read from files that
	// named no commit (rigor compare's, an import without --commit).
	Dirty bool
}

// A Point is one side of one recorded run, for one benchmark and metric:
// its raw per-operation values and where they come from.
type Point struct {
	Project, Branch string
	Machine         string // fingerprint
	Pkg, Name       string
	Procs           int
	Unit            string
	Better          int

	RunID    int64
	RunUID   string
	Kind     string
	RunStart time.Time // zero when unknown: then RecordedAt orders it
	Recorded time.Time
	Source   string

	Side       string
	Commit     string // full hash, "" when unknown
	CommitTime time.Time
	Subject    string
	Dirty      bool

	Values []float64
}

// Time is when the point was measured, as far as is known: its commit's
// time orders history, then the run's start, then when it was recorded.
func (p *Point) Time() time.Time {
	if !p.CommitTime.IsZero() {
		return p.CommitTime
	}
	if !p.RunStart.IsZero() {
		return p.RunStart
	}
	return p.Recorded
}

// SeriesKey is what a series is: one benchmark's metric on one machine
// and branch.
func (p *Point) SeriesKey() string {
	return strings.Join([]string{p.Project, p.Branch, p.Machine, p.Pkg, p.Name, fmt.Sprint(p.Procs), p.Unit}, "\x00")
}

const fromWhere = `
	FROM metrics m
	JOIN runs r ON r.id = m.run_id
	JOIN projects p ON p.id = r.project_id
	JOIN machines ma ON ma.id = r.machine_id
	JOIN benchmarks b ON b.id = m.benchmark_id
	JOIN sides sd ON sd.run_id = r.id
	LEFT JOIN branches br ON br.id = r.branch_id
	LEFT JOIN commits c ON c.id = sd.commit_id`

func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, fmt.Sprintf(cond, len(args)))
	}
	if f.Project != "" {
		add("p.name = $%d", f.Project)
	}
	if f.Branch != "" {
		add("br.name = $%d", f.Branch)
	}
	if f.Machine != "" {
		add("ma.fingerprint LIKE $%d", strings.NewReplacer("%", "", "_", "").Replace(f.Machine)+"%")
	}
	if f.Pkg != "" {
		add("b.pkg = $%d", f.Pkg)
	}
	if f.Name != "" {
		add("b.name = $%d", f.Name)
	}
	if f.Unit != "" {
		add("m.unit = $%d", f.Unit)
	}
	if !f.Dirty {
		conds = append(conds, "NOT sd.dirty", "sd.commit_id IS NOT NULL")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

func (s *sqlStore) Points(ctx context.Context, f Filter) ([]Point, error) {
	where, args := f.where()
	rows, err := s.db.QueryContext(ctx, `SELECT m.id, sd.id, p.name, COALESCE(br.name, ''), ma.fingerprint,
		b.pkg, b.name, b.procs, m.unit, m.better, r.id, r.uid, r.kind, r.start_ns, r.recorded_ns, r.source,
		sd.label, sd.dirty, COALESCE(c.hash, ''), c.time_ns, COALESCE(c.subject, '')`+fromWhere+where, args...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	index := map[key]int{}
	var points []Point
	for rows.Next() {
		var k key
		var p Point
		var start, commitTime sql.NullInt64
		var recorded int64
		if err := rows.Scan(&k.metric, &k.side, &p.Project, &p.Branch, &p.Machine, &p.Pkg, &p.Name, &p.Procs,
			&p.Unit, &p.Better, &p.RunID, &p.RunUID, &p.Kind, &start, &recorded, &p.Source,
			&p.Side, &p.Dirty, &p.Commit, &commitTime, &p.Subject); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading %s: %w", s.location, err)
		}
		p.RunStart, p.CommitTime, p.Recorded = fromNanos(start), fromNanos(commitTime), time.Unix(0, recorded)
		index[k] = len(points)
		points = append(points, p)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	if len(points) == 0 {
		return nil, nil
	}
	// The samples, by metric, through the samples' primary key: a join
	// with the filter would leave the plan to the engine, and SQLite
	// without statistics scans every sample.
	metrics := make([]int64, 0, len(index))
	seen := map[int64]bool{}
	for k := range index {
		if !seen[k.metric] {
			seen[k.metric] = true
			metrics = append(metrics, k.metric)
		}
	}
	slices.Sort(metrics)
	for len(metrics) > 0 {
		batch := metrics[:min(len(metrics), 500)]
		metrics = metrics[len(batch):]
		var b strings.Builder
		args := make([]any, len(batch))
		for i, id := range batch {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "$%d", i+1)
			args[i] = id
		}
		if err := s.readSamples(ctx, `SELECT metric_id, side_id, value FROM samples WHERE metric_id IN (`+b.String()+`) ORDER BY metric_id, side_id, seq`, args, func(k key, v float64) {
			if i, ok := index[k]; ok {
				points[i].Values = append(points[i].Values, v)
			}
		}); err != nil {
			return nil, err
		}
	}
	// A metric that a side has no samples of (the benchmark failed there)
	// is no point.
	points = slices.DeleteFunc(points, func(p Point) bool { return len(p.Values) == 0 })
	slices.SortStableFunc(points, func(a, b Point) int {
		return cmp.Or(a.Time().Compare(b.Time()), a.Recorded.Compare(b.Recorded), cmp.Compare(a.RunID, b.RunID))
	})
	return points, nil
}

// key identifies a point: a metric of a run, and one of its sides.
type key struct{ metric, side int64 }

func (s *sqlStore) readSamples(ctx context.Context, q string, args []any, f func(key, float64)) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("reading %s: %w", s.location, err)
	}
	defer rows.Close()
	for rows.Next() {
		var k key
		var v float64
		if err := rows.Scan(&k.metric, &k.side, &v); err != nil {
			return fmt.Errorf("reading %s: %w", s.location, err)
		}
		f(k, v)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", s.location, err)
	}
	return nil
}

func fromNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64)
}
