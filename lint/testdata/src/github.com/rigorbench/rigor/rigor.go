// Package rigor is a stub of rigor's API for the analyzers' tests: the same
// names and signatures, no measurement.
package rigor

import "time"

type Group struct{ Name string }

func NewGroup(name string) *Group                                { return &Group{Name: name} }
func (g *Group) Bench(name string, fn func(b *B))                {}
func (g *Group) BenchParallel(name string, n int, fn func(b *B)) {}
func (g *Group) BenchScaling(name string, fn func(b *B))         {}
func (g *Group) Baseline(variant string)                         {}

type B struct{}

func Iter[T any](b *B, f func() T)                                    {}
func (b *B) Iter(f func())                                            {}
func IterWithSetup[I, O any](b *B, setup func() I, routine func(I) O) {}
func (b *B) IterCustom(f func(iters int) time.Duration)               {}
func Sink[T any](v T)                                                 {}
func Opaque[T any](v T) T                                             { return v }
