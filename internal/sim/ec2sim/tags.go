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
	"maps"
	"strings"
	"unicode/utf8"
)

// maxTags is EC2's per-resource tag limit.
const maxTags = 50

// tagPair is one Key/Value from a request; hasValue distinguishes an absent
// Value from an empty one, which matters to DeleteTags.
type tagPair struct {
	key, value string
	hasValue   bool
}

// readTags decodes a flattened "Tag.N.Key" / "Tag.N.Value" list.
func readTags(p params, name string) []tagPair {
	var out []tagPair
	for _, t := range p.items(name) {
		out = append(out, tagPair{key: t.str("Key"), value: t.str("Value"), hasValue: t.has("Value")})
	}
	return out
}

// validateTag enforces EC2's tag rules: reserved aws: prefix and lengths.
func validateTag(t tagPair) *apiError {
	if t.key == "" {
		return invalidValue("Tag key cannot be null or empty.")
	}
	if strings.HasPrefix(strings.ToLower(t.key), "aws:") {
		return invalidValue("Value ( %s ) for parameter key is invalid. Tag keys starting with 'aws:' are reserved for internal use", t.key)
	}
	if utf8.RuneCountInString(t.key) > 128 {
		return invalidValue("Value ( %s ) for parameter key is invalid. Tag keys must be at most 128 characters.", t.key)
	}
	if utf8.RuneCountInString(t.value) > 256 {
		return invalidValue("Value ( %s ) for parameter value is invalid. Tag values must be at most 256 characters.", t.value)
	}
	return nil
}

// mergeTags applies tags on top of existing ones, enforcing the 50-tag limit
// on the result, and returns the new map without modifying existing.
func mergeTags(existing map[string]string, tags []tagPair) (map[string]string, *apiError) {
	out := maps.Clone(existing)
	if out == nil {
		out = map[string]string{}
	}
	for _, t := range tags {
		if err := validateTag(t); err != nil {
			return nil, err
		}
		out[t.key] = t.value
	}
	if len(out) > maxTags {
		return nil, clientErr("TagLimitExceeded", "The maximum number of Tags for a resource has been reached.")
	}
	return out, nil
}

// parseTagSpecs reads RunInstances' TagSpecification.N for instances and
// volumes. Every tag is validated before anything is created, so an invalid
// tag fails the whole launch.
func (s *Sim) parseTagSpecs(p params, spec *launchSpec) *apiError {
	for _, ts := range p.items("TagSpecification") {
		rt := ts.str("ResourceType")
		tags := readTags(ts, "Tag")
		merged, err := mergeTags(nil, tags)
		if err != nil {
			return err
		}
		switch rt {
		case "instance":
			spec.instanceTags = merged
		case "volume":
			spec.volumeTags = merged
		case "network-interface":
			// The tags go to the primary network interface EC2 creates.
			spec.nic.tags = merged
		case "spot-instances-request", "elastic-gpu":
			// Accepted for compatibility; the simulator does not model them.
		case "":
			return missingParam("TagSpecification.ResourceType")
		default:
			return invalidValue("'%s' is not a valid taggable resource type for this operation.", rt)
		}
	}
	return nil
}

