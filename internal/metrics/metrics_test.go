package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestCallsAreCountedByOperationAndCodeWithThrottlesSeparately(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg)
	m.RecordCall("RunInstances", "", 20*time.Millisecond)
	m.RecordCall("RunInstances", "RequestLimitExceeded", 5*time.Millisecond)
	m.RecordRetry("RunInstances", "RequestLimitExceeded")
	m.RecordCall("DescribeInstances", "", time.Millisecond)

	want := `
# HELP ec2_operator_aws_api_calls_total AWS API call attempts by operation and result code (OK on success, else AWS's error code).
# TYPE ec2_operator_aws_api_calls_total counter
ec2_operator_aws_api_calls_total{code="OK",operation="DescribeInstances"} 1
ec2_operator_aws_api_calls_total{code="OK",operation="RunInstances"} 1
ec2_operator_aws_api_calls_total{code="RequestLimitExceeded",operation="RunInstances"} 1
# HELP ec2_operator_aws_api_throttled_total AWS API call attempts that EC2 throttled (RequestLimitExceeded and similar), by operation.
# TYPE ec2_operator_aws_api_throttled_total counter
ec2_operator_aws_api_throttled_total{operation="RunInstances"} 1
# HELP ec2_operator_aws_api_retries_total AWS API call attempts retried by the SDK, by operation and the error code that caused the retry.
# TYPE ec2_operator_aws_api_retries_total counter
ec2_operator_aws_api_retries_total{code="RequestLimitExceeded",operation="RunInstances"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"ec2_operator_aws_api_calls_total", "ec2_operator_aws_api_throttled_total", "ec2_operator_aws_api_retries_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(m.apiDuration); n != 2 {
		t.Errorf("want latency series for 2 operations, got %d", n)
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
