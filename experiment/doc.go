// Package experiment owns the design of rigor's paired experiments, whatever
// produces the samples: the order of the sides within a round and the
// jitter of its iteration count, the stopping rule, the time budget and how
// it is spent, and the results directory that holds every sample as it
// arrives. Samplers plug into it: package gotest runs go test binaries,
// package harness runs the in-process groups of package rigor.
//
// Package map:
//
//   - order.go: counterbalanced side orders (ABBA, Thue-Morse), jitter and
//     the schedule's seeded generator;
//   - stop.go: the stopping rule, defined as what the analysis would say
//     (Unresolved), with the interim significance level of early stops;
//   - rounds.go: the round loop (Loop) that applies the rule, retires
//     benchmarks once they are resolved and keeps to the budget;
//   - budget.go: the time budget, how each phase spent it, and how long a
//     sample should last so that enough pairs fit;
//   - resultsdir.go: atomic writes of run.json and the results files;
//   - units.go: LiveKeys, the keys a Sampler's Units returns.
package experiment
