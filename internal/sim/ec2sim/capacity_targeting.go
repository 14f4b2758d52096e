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

// Capacity Reservation preferences (CapacityReservationSpecification).
const (
	CapacityReservationOpen = "open"
	CapacityReservationNone = "none"
	CapacityReservationOnly = "capacity-reservations-only"
)

// InstanceCapacityReservation is an instance's Capacity Reservation
// targeting and the reservation it runs in.
type InstanceCapacityReservation struct {
	// Preference is "open", "none" or "capacity-reservations-only"; it is ""
	// when the launch gave only a target.
	Preference string
	// TargetID and TargetGroupARN are the targeted reservation or resource
	// group of reservations, or "".
	TargetID       string
	TargetGroupARN string
	// ReservationID is the reservation the instance last started in, or ""
	// for On-Demand capacity. It holds capacity only while the instance is
	// pending or running.
	ReservationID string
}

// targeted reports whether the instance names a reservation or group.
func (c InstanceCapacityReservation) targeted() bool {
	return c.TargetID != "" || c.TargetGroupARN != ""
}

// parseCapacityTargeting validates a CapacityReservationSpecification. The
// API reference says a preference and a target can be given together only
// when the preference is capacity-reservations-only; EC2's error for the
// other combinations is not documented, so its code is our guess.
func (s *Sim) parseCapacityTargeting(p params) (InstanceCapacityReservation, *apiError) {
	var c InstanceCapacityReservation
	pref := p.str("CapacityReservationPreference")
	switch pref {
	case "", CapacityReservationOpen, CapacityReservationNone, CapacityReservationOnly:
	default:
		return c, invalidValue("Value (%s) for parameter CapacityReservationPreference is invalid. Valid values are: capacity-reservations-only, open, none", pref)
	}
	t := p.sub("CapacityReservationTarget")
	c.Preference, c.TargetID, c.TargetGroupARN = pref, t.str("CapacityReservationId"), t.str("CapacityReservationResourceGroupArn")
	if c.TargetID != "" && c.TargetGroupARN != "" {
		return c, clientErr("InvalidParameterCombination", "The parameter CapacityReservationId cannot be used with the parameter CapacityReservationResourceGroupArn")
	}
	if c.targeted() && (pref == CapacityReservationOpen || pref == CapacityReservationNone) {
		return c, clientErr("InvalidParameterCombination", "A CapacityReservationTarget can only be specified with a CapacityReservationPreference of capacity-reservations-only, not %s.", pref)
	}
	if !c.targeted() && pref == "" {
		c.Preference = CapacityReservationOpen // EC2's documented default
	}
	ps := s.placing()
	if c.TargetID != "" && ps.reservations[c.TargetID] == nil {
		return c, reservationNotFound(c.TargetID)
	}
	if c.TargetGroupARN != "" {
		if _, ok := ps.reservationGroups[c.TargetGroupARN]; !ok {
			// Not documented: EC2's exact error for an unknown reservation group.
			return c, invalidValue("The Capacity Reservation resource group ARN '%s' is not valid.", c.TargetGroupARN)
		}
	}
	return c, nil
}

// chooseReservations picks the Capacity Reservation for each of count
// instances ("" for On-Demand capacity) as the user guide describes:
//   - none, Spot Instances and non-default tenancy use no reservation;
//   - a targeted reservation must match the instance type and zone and have
//     room for every instance, else ReservationCapacityExceeded (documented);
//   - a targeted group, or "open", fills matching reservations (a group's
//     of any match criteria, otherwise only open ones) and runs the rest
//     On-Demand;
//   - capacity-reservations-only fails instead of running On-Demand, with
//     ReservationCapacityExceeded (our guess: no code is documented for it).
func (s *Sim) chooseReservations(c InstanceCapacityReservation, instanceType, az, tenancy string, spot bool, count int) ([]string, *apiError) {
	if c.Preference == CapacityReservationNone {
		return nil, nil
	}
	if spot || tenancy != TenancyDefault {
		if c.targeted() || c.Preference == CapacityReservationOnly {
			// Capacity Reservations reserve On-Demand capacity on shared or
			// dedicated hardware; the simulator's are all shared tenancy.
			return nil, clientErr("InvalidParameterCombination", "Spot Instances and instances with a tenancy of %s cannot run in the simulator's Capacity Reservations.", tenancy)
		}
		return nil, nil
	}
	ps := s.placing()
	if c.TargetID != "" {
		cr := ps.reservations[c.TargetID]
		if cr == nil {
			return nil, reservationNotFound(c.TargetID)
		}
		if cr.instanceType != instanceType || cr.az != az {
			// Not documented: EC2's exact error for a mismatched target.
			return nil, invalidValue("The instance type %s in %s does not match Capacity Reservation %s, which reserves %s in %s.", instanceType, az, cr.id, cr.instanceType, cr.az)
		}
		if s.reservationFree(cr) < count {
			return nil, reservationFull(cr.id)
		}
		out := make([]string, count)
		for i := range out {
			out[i] = cr.id
		}
		return out, nil
	}
	candidates := ps.reservationOrder
	if c.TargetGroupARN != "" {
		candidates = ps.reservationGroups[c.TargetGroupARN]
	}
	var out []string
	for _, id := range candidates {
		cr := ps.reservations[id]
		if cr == nil || cr.instanceType != instanceType || cr.az != az {
			continue
		}
		if c.TargetGroupARN == "" && cr.matchCriteria != "open" {
			continue
		}
		for free := s.reservationFree(cr); free > 0 && len(out) < count; free-- {
			out = append(out, cr.id)
		}
	}
	if len(out) < count && c.Preference == CapacityReservationOnly {
		return nil, reservationFull(c.TargetGroupARN)
	}
	return out, nil
}

