package credentials

import "strings"

// SafeOwnerTagKey and SafeClusterTagKey are OwnerTagKey and ClusterTagKey in the form
// the operator writes on an instance that exposes its tags in instance metadata,
// where EC2 refuses tag keys with a slash.
const (
	SafeOwnerTagKey   = "ec2-operator.dev:owner-uid"
	SafeClusterTagKey = "ec2-operator.dev:cluster"
)

// withIMDSSafeTwins adds, for every statement whose conditions name the owner or
// cluster tag and that covers instances, a twin on instances with the IMDS-safe keys.
// IAM cannot OR two condition keys within one statement, so the twin is how an
// instance in either form, or one between forms during a migration, stays the
// operator's. Volumes, interfaces and addresses only ever carry the slash form.
func withIMDSSafeTwins(statements []Statement) []Statement {
	out := statements
	for _, st := range statements {
		if !containsResource(st.Resource, ":instance/") || !namesOwnershipKeys(st.Condition) {
			continue
		}
		twin := st
		twin.Sid = st.Sid + "IMDSSafe"
		twin.Resource = []string{"arn:aws:ec2:*:*:instance/*"}
		twin.Condition = map[string]map[string]any{}
		for op, kv := range st.Condition {
			m := map[string]any{}
			for k, v := range kv {
				if keys, ok := v.([]string); ok {
					safe := make([]string, len(keys))
					for i, key := range keys {
						safe[i] = safeKeys(key)
					}
					v = safe
				}
				m[safeKeys(k)] = v
			}
			twin.Condition[op] = m
		}
		out = append(out, twin)
	}
	return out
}

// safeKeys rewrites the owner and cluster tag keys in s to the IMDS-safe form.
func safeKeys(s string) string {
	return strings.NewReplacer(OwnerTagKey, SafeOwnerTagKey, ClusterTagKey, SafeClusterTagKey).Replace(s)
}

// namesOwnershipKeys reports whether a condition names the owner or cluster tag.
func namesOwnershipKeys(cond map[string]map[string]any) bool {
	for _, kv := range cond {
		for k := range kv {
			if safeKeys(k) != k {
				return true
			}
		}
	}
	return false
}

func containsResource(resources []string, part string) bool {
	for _, r := range resources {
		if strings.Contains(r, part) {
			return true
		}
	}
	return false
}
