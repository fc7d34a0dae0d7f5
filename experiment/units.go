package experiment

// LiveKeys returns, in order, the keys of the units that can still be
// measured: what a Sampler's Units returns. key gives a unit's key and
// whether it is still live (it has not failed).
func LiveKeys[U any](units []U, key func(U) (string, bool)) []string {
	var keys []string
	for _, u := range units {
		if k, ok := key(u); ok {
			keys = append(keys, k)
		}
	}
	return keys
}
