package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rigorbench/rigor/model"
)

// ErrNoRun is returned by Run for an id the store does not have.
var ErrNoRun = errors.New("no such run")

func (s *sqlStore) RecordedRuns(ctx context.Context) (n, last int64, err error) {
	if err := s.db.QueryRowContext(ctx, `SELECT count(*), COALESCE(max(id), 0) FROM runs`).Scan(&n, &last); err != nil {
		return 0, 0, fmt.Errorf("reading %s: %w", s.location, err)
	}
	return n, last, nil
}

// Run rebuilds the run recorded with id: its sides (with their commits),
// benchmarks, metrics and every sample, its environment and notes. The
// observations themselves are not kept, only their summary.
func (s *sqlStore) Run(ctx context.Context, id int64) (*model.Run, error) {
	run := &model.Run{SchemaVersion: model.SchemaVersion, Benchmarks: []model.Benchmark{}}
	var start, end sql.NullInt64
	var command, env, notes string
	err := s.db.QueryRowContext(ctx, `SELECT run_id, kind, paired, command, start_ns, end_ns, env_json, notes_json FROM runs WHERE id = $1`, id).
		Scan(&run.ID, &run.Kind, &run.Paired, &command, &start, &end, &env, &notes)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %d: %w", id, ErrNoRun)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	run.Start, run.End = fromNanos(start), fromNanos(end)
	if err := json.Unmarshal([]byte(command), &run.Command); err != nil {
		return nil, fmt.Errorf("run %d: command: %w", id, err)
	}
	if env != "" && env != "null" {
		run.Env = &model.Env{}
		if err := json.Unmarshal([]byte(env), run.Env); err != nil {
			return nil, fmt.Errorf("run %d: environment: %w", id, err)
		}
	}
	if err := json.Unmarshal([]byte(notes), &run.Notes); err != nil {
		return nil, fmt.Errorf("run %d: notes: %w", id, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT sd.id, sd.label, sd.dirty, sd.settings_json, COALESCE(c.hash, '')
		FROM sides sd LEFT JOIN commits c ON c.id = sd.commit_id WHERE sd.run_id = $1 ORDER BY sd.position`, id)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	label := map[int64]string{}
	for rows.Next() {
		var sid int64
		var sd model.Side
		var settings string
		if err := rows.Scan(&sid, &sd.Label, &sd.Dirty, &settings, &sd.Rev); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading %s: %w", s.location, err)
		}
		var st sideSettings
		if err := json.Unmarshal([]byte(settings), &st); err == nil {
			sd.Source, sd.Tags, sd.BuildEnv, sd.GCFlags, sd.Toolchain, sd.Args, sd.Subgroup = st.Source, st.Tags, st.BuildEnv, st.GCFlags, st.Toolchain, st.Args, st.Subgroup
			sd.Layouts = st.Layouts
		}
		label[sid] = sd.Label
		run.Sides = append(run.Sides, sd)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	rows, err = s.db.QueryContext(ctx, `SELECT m.id, b.pkg, b.name, b.procs, m.unit, m.better, m.assume
		FROM metrics m JOIN benchmarks b ON b.id = m.benchmark_id WHERE m.run_id = $1 ORDER BY m.id`, id)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	type at struct{ bench, metric int }
	where := map[int64]at{}
	bench := map[string]int{}
	for rows.Next() {
		var mid int64
		var b model.Benchmark
		var m model.Metric
		if err := rows.Scan(&mid, &b.Pkg, &b.Name, &b.Procs, &m.Unit, &m.Better, &m.Assume); err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading %s: %w", s.location, err)
		}
		bi, ok := bench[b.Key()]
		if !ok {
			bi = len(run.Benchmarks)
			bench[b.Key()] = bi
			run.Benchmarks = append(run.Benchmarks, b)
		}
		where[mid] = at{bi, len(run.Benchmarks[bi].Metrics)}
		run.Benchmarks[bi].Metrics = append(run.Benchmarks[bi].Metrics, m)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	rows, err = s.db.QueryContext(ctx, `SELECT s.metric_id, s.side_id, s.round, s.iters, s.value
		FROM samples s JOIN metrics m ON m.id = s.metric_id WHERE m.run_id = $1 ORDER BY s.metric_id, s.seq`, id)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	defer rows.Close()
	for rows.Next() {
		var mid, sid int64
		var smp model.Sample
		if err := rows.Scan(&mid, &sid, &smp.Round, &smp.Iters, &smp.Value); err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.location, err)
		}
		a, ok := where[mid]
		if !ok {
			continue
		}
		smp.Side = label[sid]
		m := &run.Benchmarks[a.bench].Metrics[a.metric]
		m.Samples = append(m.Samples, smp)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	return run, nil
}
