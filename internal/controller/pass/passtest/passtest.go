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

// Package passtest helps the phase packages' table tests: a scope for an object
// that has not been written yet, and a log of the events a pass emits.
package passtest

import (
	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// EventLog records the reasons and notes of the events a pass emits, in order.
type EventLog struct{ Reasons, Notes []string }

// Eventf implements pass.EventRecorder.
func (l *EventLog) Eventf(_ runtime.Object, _ runtime.Object, _, reason, _, note string, args ...any) {
	l.Reasons = append(l.Reasons, reason)
	if len(args) > 0 {
		note = args[0].(string)
	}
	l.Notes = append(l.Notes, note)
}

// Scope is the scope of a pass over an object named web in namespace team-a, at
// generation 1, with no EC2 client; its events go to rec (nil: only the log).
func Scope(rec pass.EventRecorder) *pass.Scope {
	obj := &computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a", Generation: 1}}
	return pass.NewScope(obj, logr.Discard(), rec)
}
