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
	// AfterRun and ThroughRun select the runs whose id (Point.RunID) is
	// above AfterRun and, when ThroughRun is not 0, not above it: with
	// the newest id of RecordedRuns, what was recorded since a reader
	// last looked, and nothing recorded while it reads.
	AfterRun, ThroughRun int64
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
	// Median is the median of the values (NaN when one is NaN), N their
	// number, and CILo and CIHi the median's 95% confidence interval
	// (stats.MedianCI; NaN when the values are too few for one, or one is
	// NaN): Summaries sets them and leaves Values nil; Points sets Values
	// only.
	Median     float64
	N          int
	CILo, CIHi float64
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
		add("ma.fingerprint LIKE $%d", machineLike(f.Machine))
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
	if f.AfterRun != 0 {
		add("r.id > $%d", f.AfterRun)
	}
	if f.ThroughRun != 0 {
		add("r.id <= $%d", f.ThroughRun)
	}
	if !f.Dirty {
		conds = append(conds, "NOT sd.dirty", "sd.commit_id IS NOT NULL")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// pointColumns are the columns of a Point that the metrics, runs,
// sides and what they refer to hold (fromWhere), read by scanPoint.
const pointColumns = `m.id, sd.id, p.name, COALESCE(br.name, ''), ma.fingerprint,
		b.pkg, b.name, b.procs, m.unit, m.better, r.id, r.uid, r.kind, r.start_ns, r.recorded_ns, r.source,
		sd.label, sd.dirty, COALESCE(c.hash, ''), c.time_ns, COALESCE(c.subject, '')`

// scanPoint reads pointColumns, and then the columns into more.
func scanPoint(rows *sql.Rows, k *key, p *Point, more ...any) error {
	var start, commitTime sql.NullInt64
	var recorded int64
	if err := rows.Scan(append([]any{&k.metric, &k.side, &p.Project, &p.Branch, &p.Machine, &p.Pkg, &p.Name, &p.Procs,
		&p.Unit, &p.Better, &p.RunID, &p.RunUID, &p.Kind, &start, &recorded, &p.Source,
		&p.Side, &p.Dirty, &p.Commit, &commitTime, &p.Subject}, more...)...); err != nil {
		return err
	}
	p.RunStart, p.CommitTime, p.Recorded = fromNanos(start), fromNanos(commitTime), time.Unix(0, recorded)
	return nil
}

// sortPoints puts points in history's order: by Point.Time, then when
// they were recorded, then by run.
func sortPoints(points []Point) {
	slices.SortStableFunc(points, func(a, b Point) int {
		return cmp.Or(a.Time().Compare(b.Time()), a.Recorded.Compare(b.Recorded), cmp.Compare(a.RunID, b.RunID))
	})
}

// conds are the conditions of one query, with their arguments.
type conds struct {
	list []string
	args []any
}

func (c *conds) add(cond string, v any) {
	c.args = append(c.args, v)
	c.list = append(c.list, fmt.Sprintf(cond, len(c.args)))
}

func (c *conds) where() string {
	if len(c.list) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(c.list, " AND ")
}

// machineLike is the LIKE pattern of a machine fingerprint's prefix.
func machineLike(prefix string) string {
	return strings.NewReplacer("%", "", "_", "").Replace(prefix) + "%"
}

// Summaries returns the points that Points returns, in the same order,
// with their values' median, its confidence interval and their number
// (Point.Median, CILo, CIHi, N) in place of the values, and no sample
// read. Rather than one join of eight tables per point, it reads the
// runs, sides and benchmarks that f selects (a few rows per run), then
// the medians of f's unit, one range of the medians table, and puts the
// points together; for one benchmark's points (Filter.Name), one join
// through the medians' benchmark index reads only those.
func (s *sqlStore) Summaries(ctx context.Context, f Filter) ([]Point, error) {
	if f.Name != "" {
		points, err := s.benchmarkSummaries(ctx, f, nil)
		sortPoints(points)
		return points, err
	}
	// In chunks, then one slice: appending to one slice of a history's
	// points (a few hundred bytes each) allocated five times its size.
	var chunks [][]Point
	var chunk []Point
	if err := s.eachSummary(ctx, f, func(p *Point) error {
		if len(chunk) == cap(chunk) {
			chunk = make([]Point, 0, 4096)
			chunks = append(chunks, chunk)
		}
		chunk = append(chunk, *p)
		chunks[len(chunks)-1] = chunk
		return nil
	}); err != nil {
		return nil, err
	}
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	points := make([]Point, 0, n)
	for _, c := range chunks {
		points = append(points, c...)
	}
	sortPoints(points)
	return points, nil
}

func (s *sqlStore) EachSummary(ctx context.Context, f Filter, fn func(*Point) error) error {
	if f.Name != "" {
		_, err := s.benchmarkSummaries(ctx, f, fn)
		return err
	}
	return s.eachSummary(ctx, f, fn)
}

// eachSummary is EachSummary of every benchmark (f.Name ignored), in the
// order of the medians' primary key within f's unit.
func (s *sqlStore) eachSummary(ctx context.Context, f Filter, fn func(*Point) error) error {
	type runRow struct {
		project, branch, machine, uid, kind, source string
		start                                       sql.NullInt64
		recorded                                    int64
	}
	runs := map[int64]runRow{}
	var rc conds
	if f.Project != "" {
		rc.add("p.name = $%d", f.Project)
	}
	if f.Branch != "" {
		rc.add("br.name = $%d", f.Branch)
	}
	if f.Machine != "" {
		rc.add("ma.fingerprint LIKE $%d", machineLike(f.Machine))
	}
	if f.AfterRun != 0 {
		rc.add("r.id > $%d", f.AfterRun)
	}
	if f.ThroughRun != 0 {
		rc.add("r.id <= $%d", f.ThroughRun)
	}
	if err := s.each(ctx, `SELECT r.id, p.name, COALESCE(br.name, ''), ma.fingerprint, r.uid, r.kind, r.source, r.start_ns, r.recorded_ns
		FROM runs r JOIN projects p ON p.id = r.project_id JOIN machines ma ON ma.id = r.machine_id
		LEFT JOIN branches br ON br.id = r.branch_id`+rc.where(), rc.args, func(rows *sql.Rows) error {
		var id int64
		var r runRow
		if err := rows.Scan(&id, &r.project, &r.branch, &r.machine, &r.uid, &r.kind, &r.source, &r.start, &r.recorded); err != nil {
			return err
		}
		runs[id] = r
		return nil
	}); err != nil {
		return err
	}
	type sideRow struct {
		label, commit, subject string
		dirty                  bool
		commitTime             sql.NullInt64
	}
	sides := map[int64]sideRow{}
	var sc conds
	if !f.Dirty {
		sc.list = append(sc.list, "NOT sd.dirty", "sd.commit_id IS NOT NULL")
	}
	if f.AfterRun != 0 {
		sc.add("sd.run_id > $%d", f.AfterRun)
	}
	if f.ThroughRun != 0 {
		sc.add("sd.run_id <= $%d", f.ThroughRun)
	}
	if err := s.each(ctx, `SELECT sd.id, sd.label, sd.dirty, COALESCE(c.hash, ''), c.time_ns, COALESCE(c.subject, '')
		FROM sides sd LEFT JOIN commits c ON c.id = sd.commit_id`+sc.where(), sc.args, func(rows *sql.Rows) error {
		var id int64
		var sd sideRow
		if err := rows.Scan(&id, &sd.label, &sd.dirty, &sd.commit, &sd.commitTime, &sd.subject); err != nil {
			return err
		}
		sides[id] = sd
		return nil
	}); err != nil {
		return err
	}
	type benchRow struct {
		pkg, name string
		procs     int
	}
	benches := map[int64]benchRow{}
	var bc conds
	if f.Pkg != "" {
		bc.add("pkg = $%d", f.Pkg)
	}
	if f.Name != "" {
		bc.add("name = $%d", f.Name)
	}
	if err := s.each(ctx, `SELECT id, pkg, name, procs FROM benchmarks`+bc.where(), bc.args, func(rows *sql.Rows) error {
		var id int64
		var b benchRow
		if err := rows.Scan(&id, &b.pkg, &b.name, &b.procs); err != nil {
			return err
		}
		benches[id] = b
		return nil
	}); err != nil {
		return err
	}
	var mc conds
	if f.Unit != "" {
		mc.add("unit = $%d", f.Unit)
	}
	if f.AfterRun != 0 {
		// The runs' metrics first, through metrics' (run_id, ...) key:
		// the range of the medians to read. (+id: SQLite reads min(id)
		// in the order of ids, every metric of the runs before AfterRun
		// until the first after it, 150,000 rows and 50-100 ms of a
		// history of 1,000 runs of 50 benchmarks.)
		mc.add("run_id > $%d", f.AfterRun)
		mc.add("metric_id >= (SELECT min(+id) FROM metrics WHERE run_id > $%d)", f.AfterRun)
	}
	if f.ThroughRun != 0 {
		mc.add("run_id <= $%d", f.ThroughRun)
	}
	units := map[string]string{} // one copy of each unit's name
	return s.each(ctx, `SELECT metric_id, side_id, run_id, benchmark_id, unit, better, n, median, ci_lo, ci_hi FROM medians`+mc.where()+
		` ORDER BY metric_id, side_id`, mc.args, func(rows *sql.Rows) error {
		var k key
		var run, bench int64
		var unit sql.RawBytes
		var better, n int
		var median, lo, hi sql.NullFloat64
		if err := rows.Scan(&k.metric, &k.side, &run, &bench, &unit, &better, &n, &median, &lo, &hi); err != nil {
			return err
		}
		r, ok := runs[run]
		sd, ok2 := sides[k.side]
		b, ok3 := benches[bench]
		if !ok || !ok2 || !ok3 {
			return nil
		}
		u, ok := units[string(unit)]
		if !ok {
			u = string(unit)
			units[u] = u
		}
		p := Point{Project: r.project, Branch: r.branch, Machine: r.machine, Pkg: b.pkg, Name: b.name, Procs: b.procs, Unit: u, Better: better,
			RunID: run, RunUID: r.uid, Kind: r.kind, RunStart: fromNanos(r.start), Recorded: time.Unix(0, r.recorded), Source: r.source,
			Side: sd.label, Commit: sd.commit, CommitTime: fromNanos(sd.commitTime), Subject: sd.subject, Dirty: sd.dirty,
			Median: nanNull(median), N: n, CILo: nanNull(lo), CIHi: nanNull(hi)}
		return fn(&p)
	})
}

// medianFrom joins each point's median row to what Point holds of its
// run, side and benchmark (the aliases of fromWhere, m for the medians,
// so that Filter.where applies).
const medianFrom = `
	FROM medians m
	JOIN runs r ON r.id = m.run_id
	JOIN projects p ON p.id = r.project_id
	JOIN machines ma ON ma.id = r.machine_id
	JOIN benchmarks b ON b.id = m.benchmark_id
	JOIN sides sd ON sd.id = m.side_id
	LEFT JOIN branches br ON br.id = r.branch_id
	LEFT JOIN commits c ON c.id = sd.commit_id`

// benchmarkSummaries is Summaries of f with a benchmark's name, unsorted
// (or each passed to fn, when not nil): the benchmarks of the name
// (benchmarks_name), then one join of their medians (through
// medians_benchmark: SQLite takes it for a list of benchmarks, not for a
// join with their name), a row a point.
func (s *sqlStore) benchmarkSummaries(ctx context.Context, f Filter, fn func(*Point) error) ([]Point, error) {
	var bc conds
	bc.add("name = $%d", f.Name)
	if f.Pkg != "" {
		bc.add("pkg = $%d", f.Pkg)
	}
	var ids []string
	if err := s.each(ctx, `SELECT id FROM benchmarks`+bc.where(), bc.args, func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, fmt.Sprint(id))
		return nil
	}); err != nil || len(ids) == 0 {
		return nil, err
	}
	where, args := f.where()
	// The ids are the store's own integers, written in the statement.
	where += " AND m.benchmark_id IN (" + strings.Join(ids, ", ") + ")"
	var points []Point
	// The medians have no id: m.id is their metric's.
	columns := strings.Replace(pointColumns, "m.id", "m.metric_id", 1)
	if err := s.each(ctx, `SELECT `+columns+`, m.n, m.median, m.ci_lo, m.ci_hi`+medianFrom+where+` ORDER BY m.metric_id, sd.id`, args, func(rows *sql.Rows) error {
		var k key
		var p Point
		var median, lo, hi sql.NullFloat64
		if err := scanPoint(rows, &k, &p, &p.N, &median, &lo, &hi); err != nil {
			return err
		}
		p.Median, p.CILo, p.CIHi = nanNull(median), nanNull(lo), nanNull(hi)
		if fn != nil {
			return fn(&p)
		}
		points = append(points, p)
		return nil
	}); err != nil {
		return nil, err
	}
	return points, nil
}

// each runs q and calls f on each row.
func (s *sqlStore) each(ctx context.Context, q string, args []any, f func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("reading %s: %w", s.location, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return fmt.Errorf("reading %s: %w", s.location, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", s.location, err)
	}
	return nil
}

func (s *sqlStore) Points(ctx context.Context, f Filter) ([]Point, error) {
	where, args := f.where()
	rows, err := s.db.QueryContext(ctx, `SELECT `+pointColumns+fromWhere+where+` ORDER BY m.id, sd.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	index := map[key]int{}
	var points []Point
	for rows.Next() {
		var k key
		var p Point
		if err := scanPoint(rows, &k, &p); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading %s: %w", s.location, err)
		}
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
	sortPoints(points)
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
