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
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

func TestBearerTokenIsReadAsTheAPIServerReadsIt(t *testing.T) {
	for _, tc := range []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"  Bearer   abc  ", "abc", true},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Basic abc", "", false},
		{"Bearer a b", "", false},
		{"", "", false},
	} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.Header.Set("Authorization", tc.header)
		if got, ok := bearerToken(req); got != tc.token || ok != tc.ok {
			t.Errorf("%q: got %q, %v; want %q, %v", tc.header, got, ok, tc.token, tc.ok)
		}
	}
}

func TestReviewCacheExpiresAnswersAndStaysBounded(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newReviewCache[bool](3)
	c.put("a", true, now, time.Minute)
	if v, ok := c.get("a", now.Add(59*time.Second)); !ok || !v {
		t.Errorf("a within its TTL: %v, %v", v, ok)
	}
	if _, ok := c.get("a", now.Add(time.Minute)); ok {
		t.Error("a is kept past its TTL")
	}
	c.put("b", false, now, time.Second)
	c.put("c", false, now, time.Hour)
	// Full: the expired answer (b) makes room.
	c.put("d", true, now.Add(2*time.Second), time.Hour)
	if _, ok := c.get("b", now); ok || c.len() != 3 {
		t.Errorf("b kept, or %d answers kept, want 3", c.len())
	}
	// Full of live answers: all go, and the new one is kept.
	c.put("e", true, now.Add(3*time.Second), time.Hour)
	if c.len() != 1 {
		t.Errorf("%d answers kept, want only the new one", c.len())
	}
	for i := range 10_000 {
		c.put(fmt.Sprint("made-up-", i), false, now, time.Hour)
	}
	if c.len() > 3 {
		t.Errorf("%d answers kept, bound 3", c.len())
	}
}

// TestKubernetesAuthAnswersAndCachesAsTheReviewsSay drives the filter with reviews
// answered by client-go's fake clientset and counts them: each status follows from
// the answers, an answer is reused within its TTL and asked again after it.
func TestKubernetesAuthAnswersAndCachesAsTheReviewsSay(t *testing.T) {
	users := map[string]string{"reader-token": "system:serviceaccount:mon:prometheus", "stranger-token": "system:serviceaccount:mon:stranger"}
	clients := fake.NewClientset()
	var tokenReviews, accessReviews int
	clients.PrependReactor("create", "tokenreviews", func(a clienttesting.Action) (bool, runtime.Object, error) {
		tokenReviews++
		tr := a.(clienttesting.CreateAction).GetObject().(*authnv1.TokenReview)
		if name, ok := users[tr.Spec.Token]; ok {
			tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: name, Groups: []string{"system:serviceaccounts"}}}
		} else {
			tr.Status = authnv1.TokenReviewStatus{Error: "invalid bearer token"}
		}
		return true, tr, nil
	})
	clients.PrependReactor("create", "subjectaccessreviews", func(a clienttesting.Action) (bool, runtime.Object, error) {
		accessReviews++
		sar := a.(clienttesting.CreateAction).GetObject().(*authzv1.SubjectAccessReview)
		attrs := sar.Spec.NonResourceAttributes
		sar.Status.Allowed = sar.Spec.User == users["reader-token"] && attrs != nil && attrs.Path == "/metrics" && attrs.Verb == "get"
		return true, sar, nil
	})
	now := time.Unix(1000, 0)
	a := &kubeAuth{
		tokens: newReviewCache[*authnv1.UserInfo](reviewCacheSize), decisions: newReviewCache[bool](reviewCacheSize),
		review: clients.AuthenticationV1().TokenReviews(), access: clients.AuthorizationV1().SubjectAccessReviews(),
		now: func() time.Time { return now },
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	status := func(token, path string) int {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		a.serve(logr.Discard(), ok, rec, req)
		return rec.Code
	}
	for _, tc := range []struct {
		token, path  string
		want         int
		tokenReviews int
		accessReview int
	}{
		{"", "/metrics", http.StatusUnauthorized, 0, 0},
		{"made-up", "/metrics", http.StatusUnauthorized, 1, 0},
		{"made-up", "/metrics", http.StatusUnauthorized, 1, 0},
		{"stranger-token", "/metrics", http.StatusForbidden, 2, 1},
		{"reader-token", "/metrics", http.StatusOK, 3, 2},
		{"reader-token", "/metrics", http.StatusOK, 3, 2},
		{"reader-token", "/debug", http.StatusForbidden, 3, 3},
	} {
		if got := status(tc.token, tc.path); got != tc.want || tokenReviews != tc.tokenReviews || accessReviews != tc.accessReview {
			t.Errorf("%q %s: status %d after %d token and %d access reviews; want %d after %d and %d",
				tc.token, tc.path, got, tokenReviews, accessReviews, tc.want, tc.tokenReviews, tc.accessReview)
		}
	}
	// Past the TTLs the API server is asked again: a revoked grant takes effect.
	now = now.Add(allowedTTL)
	if got := status("reader-token", "/metrics"); got != http.StatusOK || tokenReviews != 4 || accessReviews != 4 {
		t.Errorf("after the TTLs: status %d after %d token and %d access reviews, want 200 after 4 and 4", got, tokenReviews, accessReviews)
	}
}
