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

package metrics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/callmetrics"
)

func TestCallsAreCountedByOperationCodeAndAccountWithThrottlesSeparately(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg)
	m.RecordCall("RunInstances", "", 20*time.Millisecond)
	m.RecordCall("RunInstances", "RequestLimitExceeded", 5*time.Millisecond)
	m.RecordRetry("RunInstances", "RequestLimitExceeded")
	m.RecordCall("DescribeInstances", "", time.Millisecond)
	// Calls made in an AWSAccount carry its name; the operator's own have none.
	team := m.ForAccount("team-a")
	team.RecordCall("AssumeRole", "", time.Millisecond)
	team.RecordCall("RunInstances", "RequestLimitExceeded", time.Millisecond)
	team.RecordRetry("RunInstances", "RequestLimitExceeded")

	want := `
# HELP ec2_operator_aws_api_calls_total AWS API call attempts by operation, result code (OK on success, else AWS's error code) and AWSAccount (empty for the operator's own credentials).
# TYPE ec2_operator_aws_api_calls_total counter
ec2_operator_aws_api_calls_total{account="",code="OK",operation="DescribeInstances"} 1
ec2_operator_aws_api_calls_total{account="",code="OK",operation="RunInstances"} 1
ec2_operator_aws_api_calls_total{account="",code="RequestLimitExceeded",operation="RunInstances"} 1
ec2_operator_aws_api_calls_total{account="team-a",code="OK",operation="AssumeRole"} 1
ec2_operator_aws_api_calls_total{account="team-a",code="RequestLimitExceeded",operation="RunInstances"} 1
# HELP ec2_operator_aws_api_throttled_total AWS API call attempts that EC2 throttled (RequestLimitExceeded and similar), by operation and AWSAccount (empty for the operator's own credentials).
# TYPE ec2_operator_aws_api_throttled_total counter
ec2_operator_aws_api_throttled_total{account="",operation="RunInstances"} 1
ec2_operator_aws_api_throttled_total{account="team-a",operation="RunInstances"} 1
# HELP ec2_operator_aws_api_retries_total AWS API call attempts retried by the SDK, by operation, the error code that caused the retry and AWSAccount (empty for the operator's own credentials).
# TYPE ec2_operator_aws_api_retries_total counter
ec2_operator_aws_api_retries_total{account="",code="RequestLimitExceeded",operation="RunInstances"} 1
ec2_operator_aws_api_retries_total{account="team-a",code="RequestLimitExceeded",operation="RunInstances"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"ec2_operator_aws_api_calls_total", "ec2_operator_aws_api_throttled_total", "ec2_operator_aws_api_retries_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(m.apiDuration); n != 4 {
		t.Errorf("want latency series for 4 operation and account pairs, got %d", n)
	}
}

func TestAccountReadinessHasOneSeriesPerAccountUntilItIsDeleted(t *testing.T) {
	m := New(prometheus.NewRegistry())
	m.AccountReady("team-a", true)
	m.AccountReady("team-b", false)
	if got := testutil.ToFloat64(m.accountReady.WithLabelValues("team-a")); got != 1 {
		t.Errorf("team-a ready = %v, want 1", got)
	}
	m.ForgetAccount("team-b")
	if n := testutil.CollectAndCount(m.accountReady); n != 1 {
		t.Errorf("want 1 series after team-b was deleted, got %d", n)
	}
}

func TestInstancesGaugeFollowsTheLastStateOfEachObject(t *testing.T) {
	m := New(prometheus.NewRegistry())
	m.InstanceState("a", "pending")
	m.InstanceState("b", "running")
	m.InstanceState("a", "running")
	m.InstanceState("c", "stopped")
	m.InstanceState("c", "")

	for state, want := range map[string]float64{"pending": 0, "running": 2, "stopped": 0} {
		if got := testutil.ToFloat64(m.instances.WithLabelValues(state)); got != want {
			t.Errorf("instances{state=%q} = %v, want %v", state, got, want)
		}
	}
}

func TestReconcileOutcomesAreCounted(t *testing.T) {
	m := New(prometheus.NewRegistry())
	m.ReconcileError("ImageNotFound")
	m.ReconcileError("ImageNotFound")
	m.DriftCorrected("tags")
	m.FirstRunning(42 * time.Second)

	if got := testutil.ToFloat64(m.reconcileErrors.WithLabelValues("ImageNotFound")); got != 2 {
		t.Errorf("reconcile errors = %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.driftCorrected.WithLabelValues("tags")); got != 1 {
		t.Errorf("drift corrections = %v, want 1", got)
	}
	if n := testutil.CollectAndCount(m.timeToRunning); n != 1 {
		t.Errorf("time to running not observed")
	}
}

func TestCredentialsReadyStartsReadyAndFollowsTheWait(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg)
	if v := testutil.ToFloat64(m.credsReady); v != 1 {
		t.Errorf("a manager with its own credentials reports %v, want 1", v)
	}
	m.CredentialsReady(false)
	if v := testutil.ToFloat64(m.credsReady); v != 0 {
		t.Errorf("waiting for the Cloud Credential Operator reports %v, want 0", v)
	}
	m.CredentialsReady(true)
	if v := testutil.ToFloat64(m.credsReady); v != 1 {
		t.Errorf("after the Secret arrived %v, want 1", v)
	}
}

// The learned EC2 budgets are one series per bucket, region and account; an account's
// go when it is deleted. The client reports them through callmetrics.BudgetRecorder, which
// both the operator's own recorder and an account's implement.
func TestAPIBudgetsAreGaugesPerBucketRegionAndAccount(t *testing.T) {
	m := New(prometheus.NewRegistry())
	var own, account callmetrics.BudgetRecorder = m, m.ForAccount("team-a").(callmetrics.BudgetRecorder)
	own.RecordBudget("us-east-1", "RunInstances", "request", 2)
	own.RecordBudget("us-east-1", "RunInstances", "request", 6.5)
	account.RecordBudget("eu-west-1", "RunInstances", "resource", 2)
	if got := testutil.ToFloat64(m.apiBudget.WithLabelValues("RunInstances", "request", "us-east-1", "")); got != 6.5 {
		t.Errorf("the operator's RunInstances budget is %v, want the last rate 6.5", got)
	}
	if n := testutil.CollectAndCount(m.apiBudget); n != 2 {
		t.Errorf("%d series, want 2", n)
	}
	m.ForgetAccount("team-a")
	if n := testutil.CollectAndCount(m.apiBudget); n != 1 {
		t.Errorf("%d series after the account was deleted, want only the operator's own", n)
	}
}

// Only EC2Instances that are not Ready have a series: a fleet that is well costs none,
// and an object that becomes Ready, or is deleted, loses its series.
func TestOnlyObjectsThatAreNotReadyHaveASeries(t *testing.T) {
	m := New(prometheus.NewRegistry())
	for i := range 100 {
		m.InstanceReady("apps", fmt.Sprintf("ready-%d", i), true)
	}
	m.InstanceReady("apps", "web", false)
	m.InstanceReady("apps", "db", false)
	if n := testutil.CollectAndCount(m.instanceNotReady); n != 2 {
		t.Errorf("%d series for 100 Ready objects and 2 that are not, want 2", n)
	}
	if v := testutil.ToFloat64(m.instanceNotReady.WithLabelValues("apps", "web")); v != 1 {
		t.Errorf("web's series is %v, want 1", v)
	}
	m.InstanceReady("apps", "web", true)
	m.ForgetInstance("apps", "db")
	if n := testutil.CollectAndCount(m.instanceNotReady); n != 0 {
		t.Errorf("%d series once web is Ready and db deleted, want none", n)
	}
}
