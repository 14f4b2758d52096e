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
	"fmt"
	"maps"
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// oracleScenarios are the instance lifecycle as the controller drives it, each with
// what EC2's API reference says the answer is.
func oracleScenarios() []oracleScenario {
	return []oracleScenario{
		{"tags are on the instance from its launch", func(t *testing.T, o oracle) error {
			req := o.launchRequest("tags-at-launch")
			inst := o.launch(t, req.ClientToken)
			got, err := o.fresh(o.ctx(t), inst.ID)
			if err != nil {
				return err
			}
			for k, v := range req.Tags {
				if got.Tags[k] != v {
					return fmt.Errorf("tag %s is %q, launched with %q", k, got.Tags[k], v)
				}
			}
			return nil
		}},
		{"a client token makes a launch idempotent", func(t *testing.T, o oracle) error {
			first := o.launch(t, "idempotent")
			second := o.launch(t, "idempotent")
			if second.ID != first.ID {
				return fmt.Errorf("the second launch with one client token made %s, the first %s", second.ID, first.ID)
			}
			return nil
		}},
		{"instances are found by client token", func(t *testing.T, o oracle) error {
			inst := o.launch(t, "found-by-token")
			found, err := o.client.FindInstances(o.ctx(t), InstanceFilter{ClientToken: "found-by-token"})
			if err != nil {
				return err
			}
			if len(found) != 1 || found[0].ID != inst.ID {
				return fmt.Errorf("found %d instances for the token, want %s", len(found), inst.ID)
			}
			return nil
		}},
		{"instances are found by tag", func(t *testing.T, o oracle) error {
			inst := o.launch(t, "found-by-tag")
			found, err := o.client.FindInstances(o.ctx(t), InstanceFilter{Tags: map[string]string{TagName: o.launchRequest("found-by-tag").Tags[TagName], "team": "blue"}})
			if err != nil {
				return err
			}
			if len(found) != 1 || found[0].ID != inst.ID {
				return fmt.Errorf("found %d instances for the tags, want %s", len(found), inst.ID)
			}
			return nil
		}},
		{"a terminated instance cannot start", func(t *testing.T, o oracle) error {
			ctx := o.ctx(t)
			inst := o.launch(t, "terminated-start")
			if _, err := o.client.TerminateInstance(ctx, inst.ID); err != nil {
				return err
			}
			if err := o.waitState(ctx, inst.ID, StateTerminated); err != nil {
				return err
			}
			return wantError(o.client.StartInstance(ctx, inst.ID), awserrors.KindIncorrectState, "IncorrectInstanceState")
		}},
		{"an instance stops, starts and terminates", func(t *testing.T, o oracle) error {
			ctx := o.ctx(t)
			inst := o.launch(t, "stop-start")
			steps := []struct {
				state string
				call  func() error
			}{
				{StateRunning, func() error { return nil }},
				{StateStopped, func() error { return o.client.StopInstance(ctx, inst.ID) }},
				{StateRunning, func() error { return o.client.StartInstance(ctx, inst.ID) }},
			}
			for _, s := range steps {
				if err := s.call(); err != nil {
					return err
				}
				if err := o.waitState(ctx, inst.ID, s.state); err != nil {
					return err
				}
			}
			if _, err := o.client.TerminateInstance(ctx, inst.ID); err != nil {
				return err
			}
			// A terminated instance stays visible for about an hour.
			return o.waitState(ctx, inst.ID, StateTerminated)
		}},
		{"tags change on a running instance", func(t *testing.T, o oracle) error {
			ctx := o.ctx(t)
			inst := o.launch(t, "tags-change")
			if err := o.client.CreateTags(ctx, []string{inst.ID}, map[string]string{"team": "green", "tier": "web"}); err != nil {
				return err
			}
			if err := o.client.DeleteTags(ctx, []string{inst.ID}, []string{"tier"}); err != nil {
				return err
			}
			got, err := o.fresh(ctx, inst.ID)
			if err != nil {
				return err
			}
			want := maps.Clone(o.launchRequest("tags-change").Tags)
			want["team"] = "green"
			if !maps.Equal(got.Tags, want) {
				return fmt.Errorf("tags %v, want %v", got.Tags, want)
			}
			return nil
		}},
		{"the type changes only while stopped", func(t *testing.T, o oracle) error {
			ctx := o.ctx(t)
			inst := o.launch(t, "type-change")
			if err := o.waitState(ctx, inst.ID, StateRunning); err != nil {
				return err
			}
			if err := wantError(o.client.ModifyInstanceType(ctx, inst.ID, "t3.small"), awserrors.KindIncorrectState, "IncorrectInstanceState"); err != nil {
				return err
			}
			if err := o.client.StopInstance(ctx, inst.ID); err != nil {
				return err
			}
			if err := o.waitState(ctx, inst.ID, StateStopped); err != nil {
				return err
			}
			if err := o.client.ModifyInstanceType(ctx, inst.ID, "t3.small"); err != nil {
				return err
			}
			got, err := o.fresh(ctx, inst.ID)
			if err != nil {
				return err
			}
			if got.InstanceType != "t3.small" {
				return fmt.Errorf("type %s after the change, want t3.small", got.InstanceType)
			}
			return nil
		}},
		{"an unknown instance is not found", func(t *testing.T, o oracle) error {
			return wantError(o.client.StopInstance(o.ctx(t), "i-0000000000000dead"), awserrors.KindNotFound, "InvalidInstanceID.NotFound")
		}},
		{"a malformed instance ID is malformed", func(t *testing.T, o oracle) error {
			return wantError(o.client.StopInstance(o.ctx(t), "i-nothex!"), awserrors.KindInvalidInput, "InvalidInstanceID.Malformed")
		}},
		{"an unknown image is refused at launch", func(t *testing.T, o oracle) error {
			req := o.launchRequest("unknown-image")
			req.ImageID = "ami-0000000000000dead"
			_, err := o.client.RunInstance(o.ctx(t), req)
			return wantError(err, awserrors.KindInvalidInput, "InvalidAMIID.NotFound")
		}},
	}
}
