-- Schema version 3: a named baseline points at one side of a recorded
-- run, for one project and one machine (the machine the run was measured
-- on), so that rigor run --baseline NAME never compares with results of
-- other hardware. Version 1's baselines table (project and name only,
-- never written by a rigor release) is replaced; any row it holds is
-- kept, on its run's machine, pointing at the run's last side (a row
-- whose run has no side could not be compared with, and is dropped).

-- +goose Up
CREATE TABLE baselines_v3 (
    project_id BIGINT NOT NULL REFERENCES projects (id),
    machine_id BIGINT NOT NULL REFERENCES machines (id),
    name       TEXT NOT NULL,
    run_id     BIGINT NOT NULL REFERENCES runs (id),
    side       TEXT NOT NULL,
    updated_ns BIGINT NOT NULL,
    PRIMARY KEY (project_id, machine_id, name),
    FOREIGN KEY (run_id, side) REFERENCES sides (run_id, label)
);

INSERT INTO baselines_v3 (project_id, machine_id, name, run_id, side, updated_ns)
SELECT b.project_id, r.machine_id, b.name, b.run_id, sd.label, b.updated_ns
FROM baselines b
JOIN runs r ON r.id = b.run_id
JOIN sides sd ON sd.run_id = b.run_id
    AND sd.position = (SELECT max(position) FROM sides WHERE run_id = b.run_id);

DROP TABLE baselines;
ALTER TABLE baselines_v3 RENAME TO baselines;
-- (PostgreSQL also renames the primary key's index; SQLite names it
-- after the table itself.)