// reservationFull is the documented ReservationCapacityExceeded; the message
// follows the error code table's description.
func reservationFull(target string) *apiError {
	if target == "" {
		return clientErr("ReservationCapacityExceeded", "There is not enough available capacity in matching open Capacity Reservations to fulfill your request.")
	}
	return clientErr("ReservationCapacityExceeded", "The targeted Capacity Reservation %s does not have enough available instance capacity to fulfill your request. Either increase the instance capacity for the targeted Capacity Reservation, or target a different Capacity Reservation.", target)
}

// rebindReservation picks the reservation a restarting instance runs in;
// checkStartPlacement has already refused starts whose targeting fails.
func (s *Sim) rebindReservation(in *instance) {
	ids, err := s.chooseReservations(in.CapacityReservation, in.InstanceType, in.AZ, in.Placement.Tenancy, in.Spot, 1)
	in.CapacityReservation.ReservationID = ""
	if err == nil && len(ids) == 1 {
		in.CapacityReservation.ReservationID = ids[0]
	}
}

// modifyInstanceCapacityReservationAttributes implements
// ModifyInstanceCapacityReservationAttributes, which "modifies the Capacity
// Reservation settings for a stopped instance". EC2's error for an instance
// that is not stopped is not documented; we send IncorrectInstanceState with
// ModifyInstanceAttribute's wording. The new targeting takes effect at the
// next start, where the reservation is chosen.
func (s *Sim) modifyInstanceCapacityReservationAttributes(p params, x *xmlBuilder) *apiError {
	in, err := s.lookupInstance(p.str("InstanceId"))
	if err != nil {
		return err
	}
	if !p.hasAny("CapacityReservationSpecification") {
		return missingParam("CapacityReservationSpecification")
	}
	c, err := s.parseCapacityTargeting(p.sub("CapacityReservationSpecification"))
	if err != nil {
		return err
	}
	if cr := s.placing().reservations[c.TargetID]; cr != nil && (cr.instanceType != in.InstanceType || cr.az != in.AZ) {
		return invalidValue("The instance type %s in %s does not match Capacity Reservation %s, which reserves %s in %s.", in.InstanceType, in.AZ, cr.id, cr.instanceType, cr.az)
	}
	if in.State != StateStopped {
		return clientErr("IncorrectInstanceState", "The instance '%s' is not in the 'stopped' state.", in.ID)
	}
	in.CapacityReservation = c
	x.boolLeaf("return", true)
	return nil
}

// writeCapacityReservationInfo renders an instance's capacityReservationId
// (while it runs in one) and capacityReservationSpecification, with the
// names awsEc2query_deserializeDocumentInstance reads.
func writeCapacityReservationInfo(x *xmlBuilder, r *InstanceRecord) {
	c := r.CapacityReservation
	if occupiesCapacity(r.State) {
		x.leafIf("capacityReservationId", c.ReservationID)
	}
	pref := c.Preference
	if pref == "" && !c.targeted() {
		pref = CapacityReservationOpen
	}
	x.open("capacityReservationSpecification")
	x.leafIf("capacityReservationPreference", pref)
	if c.targeted() {
		x.open("capacityReservationTarget")
		x.leafIf("capacityReservationId", c.TargetID)
		x.leafIf("capacityReservationResourceGroupArn", c.TargetGroupARN)
		x.close("capacityReservationTarget")
	}
	x.close("capacityReservationSpecification")
}
