package credentials

import "k8s.io/apimachinery/pkg/api/equality"

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// specEqual compares two unstructured specs semantically.
func specEqual(a, b any) bool {
	return equality.Semantic.DeepEqual(normalize(a), normalize(b))
}

// normalize turns the typed slices and maps of a locally built object into the
// []any / map[string]any shapes the API server returns.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalize(e)
		}
		return out
	case []string:
		return normalize(toAny(t))
	default:
		return v
	}
}
