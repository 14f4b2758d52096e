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
	"encoding/json"
	"net/http"
)

// serveDebug serves the JSON debug API under /_sim/:
//
//	GET  /_sim/calls                      per-operation call counts
//	GET  /_sim/requests                   the request log
//	GET  /_sim/instances                  every instance record
//	POST /_sim/instances/{id}/stop        out-of-band stop
//	POST /_sim/instances/{id}/start       out-of-band start
//	POST /_sim/instances/{id}/terminate   out-of-band terminate
//	POST /_sim/reset-calls                clear counts and log
//
// It exists so people poking at a running sandbox can see and nudge state
// without an EC2 client.
func (s *Sim) serveDebug(w http.ResponseWriter, r *http.Request) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /_sim/calls", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.CallCounts())
	})
	mux.HandleFunc("GET /_sim/requests", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.Requests())
	})
	mux.HandleFunc("GET /_sim/instances", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.Instances())
	})
	mux.HandleFunc("POST /_sim/instances/{id}/{action}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		var err error
		switch r.PathValue("action") {
		case "stop":
			err = s.StopInstance(id)
		case "start":
			err = s.StartInstance(id)
		case "terminate":
			err = s.TerminateInstance(id)
		default:
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "unknown action"})
			return
		}
		if err != nil {
			writeJSON(w, http.StatusConflict, map[string]string{"error": err.Error()})
			return
		}
		rec, _ := s.Instance(id)
		writeJSON(w, http.StatusOK, rec)
	})
	mux.HandleFunc("POST /_sim/reset-calls", func(w http.ResponseWriter, _ *http.Request) {
		s.ResetCalls()
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	})
	mux.ServeHTTP(w, r)
}

// writeJSON sends v as indented JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
