-- rigor's history schema, version 1 (SQLite). The PostgreSQL file of the
-- same name creates the same tables and columns; only the types of the
-- generated keys differ. Times are Unix nanoseconds (UTC), so that both
-- engines sort and compare them alike. Forward only: there is no Down.

-- +goose Up
CREATE TABLE projects (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

CREATE TABLE branches (
    id         INTEGER PRIMARY KEY,
    project_id BIGINT NOT NULL REFERENCES projects (id),
    name       TEXT NOT NULL,
    UNIQUE (project_id, name)
);

CREATE TABLE commits (
    id         INTEGER PRIMARY KEY,
    project_id BIGINT NOT NULL REFERENCES projects (id),
    hash       TEXT NOT NULL,
    time_ns    BIGINT,
    subject    TEXT NOT NULL DEFAULT '',
    UNIQUE (project_id, hash)
);

CREATE TABLE machines (
    id              INTEGER PRIMARY KEY,
    fingerprint     TEXT NOT NULL UNIQUE,
    goos            TEXT NOT NULL DEFAULT '',
    goarch          TEXT NOT NULL DEFAULT '',
    cpu_model       TEXT NOT NULL DEFAULT '',
    hostname        TEXT NOT NULL DEFAULT '',
    logical_cores   BIGINT NOT NULL DEFAULT 0,
    mem_total_bytes BIGINT NOT NULL DEFAULT 0,
    env_json        TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    uid           TEXT NOT NULL UNIQUE,
    project_id    BIGINT NOT NULL REFERENCES projects (id),
    branch_id     BIGINT REFERENCES branches (id),
    machine_id    BIGINT NOT NULL REFERENCES machines (id),
    run_id        TEXT NOT NULL DEFAULT '',
    kind          TEXT NOT NULL,
    paired        BOOLEAN NOT NULL DEFAULT FALSE,
    command       TEXT NOT NULL DEFAULT '[]',
    start_ns      BIGINT,
    end_ns        BIGINT,
    recorded_ns   BIGINT NOT NULL,
    source        TEXT NOT NULL DEFAULT '',
    env_json      TEXT NOT NULL DEFAULT '{}',
    observer_json TEXT NOT NULL DEFAULT '{}',
    notes_json    TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX runs_project ON runs (project_id, branch_id, machine_id);

CREATE TABLE sides (
    id            INTEGER PRIMARY KEY,
    run_id        BIGINT NOT NULL REFERENCES runs (id),
    position      BIGINT NOT NULL,
    label         TEXT NOT NULL,
    commit_id     BIGINT REFERENCES commits (id),
    dirty         BOOLEAN NOT NULL DEFAULT FALSE,
    settings_json TEXT NOT NULL DEFAULT '{}',
    UNIQUE (run_id, label)
);

CREATE TABLE benchmarks (
    id         INTEGER PRIMARY KEY,
    project_id BIGINT NOT NULL REFERENCES projects (id),
    pkg        TEXT NOT NULL,
    name       TEXT NOT NULL,
    procs      BIGINT NOT NULL,
    UNIQUE (project_id, pkg, name, procs)
);

CREATE TABLE metrics (
    id           INTEGER PRIMARY KEY,
    run_id       BIGINT NOT NULL REFERENCES runs (id),
    benchmark_id BIGINT NOT NULL REFERENCES benchmarks (id),
    unit         TEXT NOT NULL,
    better       BIGINT NOT NULL,
    assume       TEXT NOT NULL DEFAULT '',
    UNIQUE (run_id, benchmark_id, unit)
);
CREATE INDEX metrics_benchmark ON metrics (benchmark_id, unit);

CREATE TABLE samples (
    metric_id BIGINT NOT NULL REFERENCES metrics (id),
    side_id   BIGINT NOT NULL REFERENCES sides (id),
    round     BIGINT NOT NULL,
    seq       BIGINT NOT NULL,
    iters     BIGINT NOT NULL,
    value     DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (metric_id, side_id, seq)
);

CREATE TABLE baselines (
    project_id BIGINT NOT NULL REFERENCES projects (id),
    name       TEXT NOT NULL,
    run_id     BIGINT NOT NULL REFERENCES runs (id),
    updated_ns BIGINT NOT NULL,
    PRIMARY KEY (project_id, name)
);
