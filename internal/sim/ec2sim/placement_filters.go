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

import "strconv"

// placementFilterNames are the DescribeInstances filters on placement and
// Capacity Reservations that the API reference documents.
var placementFilterNames = []string{
	"placement-group-name", "placement-partition-number", "tenancy", "host-id", "affinity",
	"capacity-reservation-id", "capacity-reservation-specification.capacity-reservation-preference",
}

// placementFields adds an instance's placement and Capacity Reservation
// attributes to its filterable fields. Unset attributes are left out, so a
// filter on them matches nothing, as EC2's filters on absent values do.
func placementFields(f map[string]string, in *instance) {
	pl, cr := in.Placement, in.CapacityReservation
	tenancy := pl.Tenancy
	if tenancy == "" {
		tenancy = TenancyDefault
	}
	f["tenancy"] = tenancy
	set := func(name, v string) {
		if v != "" {
			f[name] = v
		}
	}
	set("placement-group-name", pl.GroupName)
	if pl.PartitionNumber > 0 {
		f["placement-partition-number"] = strconv.Itoa(pl.PartitionNumber)
	}
	set("host-id", pl.HostID)
	set("affinity", pl.Affinity)
	if occupiesCapacity(in.State) {
		set("capacity-reservation-id", cr.ReservationID)
	}
	pref := cr.Preference
	if pref == "" && !cr.targeted() {
		pref = CapacityReservationOpen
	}
	set("capacity-reservation-specification.capacity-reservation-preference", pref)
}
