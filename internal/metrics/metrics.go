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

// Package metrics holds the operator's own Prometheus collectors. They are registered
// on controller-runtime's registry, so they are served on the manager's /metrics
// endpoint next to controller-runtime's reconcile and workqueue metrics, behind the
// same authentication and authorization.
package metrics

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/callmetrics"
	"github.com/ec2-operator/ec2-operator/internal/version"
)

// codeOK is the code label of a successful AWS call.
const codeOK = "OK"

// Metrics implements both callmetrics.CallRecorder (every AWS SDK attempt) and the
// controller's Observer (reconcile outcomes).
type Metrics struct {
	apiCalls         *prometheus.CounterVec
	apiDuration      *prometheus.HistogramVec
	apiThrottled     *prometheus.CounterVec
	apiRetries       *prometheus.CounterVec
	apiBudget        *prometheus.GaugeVec
	instances        *prometheus.GaugeVec
	timeToRunning    prometheus.Histogram
	driftCorrected   *prometheus.CounterVec
	reconcileErrors  *prometheus.CounterVec
	instanceNotReady *prometheus.GaugeVec
	credsReady       prometheus.Gauge
	eventsReady      prometheus.Gauge
	eventsReceived   *prometheus.CounterVec
	accountReady     *prometheus.GaugeVec
	// replacementsPaused counts the paused objects per account and region.
	replacementsPaused *prometheus.GaugeVec

	mu     sync.Mutex
	states map[types.UID]string
}

// New creates the collectors and registers them on reg (controller-runtime's
// metrics.Registry in the manager; a fresh registry in tests).
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{states: map[types.UID]string{}}
	m.addAWSCallCollectors()
	m.addInstanceCollectors()
	m.addReadinessCollectors()
	// Credentials the manager does not have to wait for are ready from the start.
	m.credsReady.Set(1)
	// build_info says which release is running, so dashboards and support can tell
	// versions apart after an upgrade.
	buildInfo := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ec2_operator_build_info",
		Help: "Always 1; the labels name the operator's version and the source revision it was built from.",
	}, []string{"version", "revision"})
	buildInfo.WithLabelValues(version.Version, version.Revision).Set(1)
	reg.MustRegister(m.apiCalls, m.apiDuration, m.apiThrottled, m.apiRetries, m.apiBudget, m.instances,
		m.timeToRunning, m.driftCorrected, m.reconcileErrors, m.instanceNotReady, m.credsReady, m.eventsReady, m.eventsReceived, m.accountReady, m.replacementsPaused, buildInfo)
	return m
}

// addAWSCallCollectors creates the collectors of AWS API calls. Their account label is
// empty for calls made with the operator's own credentials.
func (m *Metrics) addAWSCallCollectors() {
	m.apiCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ec2_operator_aws_api_calls_total",
		Help: "AWS API call attempts by operation, result code (OK on success, else AWS's error code) and AWSAccount (empty for the operator's own credentials).",
	}, []string{"operation", "code", "account"})
	m.apiDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "ec2_operator_aws_api_call_duration_seconds",
		Help:    "Latency of AWS API call attempts by operation and AWSAccount (empty for the operator's own credentials).",
		Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{"operation", "account"})
	m.apiThrottled = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ec2_operator_aws_api_throttled_total",
		Help: "AWS API call attempts that EC2 throttled (RequestLimitExceeded and similar), by operation and AWSAccount (empty for the operator's own credentials).",
	}, []string{"operation", "account"})
	m.apiRetries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ec2_operator_aws_api_retries_total",
		Help: "AWS API call attempts retried by the SDK, by operation, the error code that caused the retry and AWSAccount (empty for the operator's own credentials).",
	}, []string{"operation", "code", "account"})
	m.apiBudget = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ec2_operator_aws_api_budget_per_second",
		Help: "The refill rate the operator keeps to for one EC2 token bucket, by request key (the action, with :unfiltered for unfiltered describes), bucket (request or resource), region and AWSAccount (empty for the operator's own credentials): the documented or configured rate, lower after EC2 throttled, higher once a raised limit is learned.",
	}, []string{"operation", "bucket", "region", "account"})
}

