// Package load ramps load against a target and says how far it scales.
//
// A ramp runs steps of rising load against an HTTP endpoint or any Go
// function: closed loop (a fixed number of workers, each sending its next
// request when the last ends) or open loop (requests sent on a schedule,
// latency measured from each request's intended start so that coordinated
// omission is counted). Each step has a warm-up and a measured window and
// records successful throughput, the latency distribution in an HDR
// histogram, errors by class, and what the generator itself and the target
// process did, so that a step which measured the generator is marked
// invalid. Amdahl's law and the Universal Scalability Law are fitted to the
// closed-loop steps, and the result names the bottleneck and a headline:
// the highest throughput whose latency met the SLO, not the peak.
//
// Package map, in the order a ramp goes through the files:
//
//   - config.go: Config, its defaults and checks; parse.go: steps, SLOs
//     and status codes as a command line gives them;
//   - target.go: Target, Client, Func and error classes; http.go: HTTP
//     targets (net/http, or h1.go's HTTP/1.1 client for plain http, which
//     sends through h1send.go); closedloop.go: a closed loop run by the
//     target itself, h1loop_linux.go's event loop for plain http on Linux,
//     which parses responses as they arrive with h1feed.go;
//   - ramp.go: Ramp, the steps and when to stop rising;
//   - step.go: one step, its schedule and dispatch; record.go: what the
//     workers record, in HDR histograms; sysstat.go: the CPU the
//     generator and the target process used;
//   - stepresult.go: a step's records as a model.RampStep, its validity
//     and SLO;
//   - fit.go: Amdahl's law and the USL fitted to the steps; diagnose.go:
//     the headline and the bottleneck; openloop.go: the open loop's knee;
//   - shard.go: one generator's share of a ramp run from several
//     machines, and the histograms it keeps; merge.go: MergeShards.
package load
