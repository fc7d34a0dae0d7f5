package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rigorbench/rigor/internal/redact"
	"github.com/rigorbench/rigor/model"
)

// A Recording is what a run is recorded with, beyond the run itself.
type Recording struct {
	// Project names the project, normally its module path.
	Project string
	// Branch is the branch the run was made on ("" when unknown).
	Branch string
	// Commits gives the time and subject of the sides' commits, by full
	// hash. A side whose Rev is not here is stored with its hash alone.
	Commits map[string]Commit
	// Source is where the run came from: its results directory or file.
	Source string
	// Now is when it is recorded (default: time.Now()).
	Now time.Time
}

// A Commit is one commit of the project.
type Commit struct {
	Hash    string
	Time    time.Time // zero when unknown
	Subject string
}

// Recorded says what Record stored.
type Recorded struct {
	// ID is the run's key in the database.
	ID int64
	// UID identifies the run's content: the same run recorded again has
	// the same UID and is not stored twice.
	UID string
	// Duplicate is true when the run was there already.
	Duplicate bool
	// Samples is the number of samples stored.
	Samples int
	// Machine is the machine's fingerprint.
	Machine string
}

// maxSampleRows is the number of samples inserted by one statement: 6
// parameters each, well under SQLite's and PostgreSQL's limits. (With
// more, modernc.org/sqlite binds numbered parameters in quadratic time.)
const maxSampleRows = 100

// insertSamples is the statement that inserts n samples.
func (s *sqlStore) insertSamples(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO samples (metric_id, side_id, round, seq, iters, value) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		if s.engine == SQLite {
			// Anonymous parameters: SQLite binds them in linear time.
			b.WriteString("(?, ?, ?, ?, ?, ?)")
		} else {
			fmt.Fprintf(&b, "($%d, $%d, $%d, $%d, $%d, $%d)", 6*i+1, 6*i+2, 6*i+3, 6*i+4, 6*i+5, 6*i+6)
		}
	}
	return b.String()
}

// Record stores run and everything it holds in one transaction.
func (s *sqlStore) Record(ctx context.Context, run *model.Run, rec Recording) (Recorded, error) {
	if rec.Project == "" {
		return Recorded{}, errors.New("recording a run: no project name")
	}
	if s.readOnly {
		return Recorded{}, fmt.Errorf("recording in %s: the store was opened read-only", s.location)
	}
	if run.Kind == model.KindRamp {
		return Recorded{}, errors.New("recording a run: ramped-load runs have no benchmark samples to keep in the history")
	}
	uid, err := runUID(run)
	if err != nil {
		return Recorded{}, err
	}
	if rec.Now.IsZero() {
		rec.Now = time.Now()
	}
	m := machineOf(run)
	out := Recorded{UID: uid, Machine: m.Fingerprint}
	// Before the write lock is taken: other writers need not wait for
	// the check.
	if err := s.checkIntegrity(ctx); err != nil {
		return Recorded{UID: uid}, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return out, fmt.Errorf("recording in %s: %w", s.location, err)
	}
	defer tx.Rollback()
	err = s.record(ctx, tx, run, rec, m, &out)
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return Recorded{UID: uid}, fmt.Errorf("recording in %s: %w", s.location, err)
	}
	return out, nil
}

