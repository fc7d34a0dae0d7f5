//go:build plus1 && !plus3 && !plus5 && !plus10

package cpubench

// Passes is the passes per operation of this build: 1% more than the base
// side (101 against 100).
const Passes = BasePasses * 101 / 100

// Variant names this build's side.
const Variant = "plus1"
