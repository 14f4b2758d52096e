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

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// attribute reads one instance attribute's string value.
func attribute(t *testing.T, c *ec2.Client, id string, name types.InstanceAttributeName) *ec2.DescribeInstanceAttributeOutput {
	t.Helper()
	out, err := c.DescribeInstanceAttribute(simtest.Ctx(t), &ec2.DescribeInstanceAttributeInput{InstanceId: aws.String(id), Attribute: name})
	if err != nil {
		t.Fatalf("DescribeInstanceAttribute(%s): %v", name, err)
	}
	return out
}

// Stop protection (RunInstances DisableApiStop, ModifyInstanceAttribute
// DisableApiStop) makes StopInstances fail with EC2's OperationNotPermitted,
// and DescribeInstanceAttribute reports it.
func TestStopProtection(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 40})
	in := basicRun()
	in.DisableApiStop = aws.Bool(true)
	id := runOne(t, c, in)
	describeOne(t, c, id)
	if v := attribute(t, c, id, types.InstanceAttributeNameDisableApiStop).DisableApiStop; !aws.ToBool(v.Value) {
		t.Fatal("disableApiStop not reported")
	}
	_, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}})
	simtest.WantCode(t, err, "OperationNotPermitted")
	if simtest.ErrMessage(err) != "The instance '"+id+"' may not be stopped. Modify its 'disableApiStop' instance attribute and try again." {
		t.Fatalf("message = %q", simtest.ErrMessage(err))
	}
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{InstanceId: aws.String(id),
		DisableApiStop: &types.AttributeBooleanValue{Value: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatal(err)
	}
	// Stop protection does not stop termination.
	in = basicRun()
	in.DisableApiStop = aws.Bool(true)
	other := runOne(t, c, in)
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{other}}); err != nil {
		t.Fatal(err)
	}
	spot := basicRun()
	spot.DisableApiStop = aws.Bool(true)
	spot.InstanceMarketOptions = &types.InstanceMarketOptionsRequest{MarketType: types.MarketTypeSpot}
	_, err = c.RunInstances(simtest.Ctx(t), spot)
	simtest.WantCode(t, err, "InvalidParameterCombination")
}

// ShutdownFromOS follows the instance-initiated shutdown behaviour: stop by
// default, terminate when set (at launch or by ModifyInstanceAttribute), even
// with stop or termination protection, with the InstanceInitiatedShutdown
// state reason.
func TestShutdownFromOSFollowsShutdownBehavior(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 41})
	in := basicRun()
	in.DisableApiStop = aws.Bool(true)
	stopper := runOne(t, c, in)
	if v := attribute(t, c, stopper, types.InstanceAttributeNameInstanceInitiatedShutdownBehavior).InstanceInitiatedShutdownBehavior; aws.ToString(v.Value) != "stop" {
		t.Fatalf("default shutdown behaviour = %q", aws.ToString(v.Value))
	}
	describeOne(t, c, stopper)
	if err := sim.ShutdownFromOS(stopper); err != nil {
		t.Fatal(err)
	}
	inst := describeOne(t, c, stopper)
	if inst.State.Name != types.InstanceStateNameStopped || aws.ToString(inst.StateReason.Code) != "Client.InstanceInitiatedShutdown" ||
		aws.ToString(inst.StateReason.Message) != "Client.InstanceInitiatedShutdown: Instance initiated shutdown" {
		t.Fatalf("after OS shutdown: %s %+v", inst.State.Name, inst.StateReason)
	}
	if err := sim.ShutdownFromOS(stopper); err == nil {
		t.Fatal("a stopped instance shut itself down")
	}

	in = basicRun()
	in.InstanceInitiatedShutdownBehavior = types.ShutdownBehaviorTerminate
	in.DisableApiTermination = aws.Bool(true)
	term := runOne(t, c, in)
	if v := attribute(t, c, term, types.InstanceAttributeNameInstanceInitiatedShutdownBehavior).InstanceInitiatedShutdownBehavior; aws.ToString(v.Value) != "terminate" {
		t.Fatalf("shutdown behaviour = %q", aws.ToString(v.Value))
	}
	if err := sim.ShutdownFromOS(term); err != nil {
		t.Fatal(err)
	}
	if inst := describeOne(t, c, term); inst.State.Name != types.InstanceStateNameTerminated || aws.ToString(inst.StateReason.Code) != "Client.InstanceInitiatedShutdown" {
		t.Fatalf("after OS shutdown: %s %+v", inst.State.Name, inst.StateReason)
	}

	// ModifyInstanceAttribute switches the behaviour.
	flip := runOne(t, c, basicRun())
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{InstanceId: aws.String(flip),
		InstanceInitiatedShutdownBehavior: &types.AttributeValue{Value: aws.String("terminate")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{InstanceId: aws.String(flip),
		InstanceInitiatedShutdownBehavior: &types.AttributeValue{Value: aws.String("hibernate")}}); simtest.ErrCode(err) != "InvalidParameterValue" {
		t.Fatalf("invalid behaviour: %v", err)
	}
	describeOne(t, c, flip)
	if err := sim.ShutdownFromOS(flip); err != nil {
		t.Fatal(err)
	}
	if inst := describeOne(t, c, flip); inst.State.Name != types.InstanceStateNameTerminated {
		t.Fatalf("after OS shutdown: %s", inst.State.Name)
	}
	bad := basicRun()
	bad.InstanceInitiatedShutdownBehavior = "explode"
	_, err := c.RunInstances(simtest.Ctx(t), bad)
	simtest.WantCode(t, err, "InvalidParameterValue")
}

