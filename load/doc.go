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
package load
