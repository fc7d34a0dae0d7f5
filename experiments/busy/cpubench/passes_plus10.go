//go:build plus10 && !plus3 && !plus5 && !plus1

package cpubench

// Passes is the passes per operation of this build: 10% more than the base
// side (110 against 100).
const Passes = BasePasses * 110 / 100

// Variant names this build's side.
const Variant = "plus10"