// taggable resolves a resource id to its tag map for CreateTags/DeleteTags.
// Instances, volumes, images, subnets, security groups, network interfaces and
// Elastic IP allocations are taggable in the simulator.
func (s *Sim) taggable(id string) (*map[string]string, *apiError) {
	if in, ok := s.instances[id]; ok {
		return &in.Tags, nil
	}
	if v, ok := s.volumes[id]; ok {
		return &v.Tags, nil
	}
	if img, ok := s.images[id]; ok {
		return &img.Tags, nil
	}
	if t, err, ok := s.netTaggable(id); ok {
		return t, err
	}
	switch {
	case strings.HasPrefix(id, "i-"):
		if !instanceIDPattern.MatchString(id) {
			return nil, malformedID("InvalidInstanceID.Malformed", id, "i")
		}
		return nil, instancesNotFound([]string{id})
	case strings.HasPrefix(id, "vol-"):
		if !volumeIDPattern.MatchString(id) {
			return nil, malformedID("InvalidVolumeID.Malformed", id, "vol")
		}
		return nil, clientErr("InvalidVolume.NotFound", "The volume '%s' does not exist.", id)
	case strings.HasPrefix(id, "ami-"):
		if !imageIDPattern.MatchString(id) {
			return nil, malformedID("InvalidAMIID.Malformed", id, "ami")
		}
		return nil, clientErr("InvalidAMIID.NotFound", "The image id '[%s]' does not exist", id)
	}
	return nil, clientErr("InvalidID", "The ID '%s' is not valid", id)
}

// createTags implements CreateTags. All resources are checked before any is
// changed so a failing call has no effect.
func (s *Sim) createTags(p params, x *xmlBuilder) *apiError {
	ids := p.list("ResourceId")
	if len(ids) == 0 {
		return missingParam("ResourceId")
	}
	tags := readTags(p, "Tag")
	if len(tags) == 0 {
		return missingParam("Tag")
	}
	targets := make([]*map[string]string, 0, len(ids))
	updated := make([]map[string]string, 0, len(ids))
	for _, id := range ids {
		t, err := s.taggable(id)
		if err != nil {
			return err
		}
		if in, ok := s.instances[id]; ok {
			if err := checkIMDSTagPairs(in, tags); err != nil {
				return err
			}
		}
		merged, err := mergeTags(*t, tags)
		if err != nil {
			return err
		}
		targets, updated = append(targets, t), append(updated, merged)
	}
	for i, t := range targets {
		*t = updated[i]
	}
	x.boolLeaf("return", true)
	return nil
}

// deleteTags implements DeleteTags: a Tag with only a Key deletes the tag
// whatever its value; with a Value (even empty) only if the value matches;
// no Tag at all deletes every tag (except aws: ones, which we never hold).
func (s *Sim) deleteTags(p params, x *xmlBuilder) *apiError {
	ids := p.list("ResourceId")
	if len(ids) == 0 {
		return missingParam("ResourceId")
	}
	tags := readTags(p, "Tag")
	for _, t := range tags {
		if strings.HasPrefix(strings.ToLower(t.key), "aws:") {
			return invalidValue("Value ( %s ) for parameter key is invalid. Tag keys starting with 'aws:' are reserved for internal use", t.key)
		}
	}
	var targets []*map[string]string
	for _, id := range ids {
		t, err := s.taggable(id)
		if err != nil {
			return err
		}
		targets = append(targets, t)
	}
	for _, t := range targets {
		if len(tags) == 0 {
			*t = map[string]string{}
			continue
		}
		m := maps.Clone(*t)
		for _, tag := range tags {
			if cur, ok := m[tag.key]; ok && (!tag.hasValue || cur == tag.value) {
				delete(m, tag.key)
			}
		}
		*t = m
	}
	x.boolLeaf("return", true)
	return nil
}

// resourceMatches applies filters to a resource's named fields and tags,
// handling "tag:KEY", "tag-key" and "tag-value". Unknown filter names match
// nothing, surfacing typos in tests.
func resourceMatches(fields, tags map[string]string, filters []filter) bool {
	for _, f := range filters {
		if k, ok := strings.CutPrefix(f.Name, "tag:"); ok {
			v, has := tags[k]
			if !has || !anyGlob(f.Values, v) {
				return false
			}
			continue
		}
		switch f.Name {
		case "tag-key", "tag-value":
			found := false
			for k, v := range tags {
				field := k
				if f.Name == "tag-value" {
					field = v
				}
				if anyGlob(f.Values, field) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
			continue
		}
		v, ok := fields[f.Name]
		if !ok || !anyGlob(f.Values, v) {
			return false
		}
	}
	return true
}
