-- Schema version 2: look benchmarks up by name (rigor history BENCH),
-- so that reading one series does not scan every run's metrics.

-- +goose Up
CREATE INDEX benchmarks_name ON benchmarks (name);
