package sqlstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/rigorbench/rigor/model"
)

// A Machine is a kind of machine that results come from. Its Fingerprint
// is what series are kept apart by, so that results from different
// hardware are never mixed silently: the operating system, the
// architecture and the CPU model. Runs of one fleet of identical CI
// machines share it (their host names, which differ, are kept but are not
// part of it); a machine with another CPU model gets its own series.
type Machine struct {
	Fingerprint   string
	GOOS, GOARCH  string
	CPUModel      string
	Hostname      string
	LogicalCores  int
	MemTotalBytes uint64
}

// String describes the machine in a few words.
func (m Machine) String() string {
	parts := []string{m.Fingerprint}
	if m.GOOS != "" || m.GOARCH != "" {
		parts = append(parts, m.GOOS+"/"+m.GOARCH)
	}
	if m.CPUModel != "" {
		parts = append(parts, m.CPUModel)
	}
	return strings.Join(parts, " ")
}

// MachineOf returns the machine run was measured on: from its environment,
// or, for benchmark files, from their goos, goarch and cpu lines.
func MachineOf(run *model.Run) Machine { return machineOf(run) }

func machineOf(run *model.Run) Machine {
	var m Machine
	if e := run.Env; e != nil {
		m = Machine{GOOS: e.GOOS, GOARCH: e.GOARCH, CPUModel: e.CPUModel, Hostname: e.Hostname,
			LogicalCores: e.LogicalCores, MemTotalBytes: e.MemTotalBytes}
	}
	for _, b := range run.Benchmarks {
		if m.GOOS == "" {
			m.GOOS = b.Config["goos"]
		}
		if m.GOARCH == "" {
			m.GOARCH = b.Config["goarch"]
		}
		if m.CPUModel == "" {
			m.CPUModel = b.Config["cpu"]
		}
	}
	m.CPUModel = strings.Join(strings.Fields(m.CPUModel), " ")
	h := sha256.Sum256([]byte(m.GOOS + "\x00" + m.GOARCH + "\x00" + m.CPUModel))
	m.Fingerprint = hex.EncodeToString(h[:])[:12]
	return m
}

func (s *sqlStore) Machines(ctx context.Context) ([]Machine, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT fingerprint, goos, goarch, cpu_model, hostname, logical_cores, mem_total_bytes
		FROM machines ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.location, err)
	}
	defer rows.Close()
	var out []Machine
	for rows.Next() {
		var m Machine
		var mem int64
		if err := rows.Scan(&m.Fingerprint, &m.GOOS, &m.GOARCH, &m.CPUModel, &m.Hostname, &m.LogicalCores, &mem); err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.location, err)
		}
		m.MemTotalBytes = uint64(mem)
		out = append(out, m)
	}
	return out, rows.Err()
}
