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
	"encoding/base64"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

func TestRequestLogRedactsUserData(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 1})
	in := basicRun()
	in.UserData = aws.String(base64.StdEncoding.EncodeToString([]byte("export DB_PASSWORD=hunter2")))
	runOne(t, c, in)

	var found bool
	for _, r := range sim.Requests() {
		if r.Operation != "RunInstances" {
			continue
		}
		found = true
		if got := r.Params.Get("UserData"); got != "(redacted)" {
			t.Errorf("user data logged as %q", got)
		}
		for k, v := range r.Params {
			if strings.Contains(strings.Join(v, ""), *in.UserData) {
				t.Errorf("parameter %s carries the user data", k)
			}
		}
	}
	if !found {
		t.Fatal("RunInstances was not logged")
	}
	if got := string(simInstanceUserData(t, sim)); got != "export DB_PASSWORD=hunter2" {
		t.Errorf("redaction must not change what the instance gets: %q", got)
	}
}

func simInstanceUserData(t *testing.T, sim *Sim) []byte {
	t.Helper()
	all := sim.Instances()
	if len(all) != 1 {
		t.Fatalf("want one instance, got %d", len(all))
	}
	return all[0].UserData
}
