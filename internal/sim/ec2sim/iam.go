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
	"slices"
	"time"
)

// association links an instance to an IAM instance profile.
type association struct {
	id         string
	instanceID string
	arn        string
	createdAt  time.Time
}

// associate records a new association for in (the caller has checked
// there is none) and returns it.
func (s *Sim) associate(in *instance, arn string) *association {
	a := &association{id: "iip-assoc-" + s.newID("x")[2:], instanceID: in.ID, arn: arn, createdAt: s.now()}
	s.associations[a.id] = a
	in.IAMInstanceProfileARN = arn
	return a
}

// associationOf returns the instance's current association, if any.
func (s *Sim) associationOf(instanceID string) *association {
	for _, a := range s.associations {
		if a.instanceID == instanceID {
			return a
		}
	}
	return nil
}

// writeAssociation renders an IamInstanceProfileAssociation with state.
func writeAssociation(x *xmlBuilder, name string, a *association, state string) {
	x.open(name)
	x.leaf("associationId", a.id)
	x.leaf("instanceId", a.instanceID)
	x.open("iamInstanceProfile")
	x.leaf("arn", a.arn)
	x.leaf("id", profileID(profileNameFromARN(a.arn)))
	x.close("iamInstanceProfile")
	x.leaf("state", state)
	x.timeLeaf("timestamp", a.createdAt)
	x.close(name)
}

// describeIamInstanceProfileAssociations implements the operation with
// AssociationId.N and the instance-id and state filters. Associations are
// complete as soon as they are made, so their state is "associated".
func (s *Sim) describeIamInstanceProfileAssociations(p params, x *xmlBuilder) *apiError {
	ids := p.list("AssociationId")
	for _, id := range ids {
		if s.associations[id] == nil {
			return clientErr("InvalidAssociationID.NotFound", "An association ID '%s' does not exist", id)
		}
	}
	var list []*association
	for _, a := range s.associations {
		if len(ids) > 0 && !contains(ids, a.id) {
			continue
		}
		fields := map[string]string{"instance-id": a.instanceID, "state": "associated"}
		if !fieldsMatch(fields, p.filters()) {
			continue
		}
		list = append(list, a)
	}
	slices.SortFunc(list, func(a, b *association) int {
		if c := a.createdAt.Compare(b.createdAt); c != 0 {
			return c
		}
		return compareStrings(a.id, b.id)
	})
	x.open("iamInstanceProfileAssociationSet")
	for _, a := range list {
		writeAssociation(x, "item", a, "associated")
	}
	x.close("iamInstanceProfileAssociationSet")
	return nil
}

// associateIamInstanceProfile implements AssociateIamInstanceProfile; an
// instance can have only one association.
func (s *Sim) associateIamInstanceProfile(p params, x *xmlBuilder) *apiError {
	in, err := s.lookupInstance(p.str("InstanceId"))
	if err != nil {
		return err
	}
	if !p.hasAny("IamInstanceProfile") {
		return missingParam("IamInstanceProfile")
	}
	arn, err := s.resolveProfile(p.sub("IamInstanceProfile"))
	if err != nil {
		return err
	}
	if in.State == StateTerminated || in.State == StateShuttingDown {
		return clientErr("IncorrectInstanceState", "The instance '%s' is not in a valid state for this operation.", in.ID)
	}
	if s.associationOf(in.ID) != nil {
		return clientErr("IncorrectState", "There is an existing association for instance %s", in.ID)
	}
	a := s.associate(in, arn)
	writeAssociation(x, "iamInstanceProfileAssociation", a, "associating")
	return nil
}

// replaceIamInstanceProfileAssociation implements the operation. EC2
// replaces the association with a new one carrying a new association id.
func (s *Sim) replaceIamInstanceProfileAssociation(p params, x *xmlBuilder) *apiError {
	id := p.str("AssociationId")
	if id == "" {
		return missingParam("AssociationId")
	}
	old := s.associations[id]
	if old == nil {
		return clientErr("InvalidAssociationID.NotFound", "An association ID '%s' does not exist", id)
	}
	if !p.hasAny("IamInstanceProfile") {
		return missingParam("IamInstanceProfile")
	}
	arn, err := s.resolveProfile(p.sub("IamInstanceProfile"))
	if err != nil {
		return err
	}
	delete(s.associations, id)
	a := s.associate(s.instances[old.instanceID], arn)
	writeAssociation(x, "iamInstanceProfileAssociation", a, "associating")
	return nil
}

// disassociateIamInstanceProfile implements the operation.
func (s *Sim) disassociateIamInstanceProfile(p params, x *xmlBuilder) *apiError {
	id := p.str("AssociationId")
	if id == "" {
		return missingParam("AssociationId")
	}
	a := s.associations[id]
	if a == nil {
		return clientErr("InvalidAssociationID.NotFound", "An association ID '%s' does not exist", id)
	}
	delete(s.associations, id)
	if in := s.instances[a.instanceID]; in != nil {
		in.IAMInstanceProfileARN = ""
	}
	writeAssociation(x, "iamInstanceProfileAssociation", a, "disassociating")
	return nil
}

// compareStrings orders strings for deterministic listings.
func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
