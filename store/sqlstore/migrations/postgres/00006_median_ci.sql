-- Schema version 6: each point's 95% confidence interval of its median
-- (stats.MedianCI of its samples; both NULL when its samples are too few
-- for one, or one is NaN) beside the median, so that a series' chart
-- reads one row per point, not every sample; and the medians by
-- benchmark, an index that holds what a series' page reads of them, so
-- that one series' points are read without the range of every
-- benchmark's (SQLite, without statistics, takes the primary key's
-- range of the unit over an index that it would have to leave for the
-- table). Version 7, a Go migration (medians.go), computes them for the
-- runs recorded before.

-- +goose Up
ALTER TABLE medians ADD COLUMN ci_lo DOUBLE PRECISION;
ALTER TABLE medians ADD COLUMN ci_hi DOUBLE PRECISION;
CREATE INDEX medians_benchmark ON medians (benchmark_id, unit, run_id, better, n, median, ci_lo, ci_hi);
