//go:build !plus1 && !plus3 && !plus5 && !plus10

package cpubench

// Passes is the passes per operation of this build: the base side.
const Passes = BasePasses

// Variant names this build's side.
const Variant = "base"
