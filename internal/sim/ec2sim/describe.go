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
	"strconv"
	"strings"
)

// describeInstances implements DescribeInstances: InstanceId.N (every id
// must exist and be visible), filters, and MaxResults/NextToken paging.
func (s *Sim) describeInstances(p params, x *xmlBuilder) *apiError {
	q, err := readInstanceQuery(p)
	if err != nil {
		return err
	}
	now := s.now()
	visible := func(in *instance) bool { return !now.Before(in.visibleAt) }
	if err := s.checkRequestedInstances(q.ids, visible); err != nil {
		return err
	}
	page, next := s.instancePage(q, visible)
	s.writeReservations(x, page)
	x.leafIf("nextToken", next)
	return nil
}

// instanceQuery is what a DescribeInstances call asks for: the IDs (all when
// none), the filters, and the page (limit 0 for no limit; after, the sequence
// number the previous page ended at, or -1).
type instanceQuery struct {
	ids     []string
	filters []filter
	limit   int
	after   int
}

// readInstanceQuery reads and validates the query parameters of
// DescribeInstances. EC2 does not page a lookup by ID.
func readInstanceQuery(p params) (instanceQuery, *apiError) {
	q := instanceQuery{ids: p.list("InstanceId"), filters: p.filters(), after: -1}
	if len(q.ids) > 0 && p.has("MaxResults") {
		return q, clientErr("InvalidParameterCombination", "The parameter instancesSet cannot be used with the parameter maxResults")
	}
	if p.has("MaxResults") {
		n, ok := p.integer("MaxResults")
		if !ok || n < 5 || n > 1000 {
			return q, invalidValue("Value ( %s ) for parameter maxResults is invalid. Expecting a value between 5 and 1000.", p.str("MaxResults"))
		}
		q.limit = n
	}
	if tok := p.str("NextToken"); tok != "" {
		n, ok := decodePageToken("instances", tok)
		if !ok {
			return q, clientErr("InvalidPaginationToken", "Invalid pagination token: %s", tok)
		}
		q.after = n
	}
	for _, f := range q.filters {
		if !knownInstanceFilter(f.Name) {
			return q, invalidValue("The filter '%s' is invalid", f.Name)
		}
	}
	return q, nil
}

// checkRequestedInstances refuses a lookup by ID that names a malformed ID or an
// instance that does not exist (or is not yet visible, as right after a launch),
// naming every missing one as EC2 does.
func (s *Sim) checkRequestedInstances(ids []string, visible func(*instance) bool) *apiError {
	for _, id := range ids {
		if !instanceIDPattern.MatchString(id) {
			return malformedID("InvalidInstanceID.Malformed", id, "i")
		}
	}
	var missing []string
	for _, id := range ids {
		if in, ok := s.instances[id]; !ok || !visible(in) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return instancesNotFound(missing)
	}
	return nil
}

// instancePage returns the visible instances the query matches, in launch order,
// and the token of the next page ("" on the last).
func (s *Sim) instancePage(q instanceQuery, visible func(*instance) bool) ([]*instance, string) {
	var page []*instance
	for _, id := range s.order {
		in := s.instances[id]
		if !visible(in) || in.seq <= q.after {
			continue
		}
		if len(q.ids) > 0 && !contains(q.ids, id) {
			continue
		}
		if !resourceMatches(instanceFields(in), in.Tags, q.filters) {
			continue
		}
		if q.limit > 0 && len(page) == q.limit {
			return page, encodePageToken("instances", page[len(page)-1].seq)
		}
		page = append(page, in)
	}
	return page, ""
}

// writeReservations writes the reservationSet of a page: consecutive instances of
// one reservation share an item, as one RunInstances call's instances do.
func (s *Sim) writeReservations(x *xmlBuilder, page []*instance) {
	x.open("reservationSet")
	for i := 0; i < len(page); {
		j := i
		for j < len(page) && page[j].ReservationID == page[i].ReservationID {
			j++
		}
		x.open("item")
		x.leaf("reservationId", page[i].ReservationID)
		x.leaf("ownerId", s.cfg.AccountID)
		x.open("groupSet")
		x.close("groupSet")
		x.open("instancesSet")
		for _, in := range page[i:j] {
			s.writeInstance(x, in)
		}
		x.close("instancesSet")
		x.close("item")
		i = j
	}
	x.close("reservationSet")
}

// instanceFilterNames are the DescribeInstances filters the simulator
// evaluates (besides tag:KEY, tag-key and tag-value).
var instanceFilterNames = []string{
	"instance-id", "instance-state-name", "instance-state-code", "client-token", "instance-type",
	"image-id", "subnet-id", "vpc-id", "availability-zone", "reservation-id", "key-name",
	"private-ip-address", "ip-address", "instance-lifecycle", "iam-instance-profile.arn",
	"architecture", "monitoring-state",
}

// knownInstanceFilter reports whether DescribeInstances understands name.
func knownInstanceFilter(name string) bool {
	return strings.HasPrefix(name, "tag:") || name == "tag-key" || name == "tag-value" || contains(instanceFilterNames, name) || contains(placementFilterNames, name)
}

// instanceFields exposes an instance's filterable attributes by filter name.
func instanceFields(in *instance) map[string]string {
	lifecycle := ""
	if in.Spot {
		lifecycle = "spot"
	}
	f := map[string]string{
		"instance-id": in.ID, "instance-state-name": in.State, "instance-state-code": strconv.Itoa(stateCodes[in.State]),
		"client-token": in.ClientToken, "instance-type": in.InstanceType, "image-id": in.ImageID,
		"subnet-id": in.SubnetID, "vpc-id": in.VPCID, "availability-zone": in.AZ,
		"reservation-id": in.ReservationID, "key-name": in.KeyName, "private-ip-address": in.PrivateIP,
		"ip-address": in.PublicIP, "instance-lifecycle": lifecycle, "iam-instance-profile.arn": in.IAMInstanceProfileARN,
		"architecture": in.Architecture, "monitoring-state": monitoringState(in.Monitoring),
	}
	placementFields(f, in)
	return f
}

// encodePageToken makes an opaque NextToken of a listing of kind ("instances",
// "volumes") from the sequence number (launch or creation order) of the last item
// returned, so paging is stable while items come and go.
func encodePageToken(kind string, seq int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("ec2sim-" + kind + ":" + strconv.Itoa(seq)))
}

// decodePageToken reverses encodePageToken; a token of another kind is invalid.
func decodePageToken(kind, tok string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return 0, false
	}
	n, ok := strings.CutPrefix(string(b), "ec2sim-"+kind+":")
	if !ok {
		return 0, false
	}
	seq, err := strconv.Atoi(n)
	return seq, err == nil
}
