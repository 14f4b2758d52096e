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
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	authnclient "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authzclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The review caches keep what the API server answered for as long as
// controller-runtime's filter does (its WithAuthenticationAndAuthorization, which
// this replaces): a Prometheus scraping every 30 s costs a TokenReview a minute and
// a SubjectAccessReview every five, and a revoked grant takes effect within them.
const (
	authenticatedTTL = time.Minute
	// rejectedTTL keeps a token the API server did not accept, so that a client
	// retrying a bad token cannot turn each request into a TokenReview.
	rejectedTTL = 10 * time.Second
	allowedTTL  = 5 * time.Minute
	deniedTTL   = 30 * time.Second
	// reviewTimeout bounds one review call.
	reviewTimeout = 10 * time.Second
)

// KubernetesAuth is the metrics endpoint's Kubernetes authentication and
// authorization: the request's bearer token is checked with a TokenReview, and its
// user's right to the verb on the path (GET /metrics, a non-resource URL) with a
// SubjectAccessReview, as the API server itself would. Anonymous requests and client
// certificates are not accepted.
//
// It does what controller-runtime's filters.WithAuthenticationAndAuthorization does
// with the two client-go calls alone: that one is built on k8s.io/apiserver, which
// doubled the manager's binary (89 MB against 40 MB) and with it its resident memory,
// most of which is the binary's own pages.
func KubernetesAuth(c *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
	authn, err := authnclient.NewForConfigAndClient(c, httpClient)
	if err != nil {
		return nil, err
	}
	authz, err := authzclient.NewForConfigAndClient(c, httpClient)
	if err != nil {
		return nil, err
	}
	a := &kubeAuth{
		tokens:    newReviewCache[*authnv1.UserInfo](reviewCacheSize),
		decisions: newReviewCache[bool](reviewCacheSize),
		review:    authn.TokenReviews(),
		access:    authz.SubjectAccessReviews(),
		now:       time.Now,
	}
	return func(log logr.Logger, handler http.Handler) (http.Handler, error) {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { a.serve(log, handler, w, req) }), nil
	}, nil
}

// kubeAuth holds the clients and the caches of KubernetesAuth.
type kubeAuth struct {
	// tokens maps a token's hash to its user, nil for a token that was not accepted.
	tokens *reviewCache[*authnv1.UserInfo]
	// decisions maps a user, verb and path to whether the user may.
	decisions *reviewCache[bool]
	review    authnclient.TokenReviewInterface
	access    authzclient.SubjectAccessReviewInterface
	now       func() time.Time
}

func (a *kubeAuth) serve(log logr.Logger, next http.Handler, w http.ResponseWriter, req *http.Request) {
	token, ok := bearerToken(req)
	if !ok {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	user, err := a.authenticate(req.Context(), token)
	if err != nil {
		log.Error(err, "Authentication failed")
		http.Error(w, "Authentication failed", http.StatusInternalServerError)
		return
	}
	if user == nil {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	verb := strings.ToLower(req.Method)
	allowed, err := a.authorize(req.Context(), user, verb, req.URL.Path)
	if err != nil {
		msg := fmt.Sprintf("Authorization for user %s failed", user.Username)
		log.Error(err, msg)
		http.Error(w, msg, http.StatusInternalServerError)
		return
	}
	if !allowed {
		log.V(4).Info("Authorization denied", "user", user.Username, "verb", verb, "path", req.URL.Path)
		http.Error(w, fmt.Sprintf("Authorization denied for user %s", user.Username), http.StatusForbidden)
		return
	}
	next.ServeHTTP(w, req)
}

// bearerToken is the request's bearer token, as the API server reads it: the scheme
// in any case, one space, a token without spaces.
func bearerToken(req *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(req.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// authenticate returns the token's user, nil when the API server did not accept it.
// The cache is keyed by the token's hash, so the process keeps no token it was sent.
func (a *kubeAuth) authenticate(ctx context.Context, token string) (*authnv1.UserInfo, error) {
	key := fmt.Sprintf("%x", sha256.Sum256([]byte(token)))
	if user, ok := a.tokens.get(key, a.now()); ok {
		return user, nil
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	res, err := a.review.Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	if !res.Status.Authenticated {
		a.tokens.put(key, nil, a.now(), rejectedTTL)
		return nil, nil
	}
	user := res.Status.User
	a.tokens.put(key, &user, a.now(), authenticatedTTL)
	return &user, nil
}

// authorize asks whether the user may use the verb on the non-resource path.
func (a *kubeAuth) authorize(ctx context.Context, user *authnv1.UserInfo, verb, path string) (bool, error) {
	key := accessKey(user, verb, path)
	if allowed, ok := a.decisions.get(key, a.now()); ok {
		return allowed, nil
	}
	extra := map[string]authzv1.ExtraValue{}
	for k, v := range user.Extra {
		extra[k] = authzv1.ExtraValue(v)
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	res, err := a.access.Create(ctx, &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: user.Username, UID: user.UID, Groups: user.Groups, Extra: extra,
		NonResourceAttributes: &authzv1.NonResourceAttributes{Path: path, Verb: verb},
	}}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	allowed := res.Status.Allowed && !res.Status.Denied
	ttl := deniedTTL
	if allowed {
		ttl = allowedTTL
	}
	a.decisions.put(key, allowed, a.now(), ttl)
	return allowed, nil
}

// accessKey names what a SubjectAccessReview decided on: the whole user (name, UID,
// groups, extra) and the request.
func accessKey(user *authnv1.UserInfo, verb, path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q %q %q %q", verb, path, user.Username, user.UID, user.Groups)
	keys := make([]string, 0, len(user.Extra))
	for k := range user.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %q=%q", k, []string(user.Extra[k]))
	}
	return fmt.Sprintf("%x", sha256.Sum256([]byte(b.String())))
}
