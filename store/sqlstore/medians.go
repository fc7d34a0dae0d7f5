package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/pressly/goose/v3"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// A point's median is computed in Go, with stats.Median, as the readers
// of samples compute it (Point.Values, history.Point.Value), so that a
// history read from the medians table and one read from the samples are
// the same to the last bit; SQL's AVG of the two middle values is not
// (stats.Median is x[i] + (x[i+1]-x[i])/2).

// mediansVersion is the schema version of the Go migration that fills
// the medians table (made by version 4) for runs recorded before it;
// medianCIVersion the one that fills it again with each median's
// confidence interval (the columns version 6 adds).
const (
	mediansVersion  = 5
	medianCIVersion = 7
)

// goMigrations are the migrations written in Go, for both engines.
func goMigrations() []*goose.Migration {
	return []*goose.Migration{
		goose.NewGoMigration(mediansVersion, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
			return fillMedians(ctx, tx, false)
		}}, nil),
		goose.NewGoMigration(medianCIVersion, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `DELETE FROM medians`); err != nil {
				return fmt.Errorf("medians: %w", err)
			}
			return fillMedians(ctx, tx, true)
		}}, nil),
		goose.NewGoMigration(redactVersion, &goose.GoFunc{RunTx: redactStored}, nil),
	}
}

// fillMedians computes the median of every metric's samples of each
// side, with its confidence interval when withCI (the schema has its
// columns from version 6 on): the runs recorded before version 4 (the
// table is empty then), or before version 6 (emptied). It reads the
// metrics, then the samples in their primary key's order.
func fillMedians(ctx context.Context, tx *sql.Tx, withCI bool) error {
	metrics := map[int64]metricRow{}
	rows, err := tx.QueryContext(ctx, `SELECT id, run_id, benchmark_id, unit, better FROM metrics`)
	if err != nil {
		return fmt.Errorf("medians: %w", err)
	}
	for rows.Next() {
		var id int64
		var m metricRow
		if err := rows.Scan(&id, &m.run, &m.bench, &m.unit, &m.better); err != nil {
			rows.Close()
			return fmt.Errorf("medians: %w", err)
		}
		metrics[id] = m
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("medians: %w", err)
	}
	if rows, err = tx.QueryContext(ctx, `SELECT metric_id, side_id, value FROM samples ORDER BY metric_id, side_id, seq`); err != nil {
		return fmt.Errorf("medians: %w", err)
	}
	var out []medianRow
	var cur key
	var vals []float64
	done := func() {
		if len(vals) > 0 {
			out = append(out, medianRowOf(metrics[cur.metric], cur, vals))
		}
		vals = vals[:0]
	}
	for rows.Next() {
		var k key
		var v float64
		if err := rows.Scan(&k.metric, &k.side, &v); err != nil {
			rows.Close()
			return fmt.Errorf("medians: %w", err)
		}
		if k != cur {
			done()
			cur = k
		}
		vals = append(vals, v)
	}
	done()
	if err := rows.Close(); err != nil {
		return fmt.Errorf("medians: %w", err)
	}
	// $N placeholders: the migration does not know the engine, and both
	// take them.
	return insertMedians(ctx, tx, out, false, withCI)
}

// A metricRow is what the medians table keeps of a metric.
type metricRow struct {
	run, bench int64
	unit       string
	better     int
}

// A medianRow is one point's median: a metric of a run, one side.
type medianRow struct {
	metricRow
	k      key
	n      int
	median float64
	// lo and hi are the median's 95% confidence interval
	// (stats.MedianCI), NaN when there is none.
	lo, hi float64
}

// medianCIConfidence is the confidence of the medians' intervals.
const medianCIConfidence = 0.95

// medianRowOf is the median row of the values of one side of a metric.
func medianRowOf(m metricRow, k key, values []float64) medianRow {
	r := medianRow{metricRow: m, k: k, n: len(values), median: stats.Median(values), lo: math.NaN(), hi: math.NaN()}
	if ci, err := stats.MedianCI(values, medianCIConfidence); err == nil && !math.IsNaN(ci.Lo) && !math.IsNaN(ci.Hi) {
		r.lo, r.hi = ci.Lo, ci.Hi
	}
	return r
}

// mediansOf returns the median of each side's samples of mt, metric mid
// of run and bench, by side id.
func mediansOf(mt model.Metric, sides map[string]int64, mid, run, bench int64) []medianRow {
	bySide := map[string][]float64{}
	var order []string
	for _, smp := range mt.Samples {
		if _, ok := bySide[smp.Side]; !ok {
			order = append(order, smp.Side)
		}
		bySide[smp.Side] = append(bySide[smp.Side], smp.Value)
	}
	m := metricRow{run: run, bench: bench, unit: mt.Unit, better: mt.Better}
	out := make([]medianRow, 0, len(order))
	for _, side := range order {
		v := bySide[side]
		out = append(out, medianRowOf(m, key{mid, sides[side]}, v))
	}
	return out
}

// insertMedians inserts rows, 100 a statement, with their confidence
// intervals when withCI; anonymous is SQLite's "?" placeholders (bound
// in linear time by modernc.org/sqlite).
func insertMedians(ctx context.Context, tx *sql.Tx, rows []medianRow, anonymous, withCI bool) error {
	const per = 100
	cols := 8
	columns := `unit, metric_id, side_id, run_id, benchmark_id, better, n, median`
	if withCI {
		cols += 2
		columns += `, ci_lo, ci_hi`
	}
	for len(rows) > 0 {
		batch := rows[:min(len(rows), per)]
		rows = rows[len(batch):]
		var b strings.Builder
		b.WriteString(`INSERT INTO medians (` + columns + `) VALUES `)
		args := make([]any, 0, cols*len(batch))
		for i, r := range batch {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for c := range cols {
				if c > 0 {
					b.WriteString(", ")
				}
				if anonymous {
					b.WriteByte('?')
				} else {
					fmt.Fprintf(&b, "$%d", cols*i+c+1)
				}
			}
			b.WriteByte(')')
			args = append(args, r.unit, r.k.metric, r.k.side, r.run, r.bench, r.better, r.n, nullNaN(r.median))
			if withCI {
				args = append(args, nullNaN(r.lo), nullNaN(r.hi))
			}
		}
		if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
			return fmt.Errorf("medians: %w", err)
		}
	}
	return nil
}

// nullNaN is v, NULL for NaN.
func nullNaN(v float64) sql.NullFloat64 {
	return sql.NullFloat64{Float64: v, Valid: !math.IsNaN(v)}
}

// nanNull is v, NaN for NULL.
func nanNull(v sql.NullFloat64) float64 {
	if !v.Valid {
		return math.NaN()
	}
	return v.Float64
}
