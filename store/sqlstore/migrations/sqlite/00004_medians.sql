-- Schema version 4: each point's median (one side of one run, for one
-- metric) and its number of samples, kept as the run is recorded, so
-- that reading a history's values (rigor serve's index and sparklines,
-- the change points) reads one row per point, not every sample. The
-- metric's run, benchmark, unit and direction are kept beside it, and
-- the rows are ordered by unit, so that a unit's points are read in
-- one range, without a join per point. A NULL median is NaN. Version 5,
-- a Go migration (medians.go), computes them for the runs recorded
-- before.

-- +goose Up
CREATE TABLE medians (
    unit         TEXT NOT NULL,
    metric_id    BIGINT NOT NULL REFERENCES metrics (id),
    side_id      BIGINT NOT NULL REFERENCES sides (id),
    run_id       BIGINT NOT NULL REFERENCES runs (id),
    benchmark_id BIGINT NOT NULL REFERENCES benchmarks (id),
    better       BIGINT NOT NULL,
    n            BIGINT NOT NULL,
    median       DOUBLE PRECISION,
    PRIMARY KEY (unit, metric_id, side_id)
) WITHOUT ROWID;
