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
	"encoding/base64"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// capacityReservationIDPattern is the shape of a Capacity Reservation id.
var capacityReservationIDPattern = regexp.MustCompile(`^cr-([0-9a-f]{8}|[0-9a-f]{17})$`)

// capacityReservation is an active On-Demand Capacity Reservation for Linux
// instances on shared tenancy with no end date, the simulator's only kind.
type capacityReservation struct {
	id, instanceType, az string
	// matchCriteria is "open" (any matching instance uses it) or "targeted"
	// (only instances that name it, or a group holding it, do).
	matchCriteria string
	total         int
	tags          map[string]string
	created       time.Time
}

// CapacityReservationRecord is a snapshot of one Capacity Reservation.
type CapacityReservationRecord struct {
	ID                    string
	ARN                   string
	InstanceType          string
	AZ                    string
	InstanceMatchCriteria string
	// Tenancy is always "default" and InstancePlatform "Linux/UNIX".
	Tenancy          string
	InstancePlatform string
	// State is always "active".
	State                  string
	TotalInstanceCount     int
	AvailableInstanceCount int
	// InstanceIDs are the instances running in the reservation, in launch order.
	InstanceIDs []string
	Tags        map[string]string
	CreateDate  time.Time
}

// AddCapacityReservation creates an active Capacity Reservation for count
// Linux/UNIX instances of instanceType in az. matchCriteria is "open" or
// "targeted"; anything else panics, as it is a mistake in the test.
func (s *Sim) AddCapacityReservation(id, instanceType, az string, count int, matchCriteria string, tags map[string]string) {
	if matchCriteria != "open" && matchCriteria != "targeted" {
		panic(fmt.Sprintf("ec2sim: instance match criteria is open or targeted, not %q", matchCriteria))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := s.placing()
	if _, ok := ps.reservations[id]; !ok {
		ps.reservationOrder = append(ps.reservationOrder, id)
	}
	t := maps.Clone(tags)
	if t == nil {
		t = map[string]string{}
	}
	ps.reservations[id] = &capacityReservation{id: id, instanceType: instanceType, az: az, matchCriteria: matchCriteria, total: count, tags: t, created: s.now()}
}

// AddCapacityReservationGroup creates an AWS Resource Groups group of
// Capacity Reservations, which launches can target with
// CapacityReservationTarget.CapacityReservationResourceGroupArn.
func (s *Sim) AddCapacityReservationGroup(arn string, reservationIDs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.placing().reservationGroups[arn] = append([]string(nil), reservationIDs...)
}

// CapacityReservation returns a snapshot of one Capacity Reservation.
func (s *Sim) CapacityReservation(id string) (CapacityReservationRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	cr := s.placing().reservations[id]
	if cr == nil {
		return CapacityReservationRecord{}, false
	}
	return s.reservationRecord(cr), true
}

// reservationRecord snapshots a reservation with its current usage.
func (s *Sim) reservationRecord(cr *capacityReservation) CapacityReservationRecord {
	users := s.reservationUsers(cr.id)
	return CapacityReservationRecord{
		ID: cr.id, ARN: s.reservationARN(cr.id), InstanceType: cr.instanceType, AZ: cr.az,
		InstanceMatchCriteria: cr.matchCriteria, Tenancy: "default", InstancePlatform: "Linux/UNIX", State: "active",
		TotalInstanceCount: cr.total, AvailableInstanceCount: max(0, cr.total-len(users)),
		InstanceIDs: users, Tags: maps.Clone(cr.tags), CreateDate: cr.created,
	}
}

// reservationARN is a Capacity Reservation's ARN.
func (s *Sim) reservationARN(id string) string {
	return "arn:aws:ec2:" + s.cfg.Region + ":" + s.cfg.AccountID + ":capacity-reservation/" + id
}

// reservationUsers lists the instances whose capacity the reservation
// provides now. Usage is derived from instance states rather than counted,
// so stopping, terminating or out-of-band edits free capacity as in EC2.
func (s *Sim) reservationUsers(id string) []string {
	var out []string
	for _, iid := range s.order {
		in := s.instances[iid]
		if in.CapacityReservation.ReservationID == id && occupiesCapacity(in.State) {
			out = append(out, iid)
		}
	}
	return out
}

// reservationFree is how many more instances a reservation can take.
func (s *Sim) reservationFree(cr *capacityReservation) int {
	return max(0, cr.total-len(s.reservationUsers(cr.id)))
}

// reservationNotFound is the documented InvalidCapacityReservationId.NotFound
// (the message is our best guess), with the documented .Malformed for ids of
// the wrong shape.
func reservationNotFound(id string) *apiError {
	if !capacityReservationIDPattern.MatchString(id) {
		return malformedID("InvalidCapacityReservationId.Malformed", id, "cr")
	}
	return clientErr("InvalidCapacityReservationId.NotFound", "The capacity reservation ID '%s' does not exist", id)
}

// capacityReservationFilters are DescribeCapacityReservations' documented
// filters that the simulator evaluates (besides the tag filters).
var capacityReservationFilters = []string{
	"instance-type", "owner-id", "instance-platform", "availability-zone", "tenancy",
	"state", "end-date-type", "instance-match-criteria",
}

// describeCapacityReservations implements DescribeCapacityReservations:
// CapacityReservationId.N, filters and MaxResults/NextToken paging.
func (s *Sim) describeCapacityReservations(p params, x *xmlBuilder) *apiError {
	ps := s.placing()
	ids := p.list("CapacityReservationId")
	for _, id := range ids {
		if ps.reservations[id] == nil {
			return reservationNotFound(id)
		}
	}
	filters := p.filters()
	for _, f := range filters {
		if !knownDescribeFilter(f.Name, capacityReservationFilters...) {
			return invalidValue("The filter '%s' is invalid", f.Name)
		}
	}
	limit, start, err := readReservationPage(p)
	if err != nil {
		return err
	}
	var matched []*capacityReservation
	for _, id := range ps.reservationOrder {
		cr := ps.reservations[id]
		if len(ids) > 0 && !slices.Contains(ids, id) {
			continue
		}
		if resourceMatches(s.reservationFields(cr), cr.tags, filters) {
			matched = append(matched, cr)
		}
	}
	start = min(start, len(matched))
	page, next := matched[start:], ""
	if limit > 0 && len(page) > limit {
		page, next = page[:limit], encodeReservationToken(start+limit)
	}
	x.open("capacityReservationSet")
	for _, cr := range page {
		s.writeCapacityReservation(x, s.reservationRecord(cr))
	}
	x.close("capacityReservationSet")
	x.leafIf("nextToken", next)
	return nil
}

// readReservationPage reads MaxResults (0 when absent: no limit) and NextToken
// (the index the page starts at) of DescribeCapacityReservations.
func readReservationPage(p params) (limit, start int, err *apiError) {
	if p.has("MaxResults") {
		// The API reference gives MaxResults a range of 1 to 1000.
		n, ok := p.integer("MaxResults")
		if !ok || n < 1 || n > 1000 {
			return 0, 0, invalidValue("Value ( %s ) for parameter maxResults is invalid. Expecting a value between 1 and 1000.", p.str("MaxResults"))
		}
		limit = n
	}
	if tok := p.str("NextToken"); tok != "" {
		n, ok := decodeReservationToken(tok)
		if !ok {
			return 0, 0, clientErr("InvalidPaginationToken", "Invalid pagination token: %s", tok)
		}
		start = n
	}
	return limit, start, nil
}

// reservationFields are the values the DescribeCapacityReservations filters
// match a reservation by; the emulator's reservations are all active, open-ended
// Linux reservations of default tenancy.
func (s *Sim) reservationFields(cr *capacityReservation) map[string]string {
	return map[string]string{
		"instance-type": cr.instanceType, "owner-id": s.cfg.AccountID, "instance-platform": "Linux/UNIX",
		"availability-zone": cr.az, "tenancy": "default", "state": "active", "end-date-type": "unlimited",
		"instance-match-criteria": cr.matchCriteria,
	}
}

// writeCapacityReservation renders one capacityReservationSet item with the
// element names of awsEc2query_deserializeDocumentCapacityReservation.
func (s *Sim) writeCapacityReservation(x *xmlBuilder, r CapacityReservationRecord) {
	x.open("item")
	x.leaf("capacityReservationId", r.ID)
	x.leaf("ownerId", s.cfg.AccountID)
	x.leaf("capacityReservationArn", r.ARN)
	x.leaf("instanceType", r.InstanceType)
	x.leaf("instancePlatform", r.InstancePlatform)
	x.leaf("availabilityZone", r.AZ)
	x.leaf("tenancy", r.Tenancy)
	x.intLeaf("totalInstanceCount", r.TotalInstanceCount)
	x.intLeaf("availableInstanceCount", r.AvailableInstanceCount)
	x.boolLeaf("ebsOptimized", false)
	x.boolLeaf("ephemeralStorage", false)
	x.leaf("state", r.State)
	x.timeLeaf("startDate", r.CreateDate)
	x.leaf("endDateType", "unlimited")
	x.leaf("instanceMatchCriteria", r.InstanceMatchCriteria)
	x.timeLeaf("createDate", r.CreateDate)
	x.leaf("reservationType", "default")
	if len(r.Tags) > 0 {
		x.tagSet(r.Tags)
	}
	x.close("item")
}

// encodeReservationToken makes an opaque NextToken from a list offset.
func encodeReservationToken(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("ec2sim-cr:" + strconv.Itoa(offset)))
}

// decodeReservationToken reverses encodeReservationToken.
func decodeReservationToken(tok string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return 0, false
	}
	n, ok := strings.CutPrefix(string(b), "ec2sim-cr:")
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(n)
	return v, err == nil && v >= 0
}