// addInstanceCollectors creates the collectors of EC2Instances and what the
// reconciler did to them.
func (m *Metrics) addInstanceCollectors() {
	m.instances = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ec2_operator_instances",
		Help: "EC2 instances managed by this operator, by their last observed EC2 state.",
	}, []string{"state"})
	m.timeToRunning = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "ec2_operator_instance_time_to_running_seconds",
		Help:    "Time from an EC2Instance's creation to its instance first reaching running.",
		Buckets: []float64{5, 10, 20, 30, 45, 60, 90, 120, 180, 300, 600},
	})
	m.driftCorrected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ec2_operator_drift_corrections_total",
		Help: "Corrections of instance fields that differed from the spec, by spec field.",
	}, []string{"field"})
	m.reconcileErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ec2_operator_reconcile_errors_total",
		Help: "Failed reconciles by the Ready condition's reason.",
	}, []string{"reason"})
	m.instanceNotReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ec2_operator_instance_not_ready",
		Help: "1 for each EC2Instance whose Ready condition is not True; a Ready EC2Instance has no series, so the series count with the objects in trouble, not with the fleet.",
	}, []string{"ec2instance_namespace", "ec2instance_name"})
	m.replacementsPaused = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ec2_operator_replacements_paused",
		Help: "EC2Instances whose vanished instances are not replaced until a person confirms, by AWS account and region: many instances of one account and region turned not found at once.",
	}, []string{"account", "region"})
}

// addReadinessCollectors creates the gauges and counters of what the operator
// depends on: its AWS credentials, the events queue and the AWSAccounts' roles.
func (m *Metrics) addReadinessCollectors() {
	m.credsReady = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "ec2_operator_aws_credentials_ready",
		Help: "1 when the manager has AWS credentials to use: its own, or the Cloud Credential Operator's Secret once written; 0 while it waits for that Secret.",
	})
	m.eventsReady = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "ec2_operator_events_queue_ready",
		Help: "1 while the manager reads EC2 events from --events-queue-url; 0 while it cannot (the resync then finds changes alone) or when no queue is set.",
	})
	m.eventsReceived = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ec2_operator_events_received_total",
		Help: "EC2 events read from the events queue, by detail type and whether an EC2Instance owns the instance.",
	}, []string{"detail_type", "owned"})
	m.accountReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ec2_operator_aws_account_ready",
		Help: "1 when the operator could assume the AWSAccount's role at its last check, else 0; one series per AWSAccount, removed when it is deleted.",
	}, []string{"account"})
}

// RecordCall records one AWS SDK attempt made with the operator's own credentials.
func (m *Metrics) RecordCall(operation, code string, latency time.Duration) {
	m.recordCall("", operation, code, latency)
}

// RecordRetry records one retry of an AWS SDK call made with the operator's own
// credentials.
func (m *Metrics) RecordRetry(operation, code string) {
	m.apiRetries.WithLabelValues(operation, code, "").Inc()
}

// ForAccount returns the recorder of the calls made in an AWSAccount: the same
// collectors, with the account label set to its name. The label is bounded by the
// number of AWSAccount objects.
func (m *Metrics) ForAccount(account string) callmetrics.CallRecorder {
	return accountCalls{m: m, account: account}
}

// RecordBudget records the rate of one EC2 bucket of the operator's own credentials.
func (m *Metrics) RecordBudget(region, key, bucket string, perSecond float64) {
	m.apiBudget.WithLabelValues(key, bucket, region, "").Set(perSecond)
}

func (m *Metrics) recordCall(account, operation, code string, latency time.Duration) {
	label := code
	if label == "" {
		label = codeOK
	}
	m.apiCalls.WithLabelValues(operation, label, account).Inc()
	m.apiDuration.WithLabelValues(operation, account).Observe(latency.Seconds())
	if awserrors.IsThrottleCode(code) {
		m.apiThrottled.WithLabelValues(operation, account).Inc()
	}
}

// accountCalls records the calls of one AWSAccount.
type accountCalls struct {
	m       *Metrics
	account string
}

