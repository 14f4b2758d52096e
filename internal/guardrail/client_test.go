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

package guardrail

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// clientMethods are the methods of ec2.Client, the interface the controller is handed.
func clientMethods() []reflect.Method {
	t := reflect.TypeFor[ec2.Client]()
	out := make([]reflect.Method, t.NumMethod())
	for i := range out {
		out[i] = t.Method(i)
	}
	return out
}

// TestEveryClientMethodHasAGuardrailDecision holds Decisions to the interface: a method
// added to ec2.Client without a decision fails here (and does not compile in Client).
func TestEveryClientMethodHasAGuardrailDecision(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range clientMethods() {
		seen[m.Name] = true
		if _, ok := Decisions[m.Name]; !ok {
			t.Errorf("ec2.Client.%s has no guardrail decision in Decisions", m.Name)
		}
	}
	for name := range Decisions {
		if !seen[name] {
			t.Errorf("Decisions names %s, which ec2.Client does not have", name)
		}
	}
}

// callWithZeroArguments calls a method of c by name with a background context and the
// zero value of every other argument, and returns its error result, if any.
func callWithZeroArguments(c ec2.Client, name string) error {
	m := reflect.ValueOf(c).MethodByName(name)
	args := make([]reflect.Value, m.Type().NumIn())
	for i := range args {
		in := m.Type().In(i)
		if in == reflect.TypeFor[context.Context]() {
			args[i] = reflect.ValueOf(context.Background())
		} else {
			args[i] = reflect.Zero(in)
		}
	}
	var out []reflect.Value
	if m.Type().IsVariadic() {
		out = m.CallSlice(args)
	} else {
		out = m.Call(args)
	}
	for _, v := range out {
		if err, ok := v.Interface().(error); ok && err != nil {
			return err
		}
	}
	return nil
}

// TestNoChangeLeavesForARegionTheAccountDoesNotAllow calls every method of the guarded
// client in a region outside the account's: every Checked and RegionOnly request is
// refused without a call to EC2, and reads, hints and the ends of things pass.
func TestNoChangeLeavesForARegionTheAccountDoesNotAllow(t *testing.T) {
	e := newEmulated(t)
	g := New(e.client, Rules{Guardrails: &computev1alpha1.Guardrails{Regions: []string{"eu-*"}}, Region: "us-west-2"}, Owner{Namespace: "team-a", Name: "web", UID: "u-1"})
	for _, m := range clientMethods() {
		e.sent()
		err := callWithZeroArguments(g, m.Name)
		var refusal *Refusal
		refused := errors.As(err, &refusal)
		switch Decisions[m.Name] {
		case Checked, RegionOnly:
			if !refused || !strings.Contains(err.Error(), `the region "us-west-2" is not allowed by spec.guardrails.regions (eu-*)`) {
				t.Errorf("%s in us-west-2: %v, want a refusal naming the region", m.Name, err)
			}
			if sent := e.sent(); len(sent) > 0 {
				t.Errorf("%s was refused but called EC2: %v", m.Name, sent)
			}
		default:
			if refused {
				t.Errorf("%s (%v) was refused: %v", m.Name, Decisions[m.Name], err)
			}
		}
	}
}

// TestWithoutGuardrailsOnlyOwnershipIsChecked checks an account without guardrails:
// a launch that leaves everything to EC2 is sent, and the only refusal left is of a
// resource another object owns.
func TestWithoutGuardrailsOnlyOwnershipIsChecked(t *testing.T) {
	e := newEmulated(t)
	g := New(e.client, Rules{Region: "us-west-2"}, Owner{Namespace: "team-a", Name: "web", UID: "u-1", Cluster: "c-1"})
	inst, err := g.RunInstance(context.Background(), ec2.LaunchRequest{ClientToken: "t", ImageID: ec2sim.DefaultImageID, InstanceType: "t3.micro"})
	if err != nil {
		t.Fatalf("a launch without guardrails: %v", err)
	}
	other := ec2.OwnershipTags("team-b", "db", "u-2", "c-1")
	if err := e.client.CreateTags(context.Background(), []string{inst.ID}, other); err != nil {
		t.Fatal(err)
	}
	e.sent()
	err = g.CreateTags(context.Background(), []string{inst.ID}, map[string]string{"team": "a"})
	var refusal *Refusal
	if !errors.As(err, &refusal) || refusal.Reason != OwnershipRefused || !strings.Contains(err.Error(), "EC2Instance team-b/db's") {
		t.Fatalf("tagging another object's instance: %v, want an ownership refusal naming it", err)
	}
	if n := count(e.sent(), "CreateTags"); n != 0 {
		t.Errorf("CreateTags sent %d times for another object's instance", n)
	}
}
