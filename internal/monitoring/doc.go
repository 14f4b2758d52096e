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
