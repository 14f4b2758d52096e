package controller

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func reconcileRequest(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
}

func TestFailureBackoffSpreadsObjectsThatFailedTogether(t *testing.T) {
	b := newFailureBackoff(time.Second, time.Minute)
	seen := map[time.Duration]bool{}
	for i := range 20 {
		item := reconcileRequest(fmt.Sprintf("obj-%d", i))
		b.When(item) // the first failure of each
		d := b.When(item)
		if d < 2*time.Second || d > 2*time.Second+2*time.Second/5 {
			t.Errorf("second delay %s, want 2s plus up to a fifth", d)
		}
		seen[d] = true
	}
	if len(seen) < 10 {
		t.Errorf("20 objects that failed together come back at %d distinct times; want them spread", len(seen))
	}
}
