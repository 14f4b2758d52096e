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

package main

import (
	"reflect"
	"testing"
)

// The tear-down deletes jump rules by repeating them to iptables -D, so a rule's
// quoted comment must come back as one argument without its quotes.
func TestSplitRuleKeepsQuotedCommentsAsOneArgument(t *testing.T) {
	testCases := []struct {
		name, line string
		want       []string
	}{
		{"plain", "-A FORWARD -j EC2OP-ISOLATE", []string{"-A", "FORWARD", "-j", "EC2OP-ISOLATE"}},
		{"comment", `-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD`,
			[]string{"-A", "FORWARD", "-m", "comment", "--comment", "kubernetes forwarding rules", "-j", "KUBE-FORWARD"}},
		{"escaped quote", `-A X -m comment --comment "a \"b\" c" -j Y`, []string{"-A", "X", "-m", "comment", "--comment", `a "b" c`, "-j", "Y"}},
		{"empty comment", `-A X --comment "" -j Y`, []string{"-A", "X", "--comment", "", "-j", "Y"}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := splitRule(tc.line); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("splitRule(%q) = %q, want %q", tc.line, got, tc.want)
			}
		})
	}
}

// Clean-up removes only the chains of the node's components.
func TestOurChainsAreTheNodesComponentsOnly(t *testing.T) {
	for chain, want := range map[string]bool{"KUBE-FIREWALL": true, "CNI-HOSTPORT-DNAT": true, isolateChain: true,
		"FORWARD": false, "DOCKER": false, "LIBVIRT_FWO": false} {
		if got := ourChain(chain); got != want {
			t.Errorf("ourChain(%s) = %v, want %v", chain, got, want)
		}
	}
}

// Every component image has a distinct, version-tagged name and files to pack.
func TestComponentImagesAreTaggedAndHaveFiles(t *testing.T) {
	imgs := componentImages()
	if len(imgs) < 10 {
		t.Fatalf("%d component images registered", len(imgs))
	}
	for i, img := range imgs {
		if i > 0 && imgs[i-1].Ref >= img.Ref {
			t.Errorf("images not in a stable order: %s before %s", imgs[i-1].Ref, img.Ref)
		}
		if len(img.Files) == 0 || len(img.Entrypoint) == 0 {
			t.Errorf("image %s has no files or no entrypoint", img.Ref)
		}
	}
}
