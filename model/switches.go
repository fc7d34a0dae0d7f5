package model

// SwitchesUnit is the voluntary context switches of a go test benchmark's
// working threads inside its timed window, per operation, read by rigor's
// overlay of package testing from each thread's
// /proc/self/task/TID/status (the threads that did at least a tenth of
// the window's CPU work, the Go runtime's sysmon left out): how often the
// benchmark's work blocked (slept, waited on I/O, on a futex, on another
// thread). Evidence for the verdict's clock, never a result.
const SwitchesUnit = "vcsw/op"