// RecordCall records one attempt made in the account.
func (a accountCalls) RecordCall(operation, code string, latency time.Duration) {
	a.m.recordCall(a.account, operation, code, latency)
}

// RecordBudget records the rate of one EC2 bucket of the account.
func (a accountCalls) RecordBudget(region, key, bucket string, perSecond float64) {
	a.m.apiBudget.WithLabelValues(key, bucket, region, a.account).Set(perSecond)
}

// RecordRetry records one retry made in the account.
func (a accountCalls) RecordRetry(operation, code string) {
	a.m.apiRetries.WithLabelValues(operation, code, a.account).Inc()
}

// AccountReady records whether an AWSAccount's role could be assumed.
func (m *Metrics) AccountReady(account string, ready bool) {
	v := 0.0
	if ready {
		v = 1
	}
	m.accountReady.WithLabelValues(account).Set(v)
}

// ForgetAccount removes the series of an AWSAccount that was deleted. Its call
// counters stay: they are history, and Prometheus needs counters to persist.
func (m *Metrics) ForgetAccount(account string) {
	m.accountReady.DeleteLabelValues(account)
	m.apiBudget.DeletePartialMatch(prometheus.Labels{"account": account})
}

// CredentialsReady records whether the manager has AWS credentials to use.
func (m *Metrics) CredentialsReady(ready bool) {
	if ready {
		m.credsReady.Set(1)
	} else {
		m.credsReady.Set(0)
	}
}

// ReconcileError counts a failed reconcile by its reason.
func (m *Metrics) ReconcileError(reason string) { m.reconcileErrors.WithLabelValues(reason).Inc() }

// DriftCorrected counts one corrected field.
func (m *Metrics) DriftCorrected(field string) { m.driftCorrected.WithLabelValues(field).Inc() }

// FirstRunning observes the time from creation to first running.
func (m *Metrics) FirstRunning(sinceCreation time.Duration) {
	m.timeToRunning.Observe(sinceCreation.Seconds())
}

// InstanceState records an object's instance state; "" forgets the object. The gauge
// is recomputed from the per-object states, so it never drifts from them.
func (m *Metrics) InstanceState(uid types.UID, state string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.states[uid] == state {
		return
	}
	if state == "" {
		delete(m.states, uid)
	} else {
		m.states[uid] = state
	}
	counts := map[string]float64{}
	for _, s := range m.states {
		counts[s]++
	}
	for _, s := range []string{ec2.StatePending, ec2.StateRunning, ec2.StateStopping, ec2.StateStopped, ec2.StateShuttingDown, ec2.StateTerminated} {
		m.instances.WithLabelValues(s).Set(counts[s])
	}
}

// InstanceReady records whether an EC2Instance is Ready (alerted on when it is not for
// long). Only objects that are not Ready have a series: one series per object made
// 10,000 series for a fleet of 10,000 that was all well.
func (m *Metrics) InstanceReady(namespace, name string, ready bool) {
	if ready {
		m.instanceNotReady.DeleteLabelValues(namespace, name)
		return
	}
	m.instanceNotReady.WithLabelValues(namespace, name).Set(1)
}

// ReplacementsPaused records how many objects of an account and region are paused;
// the series goes when none is.
func (m *Metrics) ReplacementsPaused(account, region string, objects int) {
	if objects == 0 {
		m.replacementsPaused.DeleteLabelValues(account, region)
		return
	}
	m.replacementsPaused.WithLabelValues(account, region).Set(float64(objects))
}

// ForgetInstance drops a deleted EC2Instance's series, if it had one.
func (m *Metrics) ForgetInstance(namespace, name string) {
	m.instanceNotReady.DeleteLabelValues(namespace, name)
}

// EventsQueueReady records whether the events queue answered the last receive.
func (m *Metrics) EventsQueueReady(ready bool) {
	if ready {
		m.eventsReady.Set(1)
	} else {
		m.eventsReady.Set(0)
	}
}

// EventReceived counts one EC2 event read from the queue.
func (m *Metrics) EventReceived(detailType string, owned bool) {
	m.eventsReceived.WithLabelValues(detailType, strconv.FormatBool(owned)).Inc()
}
