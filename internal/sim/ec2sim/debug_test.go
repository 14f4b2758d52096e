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

package ec2sim

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestDebugEndpointReportsCallsInstancesAndAcceptsOutOfBandActions(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 70})
	id := runOne(t, c, basicRun())
	get := func(path string, v any) int {
		t.Helper()
		rec := httptest.NewRecorder()
		sim.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
			t.Fatalf("GET %s: %v: %s", path, err, rec.Body.String())
		}
		return rec.Code
	}
	post := func(path string) int {
		rec := httptest.NewRecorder()
		sim.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, nil))
		return rec.Code
	}

	var calls map[string]int
	if get("/_sim/calls", &calls); calls["RunInstances"] != 1 {
		t.Fatalf("calls = %v", calls)
	}
	var reqs []Request
	if get("/_sim/requests", &reqs); len(reqs) != 1 || reqs[0].Operation != "RunInstances" || reqs[0].Params.Get("ImageId") != DefaultImageID {
		t.Fatalf("requests = %+v", reqs)
	}
	if code := post("/_sim/instances/" + id + "/stop"); code != http.StatusOK {
		t.Fatalf("stop status %d", code)
	}
	var insts []InstanceRecord
	if get("/_sim/instances", &insts); len(insts) != 1 || insts[0].ID != id || insts[0].State != StateStopped {
		// StoppingDuration is zero, so reading the list completes the stop.
		t.Fatalf("instances = %+v", insts)
	}
	if code := post("/_sim/instances/i-0000000000000dead/terminate"); code != http.StatusConflict {
		t.Fatalf("terminate unknown status %d", code)
	}
	if code := post("/_sim/reset-calls"); code != http.StatusOK || len(sim.CallCounts()) != 0 || len(sim.Requests()) != 0 {
		t.Fatalf("reset: status %d counts %v", code, sim.CallCounts())
	}
}
