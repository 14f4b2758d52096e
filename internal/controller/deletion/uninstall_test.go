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

package deletion

import (
	"errors"
	"testing"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// A CRD the uninstall guard cannot read fails the pass with its own Ready reason, so
// that a stuck deletion says why.
func TestAnUnreadableCRDIsReportedAsCRDUnreadable(t *testing.T) {
	if got := pass.ReasonFor(crdUnreadable(errors.New("forbidden"))); got != computev1alpha1.ReasonCRDUnreadable {
		t.Errorf("a failed read of a CRD is reported as %s, want %s", got, computev1alpha1.ReasonCRDUnreadable)
	}
}
