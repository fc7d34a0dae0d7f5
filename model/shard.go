package model

// A Shard says that a run measured one part of a suite of benchmarks
// split across machines (rigor ab --shard INDEX/COUNT), so that rigor
// merge can tell a complete set of shards from one with a part missing.
type Shard struct {
	// Index is the shard's number, from 0 to Count-1.
	Index int `json:"index"`
	Count int `json:"count"`
	// Split names the rule that assigned the benchmarks to shards:
	// "hash" (rendezvous hashing of each benchmark's name) or "costs"
	// (balanced by the costs of an earlier run, CostsDigest).
	Split string `json:"split"`
	// CostsDigest is the SHA-256 of the costs the split was balanced by,
	// when Split is "costs".
	CostsDigest string `json:"costs_digest,omitempty"`
	// Selected is how many top-level benchmarks the whole suite has
	// (every shard's together), and Digest the SHA-256 of their sorted
	// keys ("pkg.BenchmarkName", one per line): every shard of one suite
	// has the same.
	Selected int    `json:"selected"`
	Digest   string `json:"digest"`
	// Benchmarks are this shard's top-level benchmarks, their keys
	// ("pkg.BenchmarkName"), sorted.
	Benchmarks []string `json:"benchmarks"`
	// Config is a hash of every flag that shards of one suite must
	// share (the revisions, the build settings, the analysis options),
	// which rigor merge compares.
	Config string `json:"config"`
	// Options are the values of the flags that decide a verdict
	// (correction, alpha, noise, ...), by flag name: rigor merge
	// analyses with them unless given its own.
	Options map[string]string `json:"options,omitempty"`
}

// A Machine is one result directory that a merged run (rigor merge)
// took samples from: a machine, in one session. Sample.Machine indexes
// Run.Machines from 1.
type Machine struct {
	// Dir is the result directory, as given to rigor merge.
	Dir string `json:"dir"`
	// ID is the run's ID; Hostname and CPUModel come from its
	// environment.
	ID       string `json:"id,omitempty"`
	Hostname string `json:"hostname,omitempty"`
	CPUModel string `json:"cpu_model,omitempty"`
	// Shard is the run's shard index, -1 when it was not a shard.
	Shard int `json:"shard"`
	// Rounds is how many rounds it ran; its rounds are numbered after
	// those of the machines before it in the merged run.
	Rounds int `json:"rounds"`
}
