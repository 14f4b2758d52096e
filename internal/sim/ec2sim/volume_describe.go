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
	"strconv"
	"strings"
)

// DescribeVolumes' page size bounds. The API reference's MaxResults: "This value
// can be between 5 and 500; if MaxResults is given a value larger than 500, only
// 500 items are returned", and it cannot be combined with VolumeId.N.
const (
	minVolumePage = 5
	maxVolumePage = 500
)

// volumeFilters are the DescribeVolumes filters the simulator supports, besides
// tag:<key>, tag-key and tag-value.
var volumeFilters = []string{
	"volume-id", "status", "availability-zone", "volume-type", "size", "snapshot-id", "encrypted",
	"attachment.instance-id", "attachment.device", "attachment.status", "attachment.delete-on-termination",
}

// describeVolumes implements DescribeVolumes: VolumeId.N (every id must exist),
// filters, and MaxResults/NextToken paging in creation order.
func (s *Sim) describeVolumes(p params, x *xmlBuilder) *apiError {
	ids := p.list("VolumeId")
	limit := 0
	if p.has("MaxResults") {
		if len(ids) > 0 {
			return clientErr("InvalidParameterCombination", "The parameter volumeSet cannot be used with the parameter maxResults")
		}
		n, ok := p.integer("MaxResults")
		if !ok || n < minVolumePage {
			return invalidValue("Value ( %s ) for parameter maxResults is invalid. Expecting a value greater than or equal to %d.", p.str("MaxResults"), minVolumePage)
		}
		limit = min(n, maxVolumePage)
	}
	after := 0
	if tok := p.str("NextToken"); tok != "" {
		n, ok := decodePageToken("volumes", tok)
		if !ok {
			return clientErr("InvalidPaginationToken", "Invalid pagination token: %s", tok)
		}
		after = n
	}
	filters := p.filters()
	for _, f := range filters {
		if !strings.HasPrefix(f.Name, "tag:") && f.Name != "tag-key" && f.Name != "tag-value" && !contains(volumeFilters, f.Name) {
			return invalidValue("The filter '%s' is invalid", f.Name)
		}
	}
	if err := s.lookupVolumes(ids); err != nil {
		return err
	}
	var page []*VolumeRecord
	next := ""
	for _, id := range s.volumeOrder {
		v := s.volumes[id]
		if v.seq <= after || (len(ids) > 0 && !contains(ids, id)) {
			continue
		}
		if !resourceMatches(volumeFields(v), v.Tags, filters) {
			continue
		}
		if limit > 0 && len(page) == limit {
			next = encodePageToken("volumes", page[len(page)-1].seq)
			break
		}
		page = append(page, v)
	}
	x.open("volumeSet")
	for _, v := range page {
		x.open("item")
		s.writeVolumeFields(x, v)
		x.close("item")
	}
	x.close("volumeSet")
	x.leafIf("nextToken", next)
	return nil
}

// volumeFields are the values volume filters match against.
func volumeFields(v *VolumeRecord) map[string]string {
	f := map[string]string{
		"volume-id": v.ID, "status": v.State, "availability-zone": v.AZ, "volume-type": v.VolumeType,
		"size": strconv.Itoa(v.SizeGiB), "snapshot-id": v.SnapshotID, "encrypted": boolString(v.Encrypted),
	}
	if a := v.Attachment; a != nil {
		f["attachment.instance-id"] = a.InstanceID
		f["attachment.device"] = a.Device
		f["attachment.status"] = a.State
		f["attachment.delete-on-termination"] = boolString(a.DeleteOnTermination)
	}
	return f
}