// Maintenance options: AutoRecovery at launch, ModifyInstanceMaintenanceOptions,
// and DescribeInstances' maintenanceOptions.
func TestMaintenanceOptions(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 42})
	id := runOne(t, c, basicRun())
	if m := describeOne(t, c, id).MaintenanceOptions; m == nil || m.AutoRecovery != types.InstanceAutoRecoveryStateDefault {
		t.Fatalf("default maintenanceOptions = %+v", m)
	}
	in := basicRun()
	in.MaintenanceOptions = &types.InstanceMaintenanceOptionsRequest{AutoRecovery: types.InstanceAutoRecoveryStateDisabled}
	off := runOne(t, c, in)
	if m := describeOne(t, c, off).MaintenanceOptions; m.AutoRecovery != types.InstanceAutoRecoveryStateDisabled {
		t.Fatalf("maintenanceOptions = %+v", m)
	}
	out, err := c.ModifyInstanceMaintenanceOptions(simtest.Ctx(t), &ec2.ModifyInstanceMaintenanceOptionsInput{InstanceId: aws.String(off),
		AutoRecovery: types.InstanceAutoRecoveryStateDefault})
	if err != nil || out.AutoRecovery != types.InstanceAutoRecoveryStateDefault || aws.ToString(out.InstanceId) != off {
		t.Fatalf("ModifyInstanceMaintenanceOptions = %+v, %v", out, err)
	}
	if m := describeOne(t, c, off).MaintenanceOptions; m.AutoRecovery != types.InstanceAutoRecoveryStateDefault {
		t.Fatalf("after modify maintenanceOptions = %+v", m)
	}
	_, err = c.ModifyInstanceMaintenanceOptions(simtest.Ctx(t), &ec2.ModifyInstanceMaintenanceOptionsInput{InstanceId: aws.String(off), AutoRecovery: "sometimes"})
	simtest.WantCode(t, err, "InvalidParameterValue")
	_, err = c.ModifyInstanceMaintenanceOptions(simtest.Ctx(t), &ec2.ModifyInstanceMaintenanceOptionsInput{InstanceId: aws.String("i-0000000000000dead")})
	simtest.WantCode(t, err, "InvalidInstanceID.NotFound")
}

