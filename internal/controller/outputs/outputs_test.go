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

package outputs

import (
	"maps"
	"testing"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

func TestOutputsDataComeFromStatusWithEveryKey(t *testing.T) {
	t.Parallel()
	base := func() map[string]string {
		return map[string]string{"instanceId": "i-0123456789abcdef0", "privateIp": "10.0.0.5", "publicIp": "", "ipv6Address": "",
			"privateDnsName": "ip-10-0-0-5.ec2.internal", "publicDnsName": "", "elasticIp": "", "availabilityZone": "us-east-1a", "region": "us-east-1"}
	}
	status := func() computev1alpha1.EC2InstanceStatus {
		return computev1alpha1.EC2InstanceStatus{InstanceID: "i-0123456789abcdef0", PrivateIP: "10.0.0.5",
			PrivateDNSName: "ip-10-0-0-5.ec2.internal", AvailabilityZone: "us-east-1a", Region: "us-east-1"}
	}
	cases := []struct {
		name   string
		mutate func(*computev1alpha1.EC2InstanceStatus)
		want   func(map[string]string)
	}{
		{"no public address: the keys are there, empty", func(*computev1alpha1.EC2InstanceStatus) {}, func(map[string]string) {}},
		{"IPv6 of the primary interface, not of another", func(st *computev1alpha1.EC2InstanceStatus) {
			st.NetworkInterfaces = []computev1alpha1.NetworkInterfaceStatus{
				{NetworkInterfaceID: "eni-2", DeviceIndex: 1, IPv6Addresses: []string{"2600:1f18::2"}},
				{NetworkInterfaceID: "eni-1", DeviceIndex: 0, IPv6Addresses: []string{"2600:1f18::1", "2600:1f18::9"}},
			}
		}, func(w map[string]string) { w["ipv6Address"] = "2600:1f18::1" }},
		{"an Elastic IP waiting for the instance is not its address yet", func(st *computev1alpha1.EC2InstanceStatus) {
			st.ElasticIP = &computev1alpha1.ElasticIPStatus{AllocationID: "eipalloc-1", PublicIP: "203.0.113.7"}
		}, func(map[string]string) {}},
		{"an associated Elastic IP is", func(st *computev1alpha1.EC2InstanceStatus) {
			st.PublicIP, st.PublicDNSName = "203.0.113.7", "ec2-203-0-113-7.compute-1.amazonaws.com"
			st.ElasticIP = &computev1alpha1.ElasticIPStatus{AllocationID: "eipalloc-1", PublicIP: "203.0.113.7", AssociationID: "eipassoc-1"}
		}, func(w map[string]string) {
			w["publicIp"], w["elasticIp"], w["publicDnsName"] = "203.0.113.7", "203.0.113.7", "ec2-203-0-113-7.compute-1.amazonaws.com"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, want := status(), base()
			c.mutate(&st)
			c.want(want)
			if got := Data(&st); !maps.Equal(got, want) {
				t.Errorf("outputs %v, want %v", got, want)
			}
		})
	}
}
