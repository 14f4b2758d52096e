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

package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// table prints the phases as the README's performance table.
func table(phases []phase) string {
	var b strings.Builder
	fmt.Fprintln(&b, "| scenario | phase | N | wall | floor | calls per instance by action | all calls/inst | apiserver writes/inst | RequestLimitExceeded | peak RSS | reconciles: p50, p90, p99 |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, p := range phases {
		actions := simtest.SortedKeys(p.calls)
		var calls []string
		for _, a := range actions {
			calls = append(calls, fmt.Sprintf("%s %.2f", a, p.perInstance(a)))
		}
		floor := "-"
		if p.floor > 0 {
			floor = fmt.Sprintf("%.1f s (%+.0f %%)", p.floor.Seconds(), 100*(p.wall.Seconds()/p.floor.Seconds()-1))
		}
		wall := fmt.Sprintf("%.1f s", p.wall.Seconds())
		if p.accepted > 0 {
			wall += fmt.Sprintf(" (objects accepted in %.1f s)", p.accepted.Seconds())
		}
		reconciles := p.reconciles
		if reconciles == "" {
			reconciles = "-"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %.3f | %.2f | %d | %.0f MiB | %s |\n", p.scenario, p.name, p.n,
			wall, floor, strings.Join(calls, ", "), float64(p.totalCalls())/float64(p.n),
			float64(p.writes)/float64(p.n), sumOf(p.throttledBy), p.rssMiB, reconciles)
	}
	return b.String()
}

// launchLog lists the RunInstances calls by client token with their answers.
func launchLog(sim *ec2sim.Sim) string {
	byToken := map[string][]string{}
	for _, r := range sim.Requests() {
		if r.Operation == "RunInstances" {
			answer := r.ErrorCode
			if answer == "" {
				answer = fmt.Sprint(r.HTTPStatus)
			}
			byToken[r.Params.Get("ClientToken")] = append(byToken[r.Params.Get("ClientToken")], answer)
		}
	}
	var out []string
	for token, answers := range byToken {
		if len(answers) > 1 {
			out = append(out, token+": "+strings.Join(answers, ","))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}