func (s *sqlStore) record(ctx context.Context, tx *sql.Tx, run *model.Run, rec Recording, m Machine, out *Recorded) error {
	var project int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO projects (name) VALUES ($1)
		ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id`, rec.Project).Scan(&project); err != nil {
		return fmt.Errorf("project: %w", err)
	}
	var branch sql.NullInt64
	if rec.Branch != "" {
		if err := tx.QueryRowContext(ctx, `INSERT INTO branches (project_id, name) VALUES ($1, $2)
			ON CONFLICT (project_id, name) DO UPDATE SET name = excluded.name RETURNING id`, project, rec.Branch).Scan(&branch); err != nil {
			return fmt.Errorf("branch: %w", err)
		}
	}
	env, err := json.Marshal(redactedEnv(run.Env))
	if err != nil {
		return err
	}
	var machine int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO machines
		(fingerprint, goos, goarch, cpu_model, hostname, logical_cores, mem_total_bytes, env_json)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (fingerprint) DO UPDATE SET fingerprint = excluded.fingerprint RETURNING id`,
		m.Fingerprint, m.GOOS, m.GOARCH, m.CPUModel, m.Hostname, m.LogicalCores, int64(m.MemTotalBytes), string(env)).Scan(&machine); err != nil {
		return fmt.Errorf("machine: %w", err)
	}
	notes, err := json.Marshal(run.Notes)
	if err != nil {
		return err
	}
	observer, err := json.Marshal(summarizeObservations(run.Observations))
	if err != nil {
		return err
	}
	command, err := json.Marshal(redact.Args(run.Command))
	if err != nil {
		return err
	}
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO runs
		(uid, project_id, branch_id, machine_id, run_id, kind, paired, command, start_ns, end_ns, recorded_ns, source, env_json, observer_json, notes_json)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
		ON CONFLICT (uid) DO NOTHING RETURNING id`,
		out.UID, project, branch, machine, run.ID, run.Kind, run.Paired, string(command),
		nanos(run.Start), nanos(run.End), rec.Now.UnixNano(), rec.Source, string(env), string(observer), string(notes)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		out.Duplicate = true
		return tx.QueryRowContext(ctx, `SELECT id FROM runs WHERE uid = $1`, out.UID).Scan(&out.ID)
	}
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	out.ID = id

	sides := map[string]int64{}
	for i, sd := range run.Sides {
		var commit sql.NullInt64
		if sd.Rev != "" {
			c := rec.Commits[sd.Rev]
			if err := tx.QueryRowContext(ctx, `INSERT INTO commits (project_id, hash, time_ns, subject) VALUES ($1, $2, $3, $4)
				ON CONFLICT (project_id, hash) DO UPDATE SET
					time_ns = COALESCE(commits.time_ns, excluded.time_ns),
					subject = CASE WHEN commits.subject = '' THEN excluded.subject ELSE commits.subject END
				RETURNING id`, project, sd.Rev, nanos(c.Time), c.Subject).Scan(&commit); err != nil {
				return fmt.Errorf("commit %s: %w", sd.Rev, err)
			}
		}
		settings, err := json.Marshal(sideSettings{Source: sd.Source, Tags: sd.Tags, BuildEnv: sd.BuildEnv,
			GCFlags: sd.GCFlags, Toolchain: sd.Toolchain, Args: sd.Args, Subgroup: sd.Subgroup, Layouts: sd.Layouts})
		if err != nil {
			return err
		}
		var sid int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO sides (run_id, position, label, commit_id, dirty, settings_json)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, id, i, sd.Label, commit, sd.Dirty, string(settings)).Scan(&sid); err != nil {
			return fmt.Errorf("side %s: %w", sd.Label, err)
		}
		sides[sd.Label] = sid
	}

	var rows []any
	var medians []medianRow
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, s.insertSamples(len(rows)/6), rows...); err != nil {
			return fmt.Errorf("samples: %w", err)
		}
		rows = rows[:0]
		return nil
	}
	for _, bm := range run.Benchmarks {
		if len(bm.Metrics) == 0 {
			continue
		}
		var bid int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO benchmarks (project_id, pkg, name, procs) VALUES ($1, $2, $3, $4)
			ON CONFLICT (project_id, pkg, name, procs) DO UPDATE SET name = excluded.name RETURNING id`,
			project, bm.Pkg, bm.Name, bm.Procs).Scan(&bid); err != nil {
			return fmt.Errorf("benchmark %s: %w", bm.Key(), err)
		}
		for _, mt := range bm.Metrics {
			var mid int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO metrics (run_id, benchmark_id, unit, better, assume)
				VALUES ($1, $2, $3, $4, $5) RETURNING id`, id, bid, mt.Unit, mt.Better, mt.Assume).Scan(&mid); err != nil {
				return fmt.Errorf("metric %s %s: %w", bm.Key(), mt.Unit, err)
			}
			for seq, smp := range mt.Samples {
				sid, ok := sides[smp.Side]
				if !ok {
					return fmt.Errorf("benchmark %s: a sample of side %q, which the run does not have", bm.Key(), smp.Side)
				}
				rows = append(rows, mid, sid, smp.Round, seq, smp.Iters, smp.Value)
				out.Samples++
				if len(rows) >= 6*maxSampleRows {
					if err := flush(); err != nil {
						return err
					}
				}
			}
			medians = append(medians, mediansOf(mt, sides, mid, id, bid)...)
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if s.noMedians {
		return nil
	}
	return insertMedians(ctx, tx, medians, s.engine == SQLite, true)
}

// sideSettings is what sides.settings_json holds.
type sideSettings struct {
	Source    string   `json:"source,omitempty"`
	Tags      string   `json:"tags,omitempty"`
	BuildEnv  []string `json:"build_env,omitempty"`
	GCFlags   string   `json:"gcflags,omitempty"`
	Toolchain string   `json:"toolchain,omitempty"`
	Args      []string `json:"args,omitempty"`
	Subgroup  string   `json:"subgroup,omitempty"`
	// Layouts are the side's random link layouts' seeds (model.Side).
	Layouts []int64 `json:"layouts,omitempty"`
}

// nanos is t in Unix nanoseconds, NULL when zero.
func nanos(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

// runUID identifies a run by its content: a hash of its JSON.
func runUID(run *model.Run) (string, error) {
	h := sha256.New()
	if err := run.WriteJSON(h); err != nil {
		return "", fmt.Errorf("recording a run: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// observerSummary is what runs.observer_json holds: what the machine did
// during the run, in a few numbers.
type observerSummary struct {
	Intervals    int     `json:"intervals"`
	MeanOtherCPU float64 `json:"mean_other_cpu,omitempty"`
	MaxOtherCPU  float64 `json:"max_other_cpu,omitempty"`
	MeanSteal    float64 `json:"mean_steal,omitempty"`
	MaxLoad1     float64 `json:"max_load1,omitempty"`
}

func summarizeObservations(obs []model.Observation) observerSummary {
	var s observerSummary
	var other, steal float64
	var nOther, nSys int
	for _, o := range obs {
		s.Intervals++
		if o.Process != nil && o.System != nil {
			other += o.OtherCPU
			s.MaxOtherCPU = max(s.MaxOtherCPU, o.OtherCPU)
			nOther++
		}
		if o.System != nil {
			steal += o.System.Steal
			s.MaxLoad1 = max(s.MaxLoad1, o.System.Load1)
			nSys++
		}
	}
	if nOther > 0 {
		s.MeanOtherCPU = other / float64(nOther)
	}
	if nSys > 0 {
		s.MeanSteal = steal / float64(nSys)
	}
	return s
}
