/*
Copyright 2026 The ec2-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package memory

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestVanishTrackerCountsWithinTheWindowAndForgets(t *testing.T) {
	var v Vanished
	t0 := time.Unix(1_700_000_000, 0)
	if _, isNew, n := v.Note("a/r", "u1", t0); !isNew || n != 1 {
		t.Fatalf("first note: new %v count %d", isNew, n)
	}
	if first, isNew, n := v.Note("a/r", "u1", t0.Add(time.Minute)); isNew || n != 1 || !first.Equal(t0) {
		t.Fatalf("second note of the same object: first %v new %v count %d", first, isNew, n)
	}
	v.Note("a/r", "u2", t0.Add(2*time.Minute))
	v.Note("b/r", "u3", t0.Add(2*time.Minute))
	if _, _, n := v.Note("a/r", "u4", t0.Add(VanishWindow+90*time.Second)); n != 2 {
		t.Errorf("count after the window: %d, want 2 (u2 and u4)", n)
	}
	v.SetPaused("a/r", "u2", true)
	if changed := v.Forget("u2"); changed["a/r"] != 0 || len(changed) != 1 {
		t.Errorf("forget: %v", changed)
	}
	for _, u := range []string{"u3", "u4"} {
		v.Forget(types.UID(u))
	}
	if len(v.seen) != 0 || len(v.paused) != 0 {
		t.Errorf("maps not empty after every object was forgotten: %v %v", v.seen, v.paused)
	}
}
