// Package history finds where a benchmark's results changed across
// commits: Apache Otava's windowed E-divisive means with a t-test
// (deterministic: no permutations), per series of one benchmark's metric
// on one machine and branch, with the Benjamini-Hochberg procedure across
// series, and an online check of a new result against the segment since
// the last change. It computes only; reading the store and printing are
// the caller's.
package history
