//go:build cluster

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

package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/devtools"
)

// promClient reads the Prometheus HTTP API through a port-forward.
type promClient struct {
	base string
	http *http.Client
}

func newPromClient(base string) *promClient {
	return &promClient{base: base, http: &http.Client{Timeout: 15 * time.Second}}
}

// get decodes the data of a Prometheus API answer into out.
func (p *promClient) get(path string, query url.Values, out any) error {
	u := p.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	resp, err := p.http.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Status    string          `json:"status"`
		Data      json.RawMessage `json:"data"`
		ErrorType string          `json:"errorType"`
		Error     string          `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("GET %s: %s: %w (%.200s)", path, resp.Status, err, body)
	}
	if env.Status != "success" {
		return fmt.Errorf("GET %s: %s: %s %s", path, resp.Status, env.ErrorType, env.Error)
	}
	return json.Unmarshal(env.Data, out)
}

type promTarget struct {
	Labels     map[string]string `json:"labels"`
	ScrapePool string            `json:"scrapePool"`
	ScrapeURL  string            `json:"scrapeUrl"`
	LastError  string            `json:"lastError"`
	Health     string            `json:"health"`
}

func (p *promClient) activeTargets() ([]promTarget, error) {
	var data struct {
		ActiveTargets []promTarget `json:"activeTargets"`
	}
	err := p.get("/api/v1/targets", url.Values{"state": {"active"}}, &data)
	return data.ActiveTargets, err
}

type promSample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// query runs an instant query whose result is a vector.
func (p *promClient) query(q string) ([]promSample, error) {
	var data struct {
		ResultType string       `json:"resultType"`
		Result     []promSample `json:"result"`
	}
	if err := p.get("/api/v1/query", url.Values{"query": {q}}, &data); err != nil {
		return nil, err
	}
	if data.ResultType != "vector" {
		return nil, fmt.Errorf("query %q: result type %s, want vector", q, data.ResultType)
	}
	return data.Result, nil
}

type promRule struct {
	Name     string            `json:"name"`
	Query    string            `json:"query"`
	Duration float64           `json:"duration"`
	Health   string            `json:"health"`
	State    string            `json:"state"`
	Labels   map[string]string `json:"labels"`
	Type     string            `json:"type"`
}

type promRuleGroup struct {
	Name  string     `json:"name"`
	File  string     `json:"file"`
	Rules []promRule `json:"rules"`
}

func (p *promClient) alertingRules() ([]promRuleGroup, error) {
	var data struct {
		Groups []promRuleGroup `json:"groups"`
	}
	err := p.get("/api/v1/rules", url.Values{"type": {"alert"}}, &data)
	return data.Groups, err
}

type promAlert struct {
	Labels   map[string]string `json:"labels"`
	State    string            `json:"state"`
	ActiveAt string            `json:"activeAt"`
}

func (p *promClient) alerts() ([]promAlert, error) {
	var data struct {
		Alerts []promAlert `json:"alerts"`
	}
	err := p.get("/api/v1/alerts", nil, &data)
	return data.Alerts, err
}

// moduleDir downloads (or finds in the module cache) a Go module at a named version and
// returns its directory.
func moduleDir(t *testing.T, module, version string) string {
	t.Helper()
	dir, err := devtools.ModuleDir(module + "@" + version)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
