package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rigorbench/rigor/store"
)

// A Baseline is a named pointer to one side of a recorded run, for one
// project and one machine: the machine the run was measured on. rigor run
// --baseline NAME compares with the baseline NAME of the machine it runs
// on, never with another machine's.
type Baseline struct {
	Project string
	Name    string
	Machine Machine
	RunID   int64
	// Side is the label of the run's side the baseline is.
	Side    string
	Updated time.Time
	// Of the run and its side, for people: when the run started (zero
	// when unknown), the side's commit ("" when none) and whether it had
	// uncommitted changes.
	RunStart time.Time
	Commit   string
	Dirty    bool
}

// ErrNoBaseline is returned for a baseline that is not there.
var ErrNoBaseline = errors.New("no such baseline")

// ErrWhichSide is returned by SetBaseline for a run of several sides
// when no side is named.
var ErrWhichSide = errors.New("name the side to point at")

// SetBaseline points the baseline name of project at side of the run
// recorded with runID, on the machine the run was measured on, replacing
// the pointer of that name there. side may be "" for a run of one side.
// The run must be one of project's.
func (s *sqlStore) SetBaseline(ctx context.Context, project, name string, runID int64, side string, now time.Time) (Baseline, error) {
	if err := store.CheckName(name); err != nil {
		return Baseline{}, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Baseline{}, fmt.Errorf("saving baseline %s in %s: %w", name, s.location, err)
	}
	defer tx.Rollback()
	var projectID, machineID int64
	var runProject string
	err = tx.QueryRowContext(ctx, `SELECT r.project_id, p.name, r.machine_id FROM runs r JOIN projects p ON p.id = r.project_id WHERE r.id = $1`, runID).
		Scan(&projectID, &runProject, &machineID)
	if errors.Is(err, sql.ErrNoRows) {
		return Baseline{}, fmt.Errorf("run %d: %w", runID, ErrNoRun)
	}
	if err != nil {
		return Baseline{}, fmt.Errorf("saving baseline %s in %s: %w", name, s.location, err)
	}
	if runProject != project {
		return Baseline{}, fmt.Errorf("run %d is a run of %s, not of %s", runID, runProject, project)
	}
	labels, err := sideLabels(ctx, tx, runID)
	if err != nil {
		return Baseline{}, fmt.Errorf("saving baseline %s in %s: %w", name, s.location, err)
	}
	switch {
	case side == "" && len(labels) == 1:
		side = labels[0]
	case side == "":
		return Baseline{}, fmt.Errorf("run %d has %d sides (%s): %w", runID, len(labels), strings.Join(labels, ", "), ErrWhichSide)
	case !slices.Contains(labels, side):
		return Baseline{}, fmt.Errorf("run %d has no side %q (it has %s)", runID, side, strings.Join(labels, ", "))
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO baselines (project_id, machine_id, name, run_id, side, updated_ns)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (project_id, machine_id, name) DO UPDATE SET
			run_id = excluded.run_id, side = excluded.side, updated_ns = excluded.updated_ns`,
		projectID, machineID, name, runID, side, now.UnixNano()); err != nil {
		return Baseline{}, fmt.Errorf("saving baseline %s in %s: %w", name, s.location, err)
	}
	if err := tx.Commit(); err != nil {
		return Baseline{}, fmt.Errorf("saving baseline %s in %s: %w", name, s.location, err)
	}
	bs, err := s.baselines(ctx, ` WHERE b.project_id = $1 AND b.machine_id = $2 AND b.name = $3`, projectID, machineID, name)
	if err != nil {
		return Baseline{}, err
	}
	if len(bs) != 1 {
		return Baseline{}, fmt.Errorf("baseline %s: saved, then not found in %s", name, s.location)
	}
	return bs[0], nil
}

// Baseline returns project's baseline name on the machine whose
// fingerprint is machine, an error wrapping ErrNoBaseline when there is
// none.
func (s *sqlStore) Baseline(ctx context.Context, project, machine, name string) (Baseline, error) {
	bs, err := s.baselines(ctx, ` WHERE p.name = $1 AND ma.fingerprint = $2 AND b.name = $3`, project, machine, name)
	if err != nil {
		return Baseline{}, err
	}
	if len(bs) == 0 {
		return Baseline{}, fmt.Errorf("baseline %s: %w", name, ErrNoBaseline)
	}
	return bs[0], nil
}

// Baselines lists project's baselines on every machine, by name, then
// machine fingerprint.
func (s *sqlStore) Baselines(ctx context.Context, project string) ([]Baseline, error) {
	return s.baselines(ctx, ` WHERE p.name = $1`, project)
}

// RemoveBaseline removes project's baseline name on the machine whose
// fingerprint is machine; the run it pointed at stays recorded. It
// returns an error wrapping ErrNoBaseline when there is none.
func (s *sqlStore) RemoveBaseline(ctx context.Context, project, machine, name string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM baselines WHERE name = $1
		AND project_id = (SELECT id FROM projects WHERE name = $2)
		AND machine_id = (SELECT id FROM machines WHERE fingerprint = $3)`, name, project, machine)
	if err != nil {
		return fmt.Errorf("removing baseline %s from %s: %w", name, s.location, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("removing baseline %s from %s: %w", name, s.location, err)
	} else if n == 0 {
		return fmt.Errorf("baseline %s: %w", name, ErrNoBaseline)
	}
	return nil
}

// LatestRun returns the id of project's run recorded last on the machine
// whose fingerprint is machine, an error wrapping ErrNoRun when there is
// none.
func (s *sqlStore) LatestRun(ctx context.Context, project, machine string) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT r.id FROM runs r
		JOIN projects p ON p.id = r.project_id JOIN machines ma ON ma.id = r.machine_id
		WHERE p.name = $1 AND ma.fingerprint = $2 ORDER BY r.recorded_ns DESC, r.id DESC LIMIT 1`, project, machine).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("no run of %s recorded on machine %s: %w", project, machine, ErrNoRun)
	}
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", s.location, err)
	}
	return id, nil
}

func (s *sqlStore) baselines(ctx context.Context, where string, args ...any) ([]Baseline, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT p.name, b.name, b.run_id, b.side, b.updated_ns, r.start_ns,
		COALESCE(c.hash, ''), sd.dirty,
		ma.fingerprint, ma.goos, ma.goarch, ma.cpu_model, ma.hostname, ma.logical_cores, ma.mem_total_bytes
		FROM baselines b
		JOIN projects p ON p.id = b.project_id
		JOIN machines ma ON ma.id = b.machine_id
		JOIN runs r ON r.id = b.run_id
		JOIN sides sd ON sd.run_id = b.run_id AND sd.label = b.side
		LEFT JOIN commits c ON c.id = sd.commit_id`+where+`
		ORDER BY b.name, ma.fingerprint`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	defer rows.Close()
	var out []Baseline
	for rows.Next() {
		var b Baseline
		var updated, mem int64
		var start sql.NullInt64
		m := &b.Machine
		if err := rows.Scan(&b.Project, &b.Name, &b.RunID, &b.Side, &updated, &start, &b.Commit, &b.Dirty,
			&m.Fingerprint, &m.GOOS, &m.GOARCH, &m.CPUModel, &m.Hostname, &m.LogicalCores, &mem); err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.location, err)
		}
		m.MemTotalBytes = uint64(mem)
		b.Updated, b.RunStart = time.Unix(0, updated), fromNanos(start)
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	return out, nil
}

// sideLabels returns the labels of run's sides, in order.
func sideLabels(ctx context.Context, tx *sql.Tx, run int64) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT label FROM sides WHERE run_id = $1 ORDER BY position`, run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var labels []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return nil, err
		}
		labels = append(labels, l)
	}
	return labels, rows.Err()
}
