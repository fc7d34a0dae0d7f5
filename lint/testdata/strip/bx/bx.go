// Package bx declares an alias of testing.B in another package.
package bx

import "testing"

type B = testing.B
