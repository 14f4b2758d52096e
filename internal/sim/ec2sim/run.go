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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"
)

// reservation groups the instances of one RunInstances call.
type reservation struct {
	id          string
	instanceIDs []string
}

// tokenRecord remembers what a ClientToken launched and with which
// parameters, for RunInstances idempotency.
type tokenRecord struct {
	reservationID string
	fingerprint   string
}

// fingerprint summarises the request parameters that define a launch, so a
// retry with the same token can be told apart from a different request.
// Action/Version/ClientToken/DryRun do not change what is launched.
func fingerprint(p params) string {
	h := sha256.New()
	for _, k := range sortedKeys(p.v) {
		switch k {
		case "Action", "Version", "ClientToken", "DryRun":
			continue
		}
		vs := append([]string(nil), p.v[k]...)
		sort.Strings(vs)
		fmt.Fprintf(h, "%s=%s\n", k, strings.Join(vs, "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// runInstances implements RunInstances, including ClientToken idempotency:
// the same token with the same parameters returns the original reservation
// without launching anything.
func (s *Sim) runInstances(p params, x *xmlBuilder) *apiError {
	token := p.str("ClientToken")
	if token != "" {
		if rec, ok := s.tokens[token]; ok {
			if rec.fingerprint != fingerprint(p) {
				return clientErr("IdempotentParameterMismatch", "Arguments on this idempotent request are inconsistent with arguments used in previous request(s).")
			}
			res := s.reservations[rec.reservationID]
			for _, id := range res.instanceIDs {
				if in, ok := s.instances[id]; !ok || in.State == StateTerminated || in.State == StateShuttingDown {
					return clientErr("IdempotentInstanceTerminated", "The client token '%s' was used for instance '%s', which has been terminated.", token, id)
				}
			}
			s.writeReservation(x, res)
			return nil
		}
	}
	spec, err := s.parseLaunch(p)
	if err != nil {
		return err
	}
	if err := s.checkPlacement(spec.subnet.AZ, spec.instanceType); err != nil {
		return err
	}
	count, capErr := s.launchCount(spec)
	if capErr != nil {
		return capErr
	}
	res := &reservation{id: s.newID("r")}
	s.reservations[res.id] = res
	for i := 0; i < count; i++ {
		in := s.launch(spec, token, res.id, i)
		res.instanceIDs = append(res.instanceIDs, in.ID)
	}
	if token != "" {
		s.tokens[token] = &tokenRecord{reservationID: res.id, fingerprint: fingerprint(p)}
	}
	s.writeReservation(x, res)
	return nil
}

// launch creates one instance and its volumes in the pending state.
func (s *Sim) launch(spec *launchSpec, token, reservationID string, index int) *instance {
	now := s.now()
	in := &instance{since: now, visibleAt: now.Add(s.cfg.VisibilityDelay)}
	r := &in.InstanceRecord
	r.ID = s.newID("i")
	r.ReservationID = reservationID
	r.State = StatePending
	r.InstanceType = spec.instanceType
	r.ImageID = spec.image.ID
	r.Architecture = spec.image.Architecture
	r.SubnetID, r.VPCID, r.AZ = spec.subnet.ID, spec.subnet.VPCID, spec.subnet.AZ
	r.SecurityGroupIDs = append([]string(nil), spec.groupIDs...)
	r.Tags = maps.Clone(spec.instanceTags)
	if r.Tags == nil {
		r.Tags = map[string]string{}
	}
	r.ClientToken = token
	r.KeyName = spec.keyName
	r.UserData = spec.userData
	r.DisableAPITermination = spec.disableAPITerm
	r.MetadataOptions = spec.metadata
	r.Monitoring = spec.monitoring
	s.applyPlacement(spec, r, index)
	r.RootDeviceName = spec.image.RootDeviceName
	r.LaunchTime = now
	r.AmiLaunchIndex = index
	eni := s.newLaunchInterface(spec)
	r.PrivateIP = eni.PrivateIPs[0]
	r.InstanceOptions = spec.options
	r.PrivateDNSName = s.instanceHostname(r)
	s.launchSeq++
	in.seq, in.publicOnStart = s.launchSeq, spec.publicIP
	if spec.publicIP {
		r.PublicIP = s.allocatePublicIP()
		r.PublicDNSName = s.publicDNS(r.PublicIP)
	}
	r.NetworkInterfaceID = s.newID("eni")
	r.MACAddress = fmt.Sprintf("0e:%02x:%02x:%02x:%02x:%02x", s.idRand.IntN(256), s.idRand.IntN(256), s.idRand.IntN(256), s.idRand.IntN(256), s.idRand.IntN(256))
	s.registerInterface(eni, r)
	if spec.spot {
		r.Spot, r.SpotInstanceType, r.SpotInterruptionBehavior, r.SpotMaxPrice = true, spec.spotType, spec.spotBehavior, spec.spotMaxPrice
		r.SpotRequestID = "sir-" + s.newID("x")[2:10]
	}
	for _, vs := range append([]volumeSpec{spec.root}, spec.extraVolumes...) {
		v := s.createVolume(vs, r.AZ, spec.volumeTags, r.ID, now)
		r.BlockDevices = append(r.BlockDevices, BlockDevice{DeviceName: vs.device, VolumeID: v.ID, DeleteOnTermination: vs.deleteOnTermination, AttachTime: now})
		if vs.device == r.RootDeviceName {
			r.RootVolumeID = v.ID
		}
	}
	s.instances[r.ID] = in
	s.order = append(s.order, r.ID)
	s.publishState(in, now)
	if spec.profileARN != "" {
		s.associate(in, spec.profileARN)
	}
	return in
}

// createVolume makes an in-use EBS volume attached to instanceID, applying
// EBS defaults for IOPS and throughput that the caller did not set.
func (s *Sim) createVolume(vs volumeSpec, az string, tags map[string]string, instanceID string, now time.Time) *VolumeRecord {
	v := &VolumeRecord{
		ID: s.newID("vol"), SizeGiB: vs.sizeGiB, VolumeType: vs.volumeType, IOPS: vs.iops, Throughput: vs.throughput,
		SnapshotID: vs.snapshotID, AZ: az, State: "in-use", Encrypted: vs.encrypted, CreateTime: now,
		Tags:       maps.Clone(tags),
		Attachment: &VolumeAttachment{InstanceID: instanceID, Device: vs.device, AttachTime: now, DeleteOnTermination: vs.deleteOnTermination},
	}
	if v.Tags == nil {
		v.Tags = map[string]string{}
	}
	switch v.VolumeType {
	case "gp3":
		if v.IOPS == 0 {
			v.IOPS = 3000
		}
		if v.Throughput == 0 {
			v.Throughput = 125
		}
	case "gp2":
		// gp2 IOPS scale with size: 3 per GiB, at least 100.
		v.IOPS = max(100, 3*v.SizeGiB)
	}
	s.putVolume(v)
	return v
}

// writeReservation renders a whole reservation as RunInstances returns it.
func (s *Sim) writeReservation(x *xmlBuilder, res *reservation) {
	x.leaf("reservationId", res.id)
	x.leaf("ownerId", s.cfg.AccountID)
	x.open("groupSet")
	x.close("groupSet")
	x.open("instancesSet")
	for _, id := range res.instanceIDs {
		if in, ok := s.instances[id]; ok {
			s.writeInstance(x, in)
		}
	}
	x.close("instancesSet")
}
