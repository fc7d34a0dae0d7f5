package execbench

import (
	"fmt"
	"strings"

	"github.com/rigorbench/rigor/model"
)

// leftovers is what one command's runs left behind once they ended:
// processes still running in the run's process group, or holding its
// output pipe open.
type leftovers struct {
	runs, left, held int
	// groups are the process groups left running (not killed), to check
	// at the end; names names the processes of the first.
	groups []int
	names  []string
	scans  int // groupMembers calls made to find names
}

// maxScans bounds the reads of /proc made to name what one command left
// (each reads every process's stat).
const maxScans = 3

// maxLeftGroups bounds the process groups kept to check at the end of a
// run of many runs.
const maxLeftGroups = 10000

// leftBehind counts run m of side si of u (nil: it did not run to its
// end), and names, the first time, the processes it left running, on the
// log.
func (s *session) leftBehind(u *unit, si int, m *measurement) {
	if m == nil {
		return
	}
	l := &u.left[si]
	l.runs++
	if m.group == 0 && !m.heldOutput {
		return
	}
	if m.group != 0 {
		if l.names == nil && l.scans < maxScans {
			// The first time: name them. On Linux none named is a group
			// of zombies that init has not reaped yet, nothing left.
			l.scans++
			if l.names = groupMembers(m.group); len(l.names) == 0 && canName {
				l.names = nil
				return
			}
		}
		l.left++
		if s.cfg.KillLeftovers {
			killPgid(m.group)
		} else if len(l.groups) < maxLeftGroups {
			l.groups = append(l.groups, m.group)
		}
	} else {
		l.held++
	}
	if l.left+l.held > 1 {
		return
	}
	msg := fmt.Sprintf("%s ended and left processes running", s.what(u, si))
	switch {
	case m.group == 0:
		msg += ": its output was still held open by a process it started (outside its process group, so it cannot be named or stopped); the run ended when the command did"
	case len(l.names) > 0:
		msg += " in its process group (" + joinMax(l.names, 3) + ")"
		fallthrough
	default:
		if s.cfg.KillLeftovers {
			msg += "; --kill-leftovers kills them as each run ends"
		} else {
			msg += "; each run ends when the command does, without them; --kill-leftovers kills them"
		}
	}
	fmt.Fprintln(s.cfg.Log, "rigor:", msg)
}

// leftoversNotes adds a note per command whose runs left processes
// running, saying how many runs did and how many were still running at
// the end.
func (s *session) leftoversNotes() {
	for _, u := range s.units {
		for si, l := range u.left {
			if l.left == 0 && l.held == 0 {
				continue
			}
			var parts []string
			ev := map[string]float64{"runs": float64(l.runs), "leftover_runs": float64(l.left), "held_output_runs": float64(l.held)}
			if l.left > 0 {
				t := fmt.Sprintf("%s left processes running in its process group after it ended in %d of %d runs", s.what(u, si), l.left, l.runs)
				if len(l.names) > 0 {
					t += " (" + joinMax(l.names, 3) + ")"
				}
				t += ": each run was timed to its command's end, without them"
				if s.cfg.KillLeftovers {
					t += "; --kill-leftovers killed them as each run ended"
				} else {
					alive := 0
					for _, g := range l.groups {
						if groupAlive(g) {
							alive++
						}
					}
					ev["still_running_groups"] = float64(alive)
					if alive > 0 {
						t += fmt.Sprintf("; %d of those process groups were still running when the run ended; --kill-leftovers kills them as each run ends", alive)
					}
				}
				parts = append(parts, t)
			}
			if l.held > 0 {
				parts = append(parts, fmt.Sprintf("in %d of %d runs a process it started outside its process group held its output open after it ended, which the run did not wait for", l.held, l.runs))
			}
			b := &s.run.Benchmarks[u.index]
			b.Notes = append(b.Notes, model.Note{Kind: model.NoteProcess, Source: source, Topic: "leftover", Benchmark: u.key, Side: s.labels[si],
				Evidence: ev, Text: upper(strings.Join(parts, "; ")) + "."})
		}
	}
}

// upper returns s with its first byte upper-cased when it is a letter.
func upper(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
