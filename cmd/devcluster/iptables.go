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
	"fmt"
	"slices"
	"strings"
)

// isolateChain drops anything a pod sends to an address that is neither a pod nor the
// node: forwarding is on (the CNI bridge plugin needs it for Service traffic between
// pods) and nothing is masqueraded, so without this a pod's packet to the outside
// would still leave the machine, only its answer would not come back.
const isolateChain = "EC2OP-ISOLATE"

var iptablesTables = []string{"filter", "nat", "mangle"}

// ourChain reports whether a chain is one the node's components create: the kubelet's
// and kube-proxy's KUBE-*, the CNI plugins' CNI-*, and ours.
func ourChain(chain string) bool {
	return strings.HasPrefix(chain, "KUBE-") || strings.HasPrefix(chain, "CNI-") || chain == isolateChain
}

// iptablesChains lists "binary table chain" for every chain of IPv4 and IPv6.
func iptablesChains() ([]string, error) {
	var out []string
	for _, bin := range []string{"iptables", "ip6tables"} {
		for _, table := range iptablesTables {
			rules, err := sh(bin, "-w", "-t", table, "-S")
			if err != nil {
				return nil, err
			}
			for _, line := range strings.Split(rules, "\n") {
				if f := strings.Fields(line); len(f) >= 2 && (f[0] == "-N" || f[0] == "-P") {
					out = append(out, bin+" "+table+" "+f[1])
				}
			}
		}
	}
	return out, nil
}

// ensureIsolation puts the drop rule first in FORWARD.
func ensureIsolation() error {
	if _, err := sh("iptables", "-w", "-t", "filter", "-S", isolateChain); err != nil {
		if _, err := sh("iptables", "-w", "-N", isolateChain); err != nil {
			return err
		}
		if _, err := sh("iptables", "-w", "-A", isolateChain, "-s", podCIDR, "!", "-d", podCIDR, "-j", "DROP"); err != nil {
			return err
		}
	}
	if _, err := sh("iptables", "-w", "-C", "FORWARD", "-j", isolateChain); err != nil {
		_, err = sh("iptables", "-w", "-I", "FORWARD", "1", "-j", isolateChain)
		return err
	}
	return nil
}

// removeChains deletes every chain of the node's components that did not exist before
// the node first came up: first the rules of other chains that jump to them, then the
// chains. kube-proxy --cleanup removes only its own chains; the kubelet's stay
// (KUBE-FIREWALL, KUBE-KUBELET-CANARY, KUBE-IPTABLES-HINT) unless removed here.
func removeChains(before []string) error {
	for _, bin := range []string{"iptables", "ip6tables"} {
		for _, table := range iptablesTables {
			if err := removeTableChains(bin, table, before); err != nil {
				return err
			}
		}
	}
	return nil
}

func removeTableChains(bin, table string, before []string) error {
	rules, err := sh(bin, "-w", "-t", table, "-S")
	if err != nil {
		return err
	}
	var chains []string
	for _, line := range strings.Split(rules, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "-N" && ourChain(f[1]) && !slices.Contains(before, bin+" "+table+" "+f[1]) {
			chains = append(chains, f[1])
		}
	}
	if len(chains) == 0 {
		return nil
	}
	for _, line := range strings.Split(rules, "\n") {
		f := splitRule(line)
		if len(f) < 4 || f[0] != "-A" {
			continue
		}
		if j := slices.Index(f, "-j"); j > 0 && j+1 < len(f) && slices.Contains(chains, f[j+1]) && !slices.Contains(chains, f[1]) {
			del := append([]string{"-w", "-t", table, "-D"}, f[1:]...)
			if _, err := sh(bin, del...); err != nil {
				return fmt.Errorf("remove jump %s: %w", line, err)
			}
		}
	}
	for _, c := range chains {
		if _, err := sh(bin, "-w", "-t", table, "-F", c); err != nil {
			return err
		}
	}
	for _, c := range chains {
		if _, err := sh(bin, "-w", "-t", table, "-X", c); err != nil {
			return err
		}
	}
	return nil
}

// splitRule splits a line of iptables -S into arguments: comments are double-quoted
// and may hold spaces, and the quotes are not part of the argument.
func splitRule(line string) []string {
	var out []string
	var cur strings.Builder
	inQuote, inArg := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && inQuote && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
		case c == '"':
			inQuote, inArg = !inQuote, true
		case c == ' ' && !inQuote:
			if inArg {
				out = append(out, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		out = append(out, cur.String())
	}
	return out
}
