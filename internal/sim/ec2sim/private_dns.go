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

// parsePrivateDNSOptions validates RunInstances' PrivateDnsNameOptions:
// HostnameType (ip-name or resource-name) and whether DNS A and AAAA queries
// for the resource name are answered.
func parsePrivateDNSOptions(p params, o *InstanceOptions) *apiError {
	if v := p.str("HostnameType"); v != "" {
		if err := checkHostnameType(v); err != nil {
			return err
		}
		o.HostnameType = v
	}
	o.ResourceNameDNSA, _ = p.boolean("EnableResourceNameDnsARecord")
	o.ResourceNameDNSAAAA, _ = p.boolean("EnableResourceNameDnsAAAARecord")
	return nil
}

// checkHostnameType validates a HostnameType value. The wording is a guess.
func checkHostnameType(v string) *apiError {
	if v != "ip-name" && v != "resource-name" {
		return invalidValue("Value (%s) for parameter HostnameType is invalid. Valid values are: ip-name, resource-name", v)
	}
	return nil
}

// instanceHostname is the private DNS name of an instance: the IP name
// (ip-10-0-0-1.ec2.internal) or, with hostname type resource-name, the
// instance ID based name ("Amazon EC2 instance hostname types", EC2 User
// Guide): i-0123456789abcdef0.ec2.internal in us-east-1 and
// i-0123456789abcdef0.<region>.compute.internal elsewhere.
func (s *Sim) instanceHostname(r *InstanceRecord) string {
	if r.hostnameType() != "resource-name" {
		return s.privateDNS(r.PrivateIP)
	}
	if s.cfg.Region == "us-east-1" {
		return r.ID + ".ec2.internal"
	}
	return r.ID + "." + s.cfg.Region + ".compute.internal"
}

// modifyPrivateDnsNameOptions implements ModifyPrivateDnsNameOptions.
// Changing the hostname type requires a stopped instance (the User Guide's
// "Change resource based naming options" has you stop the instance first;
// EC2 refuses otherwise with IncorrectInstanceState, whose message here is
// our guess). The DNS record switches may change in any live state.
func (s *Sim) modifyPrivateDnsNameOptions(p params, x *xmlBuilder) *apiError {
	in, err := s.lookupInstance(p.str("InstanceId"))
	if err != nil {
		return err
	}
	if in.State == StateTerminated || in.State == StateShuttingDown {
		return clientErr("IncorrectInstanceState", "The instance '%s' is not in a valid state for this operation.", in.ID)
	}
	t := p.str("PrivateDnsHostnameType")
	if t != "" {
		if err := checkHostnameType(t); err != nil {
			return err
		}
		if t != in.hostnameType() && in.State != StateStopped {
			return clientErr("IncorrectInstanceState", "The instance '%s' is not in the 'stopped' state.", in.ID)
		}
	}
	a, hasA := p.boolean("EnableResourceNameDnsARecord")
	aaaa, hasAAAA := p.boolean("EnableResourceNameDnsAAAARecord")
	if t != "" {
		in.HostnameType = t
		in.PrivateDNSName = s.instanceHostname(&in.InstanceRecord)
	}
	if hasA {
		in.ResourceNameDNSA = a
	}
	if hasAAAA {
		in.ResourceNameDNSAAAA = aaaa
	}
	x.boolLeaf("return", true)
	return nil
}
