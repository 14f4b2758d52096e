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

// Package monitoring keeps the bundle's monitoring objects right for the namespace the
// manager runs in. OLM installs a bundle into whatever namespace the user picks, but
// two things a static bundle cannot say depend on it:
//
//   - the ServiceMonitor's tlsConfig.serverName, the metrics Service's DNS name
//     (<service>.<namespace>.svc), which the service CA's serving certificate carries;
//   - the bearer-token Secret of the metrics reader: a kubernetes.io/service-account-token
//     Secret created before its ServiceAccount exists is deleted by the token
//     controller (OCPBUGS-35210), and OLM does not order bundle objects around that.
//
// At start-up, and every 15 seconds after, the manager sets the serverName for its
// namespace and creates the token Secret when it is missing, with RBAC for exactly
// those objects in its own namespace. (The metrics reader's permission to GET /metrics
// comes from the CSV's clusterPermissions, which OLM binds in the install namespace.)
package monitoring
