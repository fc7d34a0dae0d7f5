package sortcost

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"testing"
)

// input returns n ints in the given order: random (a seeded generator,
// values below n), sorted (0, 1, ... n-1) or reversed (n, n-1, ... 1).
func input(n int, order string) []int {
	s := make([]int, n)
	r := rand.New(rand.NewPCG(16, 16))
	for i := range s {
		switch order {
		case "random":
			s[i] = r.IntN(n)
		case "sorted":
			s[i] = i
		case "reversed":
			s[i] = n - i
		}
	}
	return s
}

// BenchmarkSort times each sorting routine of sort and slices on n ints
// in each order, copy of the input included (Copy alone is the first
// row), with no timer calls in the loop.
func BenchmarkSort(b *testing.B) {
	routines := []struct {
		name string
		sort func([]int)
	}{
		{"Copy", func([]int) {}},
		{"sort.Ints", sort.Ints},
		{"slices.Sort", slices.Sort[[]int]},
		{"slices.SortFunc", func(s []int) { slices.SortFunc(s, func(a, b int) int { return a - b }) }},
		{"sort.Slice", func(s []int) { sort.Slice(s, func(i, j int) bool { return s[i] < s[j] }) }},
		{"sort.Sort", func(s []int) { sort.Sort(sort.IntSlice(s)) }},
		{"sort.Stable", func(s []int) { sort.Stable(sort.IntSlice(s)) }},
		{"sort.SliceStable", func(s []int) { sort.SliceStable(s, func(i, j int) bool { return s[i] < s[j] }) }},
	}
	for _, r := range routines {
		for _, n := range []int{100, 1024} {
			for _, order := range []string{"random", "sorted", "reversed"} {
				src := input(n, order)
				data := make([]int, n)
				b.Run(fmt.Sprintf("%s/n=%d/%s", r.name, n, order), func(b *testing.B) {
					for b.Loop() {
						copy(data, src)
						r.sort(data)
					}
				})
			}
		}
	}
}

// BenchmarkStrings times sort.Strings on n decimal strings in each order
// (random: the decimals of a seeded permutation).
func BenchmarkStrings(b *testing.B) {
	for _, n := range []int{100, 1024} {
		for _, order := range []string{"random", "sorted", "reversed"} {
			var src []string
			switch order {
			case "random":
				for _, v := range rand.New(rand.NewPCG(16, 16)).Perm(n) {
					src = append(src, strconv.Itoa(v))
				}
			case "sorted", "reversed":
				for i := range n {
					src = append(src, strconv.Itoa(i))
				}
				sort.Strings(src)
				if order == "reversed" {
					slices.Reverse(src)
				}
			}
			data := make([]string, n)
			b.Run(fmt.Sprintf("sort.Strings/n=%d/%s", n, order), func(b *testing.B) {
				for b.Loop() {
					copy(data, src)
					sort.Strings(data)
				}
			})
		}
	}
}
