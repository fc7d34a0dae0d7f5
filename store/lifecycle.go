package store

import (
	"errors"
	"fmt"

	"github.com/rigorbench/rigor/model"
)

// A Plan is what one run does with named baselines: compare its result
// with one, store its result as one, and replace the one it was compared
// with when the comparison passed.
type Plan struct {
	Compare      string // compare the result with this baseline; "" for none
	Save         string // store the result as this baseline; "" for none
	UpdateOnPass bool   // replace Compare with the result when the run passed
}

// A Lifecycle carries one run's baselines from before it is measured to
// after its verdict: Open loads the baseline to compare with, Against
// builds the comparison, Finish stores what the plan says.
type Lifecycle struct {
	Plan
	// Store is the module's store; nil when the plan uses no baseline.
	Store *Store
	// Base is the baseline Plan.Compare, loaded; nil without one.
	Base *model.Run
}

// Open checks p's names, opens the store of the module that holds dir
// and loads the baseline to compare with. label is the label of the side
// being measured, which a baseline compared with cannot share. A plan
// without baselines opens nothing.
func (p Plan) Open(dir, label string) (*Lifecycle, error) {
	l := &Lifecycle{Plan: p}
	if p.UpdateOnPass && p.Compare == "" {
		return nil, errors.New("updating a baseline on pass needs a baseline to compare with")
	}
	if p.Save == "" && p.Compare == "" {
		return l, nil
	}
	for _, n := range []string{p.Save, p.Compare} {
		if n != "" {
			if err := CheckName(n); err != nil {
				return nil, err
			}
		}
	}
	root, err := ModuleRoot(dir)
	if err != nil {
		return nil, err
	}
	l.Store = Open(root)
	if p.Compare == "" {
		return l, nil
	}
	if l.Base, err = l.Store.Load(p.Compare); err != nil {
		return nil, err
	}
	if p.Compare == label {
		return nil, fmt.Errorf("a baseline cannot be named %q, the label of the side being measured", label)
	}
	return l, nil
}

// Against returns run compared with the loaded baseline (see the function
// Against), or run itself when the plan compares with none.
func (l *Lifecycle) Against(run *model.Run) (*model.Run, error) {
	if l.Base == nil {
		return run, nil
	}
	return Against(l.Base, l.Compare, run)
}

// Finish stores run as the plan says, once its comparison has a verdict:
// as Save, and, with UpdateOnPass, as Compare when failed (how many
// comparisons failed the gate) is zero. It returns what it did, one
// sentence each, in order, also when it fails part way. A partial run
// (interrupted) must never reach Finish.
func (l *Lifecycle) Finish(run *model.Run, failed int) (done []string, err error) {
	if l.Save != "" {
		if err := l.Store.Save(l.Save, run); err != nil {
			return done, err
		}
		done = append(done, fmt.Sprintf("saved baseline %s (%s)", l.Save, l.Store.BaselinePath(l.Save)))
	}
	if !l.UpdateOnPass {
		return done, nil
	}
	if failed > 0 {
		return append(done, fmt.Sprintf("baseline %s kept: %d %s regressed", l.Compare, failed, plural(failed, "comparison", "comparisons"))), nil
	}
	if err := l.Store.Save(l.Compare, run); err != nil {
		return done, err
	}
	return append(done, fmt.Sprintf("the run passed; baseline %s updated", l.Compare)), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
