package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/rigorbench/rigor/internal/redact"
	"github.com/rigorbench/rigor/model"
)

// A run's command line is stored without its secrets (package redact):
// rigor masks them where it captures its command, and Record masks them
// again for a run made by an older rigor (rigor import of its run.json).
// The run's UID is its content's as given, so that such a run imported
// twice is still one run.

// redactVersion is the schema version of the Go migration that masks
// the secrets in the commands recorded before it (runs.command and the
// command_line of runs.env_json and machines.env_json).
const redactVersion = 8

// redactedEnv returns env with its command line's secrets masked (a copy;
// nil for nil).
func redactedEnv(env *model.Env) *model.Env {
	if env == nil {
		return nil
	}
	e := *env
	e.CommandLine = redact.Args(e.CommandLine)
	return &e
}

// redactStored masks the secrets in every stored command: runs.command,
// and command_line in runs.env_json and machines.env_json. A row is
// rewritten only when something in it was masked; the other fields of an
// env_json are kept as they are.
func redactStored(ctx context.Context, tx *sql.Tx) error {
	type row struct {
		id           int64
		command, env string
	}
	read := func(query string, withCommand bool) ([]row, error) {
		rows, err := tx.QueryContext(ctx, query)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []row
		for rows.Next() {
			var r row
			dest := []any{&r.id, &r.env}
			if withCommand {
				dest = append(dest, &r.command)
			}
			if err := rows.Scan(dest...); err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, rows.Err()
	}
	for _, table := range []struct {
		name, query, update string
		withCommand         bool
	}{
		{"runs", `SELECT id, env_json, command FROM runs`, `UPDATE runs SET env_json = $1, command = $2 WHERE id = $3`, true},
		{"machines", `SELECT id, env_json FROM machines`, `UPDATE machines SET env_json = $1 WHERE id = $2`, false},
	} {
		rows, err := read(table.query, table.withCommand)
		if err != nil {
			return fmt.Errorf("masking the secrets of %s' commands: %w", table.name, err)
		}
		for _, r := range rows {
			env, envChanged, err := redactEnvJSON(r.env)
			if err != nil {
				return fmt.Errorf("masking the secrets of %s %d's command: %w", table.name, r.id, err)
			}
			if !table.withCommand {
				if envChanged {
					if _, err := tx.ExecContext(ctx, table.update, env, r.id); err != nil {
						return fmt.Errorf("masking the secrets of %s %d's command: %w", table.name, r.id, err)
					}
				}
				continue
			}
			command, cmdChanged, err := redactCommandJSON(r.command)
			if err != nil {
				return fmt.Errorf("masking the secrets of %s %d's command: %w", table.name, r.id, err)
			}
			if envChanged || cmdChanged {
				if _, err := tx.ExecContext(ctx, table.update, env, command, r.id); err != nil {
					return fmt.Errorf("masking the secrets of %s %d's command: %w", table.name, r.id, err)
				}
			}
		}
	}
	return nil
}

// redactCommandJSON masks the secrets of a command stored as a JSON
// array of words; changed says whether there were any.
func redactCommandJSON(s string) (out string, changed bool, err error) {
	var words []string
	if s == "" || s == "null" {
		return s, false, nil
	}
	if err := json.Unmarshal([]byte(s), &words); err != nil {
		return s, false, err
	}
	masked := redact.Args(words)
	if slices.Equal(masked, words) {
		return s, false, nil
	}
	b, err := json.Marshal(masked)
	return string(b), true, err
}

// redactEnvJSON masks the secrets of the command_line of an environment
// stored as a JSON object, keeping its other fields as they are.
func redactEnvJSON(s string) (out string, changed bool, err error) {
	var fields map[string]json.RawMessage
	if s == "" || s == "null" {
		return s, false, nil
	}
	if err := json.Unmarshal([]byte(s), &fields); err != nil {
		return s, false, err
	}
	cl, ok := fields["command_line"]
	if !ok {
		return s, false, nil
	}
	masked, changed, err := redactCommandJSON(string(cl))
	if err != nil || !changed {
		return s, false, err
	}
	fields["command_line"] = json.RawMessage(masked)
	b, err := json.Marshal(fields)
	return string(b), true, err
}
