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
	"net/http"
	"net/url"
	"strings"
)

// apiVersion is the only EC2 API version; the SDK always sends it.
const apiVersion = "2016-11-15"

// xmlNamespace is the namespace EC2 puts on every response root.
const xmlNamespace = "http://ec2.amazonaws.com/doc/" + apiVersion + "/"

// handler processes one EC2 action with the lock held. It writes the
// response body's children into x and returns nil, or returns the error to
// send instead (anything written to x is then discarded).
type handler func(s *Sim, p params, x *xmlBuilder) *apiError

// handlers maps Action names to their implementations.
var handlers = map[string]handler{
	"RunInstances":                           (*Sim).runInstances,
	"ModifyInstanceCpuOptions":               (*Sim).modifyInstanceCpuOptions,
	"AssignPrivateIpAddresses":               (*Sim).assignPrivateIpAddresses,
	"UnassignPrivateIpAddresses":             (*Sim).unassignPrivateIpAddresses,
	"DescribeInstances":                      (*Sim).describeInstances,
	"TerminateInstances":                     (*Sim).terminateInstances,
	"StopInstances":                          (*Sim).stopInstances,
	"StartInstances":                         (*Sim).startInstances,
	"ModifyInstanceAttribute":                (*Sim).modifyInstanceAttribute,
	"DescribeInstanceAttribute":              (*Sim).describeInstanceAttribute,
	"ModifyInstanceMetadataOptions":          (*Sim).modifyInstanceMetadataOptions,
	"MonitorInstances":                       (*Sim).monitorInstances,
	"UnmonitorInstances":                     (*Sim).unmonitorInstances,
	"CreateTags":                             (*Sim).createTags,
	"DeleteTags":                             (*Sim).deleteTags,
	"DescribeImages":                         (*Sim).describeImages,
	"DescribeSnapshots":                      (*Sim).describeSnapshots,
	"DescribeInstanceTypes":                  (*Sim).describeInstanceTypes,
	"ModifyInstanceCreditSpecification":      (*Sim).modifyInstanceCreditSpecification,
	"DescribeInstanceCreditSpecifications":   (*Sim).describeInstanceCreditSpecifications,
	"ModifyInstanceMaintenanceOptions":       (*Sim).modifyInstanceMaintenanceOptions,
	"ModifyPrivateDnsNameOptions":            (*Sim).modifyPrivateDnsNameOptions,
	"DescribeSubnets":                        (*Sim).describeSubnets,
	"DescribeSecurityGroups":                 (*Sim).describeSecurityGroups,
	"DescribeNetworkInterfaces":              (*Sim).describeNetworkInterfaces,
	"ModifyNetworkInterfaceAttribute":        (*Sim).modifyNetworkInterfaceAttribute,
	"AllocateAddress":                        (*Sim).allocateAddress,
	"DescribeAddresses":                      (*Sim).describeAddresses,
	"AssociateAddress":                       (*Sim).associateAddress,
	"DisassociateAddress":                    (*Sim).disassociateAddress,
	"ReleaseAddress":                         (*Sim).releaseAddress,
	"DescribeVolumes":                        (*Sim).describeVolumes,
	"ModifyVolume":                           (*Sim).modifyVolume,
	"CreateVolume":                           (*Sim).createVolumeOp,
	"AttachVolume":                           (*Sim).attachVolume,
	"DetachVolume":                           (*Sim).detachVolume,
	"DeleteVolume":                           (*Sim).deleteVolumeOp,
	"CancelSpotInstanceRequests":             (*Sim).cancelSpotInstanceRequests,
	"DescribeSpotInstanceRequests":           (*Sim).describeSpotInstanceRequests,
	"DescribeIamInstanceProfileAssociations": (*Sim).describeIamInstanceProfileAssociations,
	"AssociateIamInstanceProfile":            (*Sim).associateIamInstanceProfile,
	"ReplaceIamInstanceProfileAssociation":   (*Sim).replaceIamInstanceProfileAssociation,
	"DisassociateIamInstanceProfile":         (*Sim).disassociateIamInstanceProfile,

	// Placement groups, Dedicated Hosts and Capacity Reservations.
	"DescribeCapacityReservations":                (*Sim).describeCapacityReservations,
	"ModifyInstanceCapacityReservationAttributes": (*Sim).modifyInstanceCapacityReservationAttributes,
	"DescribePlacementGroups":                     (*Sim).describePlacementGroups,
	"ModifyInstancePlacement":                     (*Sim).modifyInstancePlacement,
}

