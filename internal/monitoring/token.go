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

package monitoring

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// TokenKey is the key of the scrape token in the token Secret, the key the
// ServiceMonitor's authorization.credentials names.
const TokenKey = "token"

// ScrapeToken is the bearer token that lets the ServiceMonitor's scraper read
// /metrics. It is a random value the operator keeps in an Opaque Secret of its own
// namespace, not a Kubernetes credential: OpenShift's user-workload Prometheus reads
// scrape tokens only from Secrets, and a ServiceAccount token Secret would either need
// the operator to create Secrets (which is a way to mint a token for any
// ServiceAccount) or be deleted by the token controller when OLM creates it before its
// ServiceAccount. A value that opens nothing but /metrics needs neither.
type ScrapeToken struct {
	value atomic.Pointer[string]
}

// newTokenValue returns 32 random bytes, URL-safe base64.
func newTokenValue() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// set records the token the Secret holds now.
func (t *ScrapeToken) set(v string) { t.value.Store(&v) }

// matches reports, in constant time, whether got is the current token. No token is
// known before the first pass has read the Secret, and then nothing matches.
func (t *ScrapeToken) matches(got string) bool {
	want := t.value.Load()
	if want == nil || *want == "" || got == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(*want), []byte(got)) == 1
}

// FilterProvider is the type of controller-runtime's metricsserver.Options.FilterProvider.
type FilterProvider = func(c *rest.Config, httpClient *http.Client) (metricsserver.Filter, error)

// Filter serves /metrics to a request that carries the scrape token, and hands every
// other request to next (Kubernetes authentication and authorization: a TokenReview
// and a SubjectAccessReview for GET /metrics), so that scrapers with a Kubernetes
// identity that may read metrics keep working.
func (t *ScrapeToken) Filter(next FilterProvider) FilterProvider {
	return func(c *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
		nextFilter, err := next(c, httpClient)
		if err != nil {
			return nil, err
		}
		return func(log logr.Logger, handler http.Handler) (http.Handler, error) {
			checked, err := nextFilter(log, handler)
			if err != nil {
				return nil, err
			}
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if bearer, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer "); ok && t.matches(bearer) {
					handler.ServeHTTP(w, req)
					return
				}
				checked.ServeHTTP(w, req)
			}), nil
		}, nil
	}
}