// Private DNS name options: a resource-name hostname is the instance-ID
// based name; ModifyPrivateDnsNameOptions changes the hostname type only on
// a stopped instance.
func TestPrivateDNSNameOptions(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 43})
	in := basicRun()
	in.PrivateDnsNameOptions = &types.PrivateDnsNameOptionsRequest{HostnameType: types.HostnameTypeResourceName,
		EnableResourceNameDnsARecord: aws.Bool(true)}
	id := runOne(t, c, in)
	inst := describeOne(t, c, id)
	o := inst.PrivateDnsNameOptions
	if aws.ToString(inst.PrivateDnsName) != id+".ec2.internal" || o.HostnameType != types.HostnameTypeResourceName ||
		!aws.ToBool(o.EnableResourceNameDnsARecord) || aws.ToBool(o.EnableResourceNameDnsAAAARecord) {
		t.Fatalf("privateDnsName %q options %+v", aws.ToString(inst.PrivateDnsName), o)
	}

	plain := runOne(t, c, basicRun())
	inst = describeOne(t, c, plain)
	ipName := aws.ToString(inst.PrivateDnsName)
	if inst.PrivateDnsNameOptions.HostnameType != types.HostnameTypeIpName || ipName == plain+".ec2.internal" {
		t.Fatalf("default privateDnsName %q options %+v", ipName, inst.PrivateDnsNameOptions)
	}
	_, err := c.ModifyPrivateDnsNameOptions(simtest.Ctx(t), &ec2.ModifyPrivateDnsNameOptionsInput{InstanceId: aws.String(plain),
		PrivateDnsHostnameType: types.HostnameTypeResourceName})
	simtest.WantCode(t, err, "IncorrectInstanceState")
	// The record switches do not need a stopped instance.
	if _, err := c.ModifyPrivateDnsNameOptions(simtest.Ctx(t), &ec2.ModifyPrivateDnsNameOptionsInput{InstanceId: aws.String(plain),
		EnableResourceNameDnsAAAARecord: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if err := sim.StopInstance(plain); err != nil {
		t.Fatal(err)
	}
	describeOne(t, c, plain)
	out, err := c.ModifyPrivateDnsNameOptions(simtest.Ctx(t), &ec2.ModifyPrivateDnsNameOptionsInput{InstanceId: aws.String(plain),
		PrivateDnsHostnameType: types.HostnameTypeResourceName})
	if err != nil || !aws.ToBool(out.Return) {
		t.Fatalf("ModifyPrivateDnsNameOptions = %+v, %v", out, err)
	}
	inst = describeOne(t, c, plain)
	if aws.ToString(inst.PrivateDnsName) != plain+".ec2.internal" || inst.PrivateDnsNameOptions.HostnameType != types.HostnameTypeResourceName ||
		!aws.ToBool(inst.PrivateDnsNameOptions.EnableResourceNameDnsAAAARecord) {
		t.Fatalf("after modify: %q %+v", aws.ToString(inst.PrivateDnsName), inst.PrivateDnsNameOptions)
	}
}

// Outside us-east-1 the resource name is <id>.<region>.compute.internal.
func TestResourceNameOutsideUSEast1(t *testing.T) {
	sim := New(Config{Seed: 44, Region: "eu-west-1"})
	c := newClient(t, sim)
	in := basicRun()
	in.SubnetId = nil
	in.PrivateDnsNameOptions = &types.PrivateDnsNameOptionsRequest{HostnameType: types.HostnameTypeResourceName}
	out, err := c.RunInstances(simtest.Ctx(t), in)
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(out.Instances[0].InstanceId)
	if got := aws.ToString(out.Instances[0].PrivateDnsName); got != id+".eu-west-1.compute.internal" {
		t.Fatalf("privateDnsName = %q", got)
	}
}

// IMDS: InstanceMetadataTags and HttpProtocolIpv6 at launch and through
// ModifyInstanceMetadataOptions, reported by DescribeInstances.
func TestMetadataTagsAndIPv6(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 45})
	id := runOne(t, c, basicRun())
	if md := describeOne(t, c, id).MetadataOptions; md.HttpProtocolIpv6 != types.InstanceMetadataProtocolStateDisabled ||
		md.InstanceMetadataTags != types.InstanceMetadataTagsStateDisabled {
		t.Fatalf("default metadataOptions = %+v", md)
	}
	in := basicRun()
	in.MetadataOptions = &types.InstanceMetadataOptionsRequest{HttpProtocolIpv6: types.InstanceMetadataProtocolStateEnabled,
		InstanceMetadataTags: types.InstanceMetadataTagsStateEnabled}
	on := runOne(t, c, in)
	if md := describeOne(t, c, on).MetadataOptions; md.HttpProtocolIpv6 != types.InstanceMetadataProtocolStateEnabled ||
		md.InstanceMetadataTags != types.InstanceMetadataTagsStateEnabled {
		t.Fatalf("metadataOptions = %+v", md)
	}
	out, err := c.ModifyInstanceMetadataOptions(simtest.Ctx(t), &ec2.ModifyInstanceMetadataOptionsInput{InstanceId: aws.String(id),
		HttpProtocolIpv6: types.InstanceMetadataProtocolStateEnabled, InstanceMetadataTags: types.InstanceMetadataTagsStateEnabled})
	if err != nil || out.InstanceMetadataOptions.HttpProtocolIpv6 != types.InstanceMetadataProtocolStateEnabled {
		t.Fatalf("ModifyInstanceMetadataOptions = %+v, %v", out, err)
	}
	if md := describeOne(t, c, id).MetadataOptions; md.HttpProtocolIpv6 != types.InstanceMetadataProtocolStateEnabled ||
		md.InstanceMetadataTags != types.InstanceMetadataTagsStateEnabled {
		t.Fatalf("after modify metadataOptions = %+v", md)
	}
	_, err = c.ModifyInstanceMetadataOptions(simtest.Ctx(t), &ec2.ModifyInstanceMetadataOptionsInput{InstanceId: aws.String(id), HttpProtocolIpv6: "maybe"})
	simtest.WantCode(t, err, "InvalidParameterValue")
}