// ServeHTTP answers EC2 query-protocol requests at any path except /_sim/,
// which serves the debug API. Signatures are not checked.
func (s *Sim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_sim/") {
		s.serveDebug(w, r)
		return
	}
	if err := r.ParseForm(); err != nil {
		s.writeError(w, s.lockedRequestID(), clientErr("MalformedQueryString", "%v", err))
		return
	}
	op := r.Form.Get("Action")
	s.mu.Lock()
	s.calls[op]++
	gate := s.gates[op]
	s.mu.Unlock()

	// A Block gate holds the request before any processing, as if it were
	// still on the wire.
	if gate != nil && !gate.wait(r.Context()) {
		s.logRequest(op, r.Form, "RequestCanceled", 0)
		return
	}

	f := s.matchFault(op, r.Form)
	if f.latency > 0 && !sleepCtx(r.Context(), f.latency) {
		s.logRequest(op, r.Form, "RequestCanceled", 0)
		return
	}

	reqID, body, apiErr, respGate := s.handle(op, r.Form, f)

	// A response gate lets the call take effect but withholds the answer,
	// which is how "the call succeeded but the client timed out" looks.
	if respGate != nil && !respGate.wait(r.Context()) {
		code := ""
		if apiErr != nil {
			code = apiErr.Code
		}
		s.logRequest(op, r.Form, code, 0)
		return
	}
	if apiErr != nil {
		s.logRequest(op, r.Form, apiErr.Code, apiErr.Status)
		s.writeError(w, reqID, apiErr)
		return
	}
	s.logRequest(op, r.Form, "", http.StatusOK)
	writeResponse(w, op, reqID, body)
}

// handle runs one call under the lock: the fault f, if it fires before the call,
// takes its place; otherwise the call is admitted (throttling, quotas) and
// dispatched, and a fault that fires after the effect replaces only its answer.
// It returns the request ID, the response body, the error to answer and the
// operation's response gate, if one is set.
func (s *Sim) handle(op string, form url.Values, f firedFault) (string, *xmlBuilder, *apiError, *Gate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reqID := s.newRequestID()
	x := &xmlBuilder{}
	apiErr := f.err
	if f.afterEffect {
		apiErr = nil
	}
	if apiErr == nil {
		apiErr = s.admit(op, form)
	}
	if apiErr == nil {
		apiErr = s.dispatch(op, params{v: form}, x)
	}
	if f.afterEffect && apiErr == nil {
		// The call took effect; the client hears only the error.
		apiErr = f.err
	}
	return reqID, x, apiErr, s.respGate[op]
}

// writeResponse writes a successful answer: the body inside <opResponse> with
// the request ID, as EC2's query protocol does.
func writeResponse(w http.ResponseWriter, op, reqID string, body *xmlBuilder) {
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	var out xmlBuilder
	out.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	out.b.WriteString("<" + op + "Response xmlns=\"" + xmlNamespace + "\">")
	out.leaf("requestId", reqID)
	out.b.WriteString(body.b.String())
	out.close(op + "Response")
	_, _ = w.Write([]byte(out.b.String()))
}

// dispatch validates the action and runs its handler with the lock held,
// first advancing every instance's lifecycle to the current time.
func (s *Sim) dispatch(op string, p params, x *xmlBuilder) *apiError {
	if op == "" {
		return clientErr("MissingAction", "The request must contain the parameter Action")
	}
	h, ok := handlers[op]
	if !ok {
		return clientErr("InvalidAction", "The action %s is not valid for this web service.", op)
	}
	s.advance()
	if dry, _ := p.boolean("DryRun"); dry {
		// The simulator has no IAM, so every dry run would have succeeded.
		return &apiError{Code: "DryRunOperation", Message: "Request would have succeeded, but DryRun flag is set.", Status: http.StatusPreconditionFailed}
	}
	return h(s, p, x)
}

// lockedRequestID generates a request id from outside the lock.
func (s *Sim) lockedRequestID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newRequestID()
}

// writeError sends EC2's error document: Response/Errors/Error/{Code,Message}
// plus RequestID, which is what the SDK's ec2query error parser reads.
func (s *Sim) writeError(w http.ResponseWriter, reqID string, e *apiError) {
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(e.Status)
	var x xmlBuilder
	x.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.open("Response")
	x.open("Errors")
	x.open("Error")
	x.leaf("Code", e.Code)
	x.leaf("Message", e.Message)
	x.close("Error")
	x.close("Errors")
	x.leaf("RequestID", reqID)
	x.close("Response")
	_, _ = w.Write([]byte(x.b.String()))
}
