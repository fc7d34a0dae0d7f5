//go:build plus5 && !plus3 && !plus10 && !plus1

package cpubench

// Passes is the passes per operation of this build: 5% more than the base
// side (105 against 100).
const Passes = BasePasses * 105 / 100

// Variant names this build's side.
const Variant = "plus5"
