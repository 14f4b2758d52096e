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

package ec2

import (
	"context"
	"sync"
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestTerminationsDueTogetherShareOneCall(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 3}, Options{})
	var ids []string
	for i := range 20 {
		ids = append(ids, e.launch(t, "many-"+string(rune('a'+i))).ID)
	}
	e.sim.ResetCalls()
	var wg sync.WaitGroup
	states := make([]string, len(ids))
	errs := make([]error, len(ids))
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			states[i], errs[i] = e.client.TerminateInstance(context.Background(), id)
		}()
	}
	wg.Wait()
	for i := range ids {
		if errs[i] != nil || states[i] != StateShuttingDown {
			t.Errorf("%s: state %q, error %v", ids[i], states[i], errs[i])
		}
	}
	if n := e.sim.Calls("TerminateInstances"); n > 2 {
		t.Errorf("20 terminations at once took %d TerminateInstances calls, want them batched", n)
	}
}

func TestABatchRefusedForOneInstanceStillTerminatesTheOthers(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 4}, Options{})
	req := basicLaunch("protected")
	req.DisableAPITermination = true
	protected, err := e.client.RunInstance(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	free := e.launch(t, "free")
	var wg sync.WaitGroup
	var protErr, freeErr error
	var freeState string
	wg.Add(2)
	go func() { defer wg.Done(); _, protErr = e.client.TerminateInstance(context.Background(), protected.ID) }()
	go func() {
		defer wg.Done()
		freeState, freeErr = e.client.TerminateInstance(context.Background(), free.ID)
	}()
	wg.Wait()
	if awserrors.CodeOf(protErr) != "OperationNotPermitted" {
		t.Errorf("the protected instance: %v, want OperationNotPermitted", protErr)
	}
	if freeErr != nil || freeState != StateShuttingDown {
		t.Errorf("the other instance of the batch: %q %v, want it terminated", freeState, freeErr)
	}
}

// TestABatchIAMRefusesForOneInstanceStillTerminatesTheOthers: IAM refuses a whole
// TerminateInstances call (UnauthorizedOperation) when it denies one of its instances;
// that instance alone gets the refusal, the others of the batch are terminated.
func TestABatchIAMRefusesForOneInstanceStillTerminatesTheOthers(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 5}, Options{})
	denied, free := e.launch(t, "untagged"), e.launch(t, "owned")
	e.sim.InjectFault(ec2sim.Fault{Operation: "TerminateInstances", Code: "UnauthorizedOperation", HTTPStatus: 403,
		InstanceID: denied.ID, Message: "You are not authorized to perform this operation."})
	var wg sync.WaitGroup
	var deniedErr, freeErr error
	var freeState string
	wg.Add(2)
	go func() { defer wg.Done(); _, deniedErr = e.client.TerminateInstance(context.Background(), denied.ID) }()
	go func() {
		defer wg.Done()
		freeState, freeErr = e.client.TerminateInstance(context.Background(), free.ID)
	}()
	wg.Wait()
	if awserrors.KindOf(deniedErr) != awserrors.KindAuth || awserrors.CodeOf(deniedErr) != "UnauthorizedOperation" {
		t.Errorf("the denied instance: %v, want UnauthorizedOperation", deniedErr)
	}
	if freeErr != nil || freeState != StateShuttingDown {
		t.Errorf("the other instance of the batch: %q %v, want it terminated", freeState, freeErr)
	}
}
