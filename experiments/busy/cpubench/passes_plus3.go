//go:build plus3 && !plus5 && !plus10 && !plus1

package cpubench

// Passes is the passes per operation of this build: 3% more than the base
// side (103 against 100).
const Passes = BasePasses * 103 / 100

// Variant names this build's side.
const Variant = "plus3"
