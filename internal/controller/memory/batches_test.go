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
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The batch store's rules are pure: a batch is sent once in a process however many
// members ask at once, never after it was abandoned, and never abandoned after it
// launched. The launch phase's use of them is tested against the emulator
// (internal/controller's instanceset_batch_test.go).

func TestABatchIsSentOnceHoweverManyMembersAskAtOnce(t *testing.T) {
	var b Batches
	var sends atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	answers := make([]map[int32]string, 20)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i], _ = b.Send("t", func() (map[int32]string, error) {
				sends.Add(1)
				<-release
				return map[int32]string{0: "i-0", 1: "i-1"}, nil
			})
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := sends.Load(); n != 1 {
		t.Fatalf("%d sends, want 1", n)
	}
	for i, a := range answers {
		if a[1] != "i-1" {
			t.Errorf("member %d got %v", i, a)
		}
	}
	if b.Abandon("t") {
		t.Error("a launched batch was abandoned")
	}
	if state, launched := b.State("t"); state != BatchLaunched || launched[0] != "i-0" {
		t.Errorf("state %v, %v", state, launched)
	}
}

func TestAnAbandonedBatchIsNeverSentAndAFailedSendIsRetried(t *testing.T) {
	var b Batches
	if _, err := b.Send("t", func() (map[int32]string, error) { return nil, errors.New("capacity") }); err == nil {
		t.Fatal("the send's error was lost")
	}
	if state, _ := b.State("t"); state != BatchUnknown {
		t.Fatalf("after a failed send the state is %v, want unknown (the next member sends again)", state)
	}
	if !b.Abandon("t") {
		t.Fatal("an unsent batch was not abandoned")
	}
	_, err := b.Send("t", func() (map[int32]string, error) {
		t.Error("an abandoned batch was sent")
		return nil, nil
	})
	if !errors.Is(err, ErrBatchAbandoned) {
		t.Errorf("send after abandon: %v", err)
	}
	if b.Found("t", map[int32]string{0: "i-0"}) {
		t.Error("a lookup made an abandoned batch launched")
	}
}

func TestALookupThatFindsNothingIsNotRepeatedButASendFollows(t *testing.T) {
	var b Batches
	looks := 0
	look := func() (map[int32]string, error) { looks++; return map[int32]string{}, nil }
	b.Look("t", look)
	b.Look("t", look)
	if looks != 1 || !b.Looked("t") {
		t.Fatalf("%d lookups, looked %v; want one", looks, b.Looked("t"))
	}
	launched, err := b.Send("t", func() (map[int32]string, error) { return map[int32]string{0: "i-0"}, nil })
	if err != nil || launched[0] != "i-0" {
		t.Fatalf("send after an empty lookup: %v %v", launched, err)
	}
}

func TestAnAbandonmentWaitsForTheSendInFlight(t *testing.T) {
	var b Batches
	inFlight := make(chan struct{})
	release := make(chan struct{})
	go b.Send("t", func() (map[int32]string, error) {
		close(inFlight)
		<-release
		return map[int32]string{0: "i-0"}, nil
	})
	<-inFlight
	abandoned := make(chan bool)
	go func() { abandoned <- b.Abandon("t") }()
	select {
	case <-abandoned:
		t.Fatal("the abandonment did not wait for the send in flight")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if <-abandoned {
		t.Error("a batch whose send succeeded was abandoned")
	}
}
