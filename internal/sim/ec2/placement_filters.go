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
