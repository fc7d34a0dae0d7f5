// Package benchlab is the string-building experiment of seed 003, copied
// verbatim: Build joins strings with += (the default build) or with a
// strings.Builder (build tag optimized). BenchmarkElided is the deliberately
// broken benchmark whose work the compiler removes; BenchmarkKept is its
// corrected twin. rigor's A/B runs and elision checks use it as a fixture:
// the two sides differ only in the build tag.
package benchlab
