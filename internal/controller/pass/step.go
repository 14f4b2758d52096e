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

package pass

import "time"

// Step is what one step of a pass decided. Every step of the launch, converge and
// delete paths returns one; finish, at the pass's one exit, turns it into the failure
// report (Ready, an event, a metric), the spread of the requeue and controller-runtime's
// result. A step never reports a failure or picks a requeue of its own.
type Step struct {
	Kind Kind
	// after is when the object comes back (zero: only on a change, for stepDone).
	After time.Duration
	// spread adds up to a tenth of after at random: objects waiting for the same
	// budget or the same account must not all come back at once.
	Spread bool
	// failures are what failed, for stepFailed, in the order they happened.
	Failures []Failure
	// meanwhile keeps what the pass is moving (the power state) in view in the
	// report of failures that did not stop it.
	Meanwhile bool
	// err is an error that is not EC2's to report (a status write that failed): it
	// goes to controller-runtime as it is, for its backoff.
	Err error
}

// Kind says whether a pass goes on and, if not, how it comes back.
type Kind int

const (
	// KindContinue lets the pass go on to its next step.
	KindContinue Kind = iota
	// KindDone ends the pass; it comes back after the step's duration.
	KindDone
	// KindAgain ends the pass and comes back through the per-object backoff at once
	// (a new client token was recorded, say).
	KindAgain
	// KindFailed ends the pass with failures: reported, then backed off, unless the
	// client's own budget only held the calls back.
	KindFailed
	// KindError ends the pass with an error that is not about EC2.
	KindError
)

// Failure is one thing EC2 (or the controller's own check) refused in a pass: what the
// operator was doing, and the classified error.
type Failure struct {
	Action string
	Err    error
}

// Proceed lets the pass go on.
func Proceed() Step { return Step{Kind: KindContinue} }

// DoneAfter ends the pass; it comes back after d (zero: only on a change).
func DoneAfter(d time.Duration) Step { return Step{Kind: KindDone, After: d} }

// WaitSpread ends the pass and comes back after d and up to a tenth more.
func WaitSpread(d time.Duration) Step { return Step{Kind: KindDone, After: d, Spread: true} }

// Again ends the pass and comes back through the per-object backoff.
func Again() Step { return Step{Kind: KindAgain} }

// Failed ends the pass with one failure.
func Failed(action string, err error) Step {
	return Step{Kind: KindFailed, Failures: []Failure{{Action: action, Err: err}}}
}

// Errored ends the pass with an error that is not EC2's (nil continues).
func Errored(err error) Step {
	if err == nil {
		return Proceed()
	}
	return Step{Kind: KindError, Err: err}
}

// Ends reports whether the pass ends with this step.
func (st Step) Ends() bool { return st.Kind != KindContinue }
