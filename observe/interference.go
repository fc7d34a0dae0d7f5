package observe

import (
	"fmt"
	"strings"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// Interference returns notes about what besides the measured code used
// the machine over obs: other processes, steal, load above the cores, CPU
// pressure, a changing clock. It is a pure function of the observations.
func Interference(obs []model.Observation) []model.Note {
	return interferenceOf(aggregateOf(obs))
}

func interferenceOf(a aggregate) []model.Note {
	if a.dur <= 0 {
		return nil
	}
	var busy []string
	ev := map[string]float64{}
	if a.otherDu > 0 && a.other >= otherBusy {
		busy = append(busy, fmt.Sprintf("other processes used %s of the CPU during the run", words.Pct(a.other)))
		ev["other_cpu"] = a.other
	}
	if a.steal >= stealShare {
		busy = append(busy, fmt.Sprintf("the hypervisor took %s of the CPU time away (steal)", words.Pct(a.steal)))
		ev["steal"] = a.steal
	}
	// The load average counts the benchmark's own threads and, over its
	// minute, the past: a quiet run started 30 s after another process
	// stopped read 2.7 on 2 CPUs. Where other processes' CPU time was
	// measured, it says what the load average only suggests.
	if a.cpus > 0 && a.load1 > float64(a.cpus)+0.5 && a.otherDu == 0 {
		busy = append(busy, fmt.Sprintf("the load average was %.1f on %d logical CPUs", a.load1, a.cpus))
		ev["load1"], ev["cpus"] = a.load1, float64(a.cpus)
	}
	if a.hasPSI[0] && a.psi[0] >= cpuPressure {
		busy = append(busy, fmt.Sprintf("runnable tasks waited for a CPU %.0f%% of the time", a.psi[0]))
		ev["cpu_pressure"] = a.psi[0]
	}
	var notes []model.Note
	if len(busy) > 0 {
		notes = append(notes, model.Note{Kind: model.NoteMachine, Topic: TopicBusy, Source: source, Evidence: ev,
			Text: "the machine was busy: " + strings.Join(busy, "; ") + "; the numbers may reflect the machine, not the code"})
	}
	if a.freqMin > 0 && (a.freqMax-a.freqMin)/a.freqMin >= freqChange {
		notes = append(notes, model.Note{Kind: model.NoteMachine, Topic: TopicFrequency, Source: source,
			Evidence: map[string]float64{"freq_min_mhz": a.freqMin, "freq_max_mhz": a.freqMax},
			Text: fmt.Sprintf("the CPU frequency changed during the run (%.0f to %.0f MHz); the numbers may reflect the clock, not the code",
				a.freqMin, a.freqMax)})
	}
	return notes
}
