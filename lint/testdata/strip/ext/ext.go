// Package ext has a pure function its own package never calls: only its
// external test does, which learns it is pure from the first pass over
// ext (lint.RootAnalyzers).
package ext

func Square(x int) int { return x * x }
