package ec2

import "sort"

// sortedKeys returns the keys of m in order, so that requests are deterministic and
// EC2's idempotency check sees identical parameters on a retry.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
