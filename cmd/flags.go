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

package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/clusterid"
	"github.com/ec2-operator/ec2-operator/internal/controller"
	"github.com/ec2-operator/ec2-operator/internal/controller/converge"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/tlsprofile"
)

// options are the manager's settings. Operator settings take a flag or, when the flag
// is not given, an environment variable, so that an OLM Subscription's `config.env`
// can set them without editing the Deployment's arguments.
type options struct {
	metricsAddr     string
	metricsCertPath string
	metricsCertName string
	metricsCertKey  string
	secureMetrics   bool
	enableHTTP2     bool
	probeAddr       string
	// tlsProfile is --tls-profile; empty follows the cluster's profile on OpenShift.
	tlsProfile      string
	tlsMinVersion   string
	tlsCipherSuites string

	leaderElect          bool
	leaderElectionNS     string
	leaseDuration        time.Duration
	renewDeadline        time.Duration
	retryPeriod          time.Duration
	gracefulShutdownTime time.Duration

	awsRegion               string
	ec2Endpoint             string
	awsMaxAttempts          int
	awsRateLimit            float64
	awsAPILimits            string
	maxConcurrentReconciles int
	resyncPeriod            time.Duration
	pollInterval            time.Duration
	attributeResyncPeriod   time.Duration
	typeChangeTimeout       time.Duration
	restorePolicy           string
	clusterID               string
	watchNamespaces         string
	eventsQueueURL          string
	sqsEndpoint             string
	stsEndpoint             string
	extraRegions            string
	// resyncPeriodSet says whether --resync-period or RESYNC_PERIOD was given: with
	// events on, the default resync period is longer.
	resyncPeriodSet bool
	// envProblems are the environment variables that set a flag's default and do not
	// parse; validate reports those whose flag was not given (afterParse drops the
	// others).
	envProblems []envProblem
}

// maxClusterID is the longest --cluster-id: a Kubernetes UID's length. The IAM policy
// names the cluster ID in most of its statements and must stay within IAM's 6,144
// characters for a managed policy (credentials.TestThePolicyFitsAManagedPolicy).
const maxClusterID = 36

// DefaultEventsResyncPeriod is the resync period when EC2 events report changes
// outside Kubernetes: the resync only catches events that were lost.
const DefaultEventsResyncPeriod = time.Hour

// bindFlags registers every flag on fs, with defaults from the environment.
func (o *options) bindFlags(fs *flag.FlagSet) {
	o.bindServingFlags(fs)
	o.bindLeaderElectionFlags(fs)
	o.bindAWSFlags(fs)
	o.bindReconcileFlags(fs)
	o.bindEventsFlags(fs)
}

// bindServingFlags registers the flags of the metrics and health probe endpoints.
// They take no environment variables: the Deployment's arguments set them.
func (o *options) bindServingFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", "0", "The address the metrics endpoint binds to. "+
		"Use :8443 for HTTPS, or :8080 together with --metrics-secure=false for plain HTTP, or leave as 0 to disable the metrics service.")
	fs.StringVar(&o.metricsCertPath, "metrics-cert-path", "",
		"The directory that contains the metrics server certificate (for example one issued by OpenShift's service CA). "+
			"When empty, a self-signed certificate is generated.")
	fs.StringVar(&o.metricsCertName, "metrics-cert-name", "tls.crt", "The name of the metrics server certificate file.")
	fs.StringVar(&o.metricsCertKey, "metrics-cert-key", "tls.key", "The name of the metrics server key file.")
	fs.BoolVar(&o.secureMetrics, "metrics-secure", true,
		"Serve metrics over HTTPS behind Kubernetes authentication and authorization. Use --metrics-secure=false for plain HTTP.")
	fs.BoolVar(&o.enableHTTP2, "enable-http2", false,
		"Enable HTTP/2 for the metrics server (off by default because of the HTTP/2 Stream Cancellation and Rapid Reset CVEs).")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "The address the probe endpoint binds to.")
	fs.StringVar(&o.tlsProfile, "tls-profile", "",
		"The TLS security profile of the metrics server: Old, Intermediate, Modern or Custom (with --tls-min-version and --tls-cipher-suites). "+
			"When empty, the cluster's APIServer tlsSecurityProfile on OpenShift, followed as it changes, and Intermediate elsewhere.")
	fs.StringVar(&o.tlsMinVersion, "tls-min-version", "",
		"With --tls-profile=Custom: the lowest TLS version served, VersionTLS10 to VersionTLS13.")
	fs.StringVar(&o.tlsCipherSuites, "tls-cipher-suites", "",
		"With --tls-profile=Custom: comma-separated TLS 1.2 ciphers, OpenSSL or IANA names (TLS 1.3's are always on).")
}

// tlsSettings returns the TLS settings the flags fix, and whether the servers instead
// follow the cluster's profile (no --tls-profile; where there is no cluster profile,
// the settings returned, Intermediate, stay).
func (o *options) tlsSettings() (settings tlsprofile.Settings, followCluster bool, err error) {
	if o.tlsProfile == "" {
		if o.tlsMinVersion != "" || o.tlsCipherSuites != "" {
			return settings, false, fmt.Errorf("--tls-min-version and --tls-cipher-suites need --tls-profile=Custom")
		}
		return tlsprofile.Default(), true, nil
	}
	spec := tlsprofile.Spec{Type: o.tlsProfile}
	if o.tlsProfile == tlsprofile.Custom {
		spec.Custom = &tlsprofile.CustomSpec{MinTLSVersion: o.tlsMinVersion}
		for _, c := range strings.Split(o.tlsCipherSuites, ",") {
			if c = strings.TrimSpace(c); c != "" {
				spec.Custom.Ciphers = append(spec.Custom.Ciphers, c)
			}
		}
	} else if o.tlsMinVersion != "" || o.tlsCipherSuites != "" {
		return settings, false, fmt.Errorf("--tls-min-version and --tls-cipher-suites need --tls-profile=Custom, not %s", o.tlsProfile)
	}
	settings, err = tlsprofile.Resolve(spec)
	if err != nil {
		return settings, false, fmt.Errorf("--tls-profile: %w", err)
	}
	settings.Profile += " (--tls-profile)"
	return settings, false, nil
}

// bindLeaderElectionFlags registers the flags of leader election and shutdown.
func (o *options) bindLeaderElectionFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.leaderElect, "leader-elect", false,
		"Enable leader election, so that only one of several replicas reconciles at a time.")
	fs.StringVar(&o.leaderElectionNS, "leader-election-namespace", "",
		"The namespace of the leader election Lease; needed when running outside a cluster.")
	fs.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second,
		"How long non-leaders wait before taking over a lease that is not renewed.")
	fs.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 10*time.Second,
		"How long the leader keeps trying to renew its lease before giving up leadership.")
	fs.DurationVar(&o.retryPeriod, "leader-elect-retry-period", 2*time.Second,
		"How often leader election clients retry.")
	fs.DurationVar(&o.gracefulShutdownTime, "graceful-shutdown-timeout", 30*time.Second,
		"How long in-flight reconciles may run after a stop signal.")
}

// bindAWSFlags registers the flags that say how the operator reaches AWS: regions,
// endpoints, retries and the API budget.
func (o *options) bindAWSFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.awsRegion, "aws-region", envOr("AWS_REGION", envOr("AWS_DEFAULT_REGION", "")),
		"The AWS region of EC2Instances that do not name one (env AWS_REGION).")
	fs.StringVar(&o.extraRegions, "extra-regions", envOr("EXTRA_REGIONS", ""),
		"Comma-separated AWS regions accepted besides those of the partitions this build knows (regions newer than it); "+
			"any other region an EC2Instance or AWSAccount names is refused with RegionUnknown before any call (env EXTRA_REGIONS).")
	fs.StringVar(&o.ec2Endpoint, "ec2-endpoint", envOr("AWS_ENDPOINT_URL_EC2", ""),
		"Override the EC2 endpoint URL, for example a local emulator (env AWS_ENDPOINT_URL_EC2).")
	fs.IntVar(&o.awsMaxAttempts, "aws-max-attempts", o.envInt("aws-max-attempts", "AWS_MAX_ATTEMPTS", 5),
		"Attempts per AWS call, the first one included; the SDK retries throttling and transient errors (env AWS_MAX_ATTEMPTS).")
	fs.StringVar(&o.awsAPILimits, "aws-api-limits", envOr("AWS_API_LIMITS", "learn"),
		`The EC2 API budget the operator keeps to per region: "learn" (start from EC2's default token buckets per API, `+
			`for example RunInstances 5 then 2 a second, and while calls wait probe upward to the account's real limits, `+
			`backing off at EC2's first RequestLimitExceeded), "documented" (the default buckets, never exceeded), `+
			`overrides of them that pin the rates of an account whose limits AWS raised, `+
			`such as "RunInstances=50/20,RunInstances.resources=5000/10", or "off" (env AWS_API_LIMITS).`)
	fs.Float64Var(&o.awsRateLimit, "aws-rate-limit", o.envFloat("aws-rate-limit", "AWS_RATE_LIMIT", 0),
		"An additional client-side cap on all AWS requests per second per region, retries included; 0 means none (env AWS_RATE_LIMIT).")
	fs.StringVar(&o.stsEndpoint, "sts-endpoint", envOr("AWS_ENDPOINT_URL_STS", ""),
		"Overrides the STS endpoint URL used to assume the roles of AWSAccounts, for example an emulator or a "+
			"VPC endpoint (env AWS_ENDPOINT_URL_STS).")
}

// bindReconcileFlags registers the flags of how, how often and which EC2Instances are
// reconciled, and which AWS resources are this cluster's.
func (o *options) bindReconcileFlags(fs *flag.FlagSet) {
	fs.IntVar(&o.maxConcurrentReconciles, "max-concurrent-reconciles", o.envInt("max-concurrent-reconciles", "MAX_CONCURRENT_RECONCILES", 16),
		"How many EC2Instances are reconciled in parallel (env MAX_CONCURRENT_RECONCILES).")
	fs.DurationVar(&o.resyncPeriod, "resync-period", o.envDuration("resync-period", "RESYNC_PERIOD", controller.DefaultResyncPeriod),
		"How often a settled instance is checked for drift made outside Kubernetes (env RESYNC_PERIOD).")
	fs.DurationVar(&o.pollInterval, "poll-interval", o.envDuration("poll-interval", "POLL_INTERVAL", controller.DefaultPollInterval),
		"How often an instance in transition (pending, stopping, being changed) is checked (env POLL_INTERVAL).")
	fs.DurationVar(&o.attributeResyncPeriod, "attribute-resync-period",
		o.envDuration("attribute-resync-period", "ATTRIBUTE_RESYNC_PERIOD", controller.DefaultAttributeResyncPeriod),
		"How often termination protection, user data and root volume size are re-read when the spec does not change "+
			"(env ATTRIBUTE_RESYNC_PERIOD).")
	fs.DurationVar(&o.typeChangeTimeout, "type-change-timeout",
		o.envDuration("type-change-timeout", "TYPE_CHANGE_TIMEOUT", converge.DefaultTypeChangeTimeout),
		"How long a start with a new instance type is retried while EC2 has no capacity for it before the instance "+
			"goes back to the type it ran with (env TYPE_CHANGE_TIMEOUT).")
	fs.StringVar(&o.restorePolicy, "restore-policy", envOr("RESTORE_POLICY", string(launch.RestoreAdopt)),
		`What a new EC2Instance does about a live instance tagged with its namespace and name by an earlier object `+
			`(a backup restore or GitOps re-sync): "adopt" takes it over, "refuse" reports it (InstanceExists) and launches nothing. `+
			`Use "refuse" when several clusters share an AWS account and may reuse namespace/name pairs (env RESTORE_POLICY).`)
	fs.StringVar(&o.clusterID, "cluster-id", envOr(clusterid.Env, ""),
		`This cluster's identity (at most 36 characters) in the ec2-operator.dev:cluster tag of every resource the operator creates; only `+
			`resources with it (or, launched before the tag existed, with an object's own UID) are ever changed or `+
			`deleted. Empty uses the kube-system Namespace's UID. Set it to the old cluster's ID when a cluster is `+
			`rebuilt on purpose and must manage the instances of the one it replaces (env CLUSTER_ID).`)
	fs.StringVar(&o.watchNamespaces, "watch-namespaces", envOr("WATCH_NAMESPACE", ""),
		"Comma-separated namespaces whose EC2Instances are managed; empty means all (env WATCH_NAMESPACE).")
}

// bindEventsFlags registers the flags of the SQS queue that EC2's events arrive on.
func (o *options) bindEventsFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.eventsQueueURL, "events-queue-url", envOr("EVENTS_QUEUE_URL", ""),
		"The SQS queue an EventBridge rule sends EC2 instance state-change, Spot interruption and rebalance events to "+
			"(docs/events.md); changes outside Kubernetes are then seen within seconds, and --resync-period defaults to 1h "+
			"(env EVENTS_QUEUE_URL). Empty relies on the resync alone.")
	fs.StringVar(&o.sqsEndpoint, "sqs-endpoint", envOr("AWS_ENDPOINT_URL_SQS", ""),
		"Overrides the SQS endpoint URL of --events-queue-url, for example an emulator (env AWS_ENDPOINT_URL_SQS).")
}

// afterParse settles what depends on which flags were given: an environment variable
// is not read for a flag given on the command line, so its problems go; and the
// default resync period is longer when events are on and no resync period was given.
func (o *options) afterParse(fs *flag.FlagSet) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	o.envProblems = slices.DeleteFunc(o.envProblems, func(p envProblem) bool { return given[p.flag] })
	o.resyncPeriodSet = given["resync-period"]
	if os.Getenv("RESYNC_PERIOD") != "" {
		o.resyncPeriodSet = true
	}
	if o.eventsQueueURL != "" && !o.resyncPeriodSet {
		o.resyncPeriod = DefaultEventsResyncPeriod
	}
}

// validate rejects settings that cannot work, with a message naming the flag.
func (o *options) validate() error {
	if len(o.envProblems) > 0 {
		errs := make([]error, len(o.envProblems))
		for i, p := range o.envProblems {
			errs[i] = p
		}
		return errors.Join(errs...)
	}
	switch {
	case o.maxConcurrentReconciles < 1:
		return fmt.Errorf("--max-concurrent-reconciles must be at least 1")
	case o.resyncPeriod < time.Second:
		return fmt.Errorf("--resync-period must be at least 1s")
	case o.pollInterval < 100*time.Millisecond:
		return fmt.Errorf("--poll-interval must be at least 100ms")
	case o.awsMaxAttempts < 1:
		return fmt.Errorf("--aws-max-attempts must be at least 1")
	case o.awsRateLimit < 0:
		return fmt.Errorf("--aws-rate-limit must not be negative")
	case o.typeChangeTimeout < time.Second:
		return fmt.Errorf("--type-change-timeout must be at least 1s")
	case o.restorePolicy != string(launch.RestoreAdopt) && o.restorePolicy != string(launch.RestoreRefuse):
		return fmt.Errorf("--restore-policy must be %q or %q, not %q", launch.RestoreAdopt, launch.RestoreRefuse, o.restorePolicy)
	case len(o.clusterID) > maxClusterID || strings.TrimSpace(o.clusterID) != o.clusterID:
		return fmt.Errorf("--cluster-id must be at most %d characters (a Kubernetes UID's length, so that the IAM policy that names it fits IAM's limit), without leading or trailing spaces", maxClusterID)
	case o.renewDeadline >= o.leaseDuration:
		return fmt.Errorf("--leader-elect-renew-deadline must be shorter than --leader-elect-lease-duration")
	}
	_, _, err := o.tlsSettings()
	return err
}

// learnLimits reports whether the per-API budget probes for the account's real
// limits: with "learn", the default; every other value pins the rates.
func (o *options) learnLimits() bool { return o.awsAPILimits == "" || o.awsAPILimits == "learn" }

// apiLimits returns the per-API budget: EC2's documented buckets with the overrides
// of --aws-api-limits, or nil for "off".
func (o *options) apiLimits() (*ec2limits.Limits, error) {
	switch o.awsAPILimits {
	case "off":
		return nil, nil
	case "", "learn", "documented":
		l := ec2limits.Documented()
		return &l, nil
	}
	l, err := ec2limits.Documented().Parse(o.awsAPILimits)
	if err != nil {
		return nil, fmt.Errorf("--aws-api-limits: %w", err)
	}
	return &l, nil
}

// namespaces returns the namespaces to watch; nil means all.
func (o *options) namespaces() []string {
	var out []string
	for _, ns := range strings.Split(o.watchNamespaces, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out = append(out, ns)
		}
	}
	return out
}

// envOr returns the environment variable key, or fallback when it is unset or empty,
// so that a variable set to "" keeps the flag's default.
func envOr(key, fallback string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return fallback
}

// envProblem is an environment variable that sets a flag's default but does not parse.
type envProblem struct {
	flag, key, value, want string
}

func (p envProblem) Error() string {
	return fmt.Sprintf("%s=%q (the default of --%s) is not %s", p.key, p.value, p.flag, p.want)
}

// envNumber returns the environment variable key read by parse, or fallback when it
// is unset or empty. A value that does not parse is recorded as a problem of the flag
// it sets, which validate reports, instead of silently leaving the default in place:
// RESYNC_PERIOD=600 in a Subscription's config.env must stop the manager with a
// message, not run it with a 10-minute resync the user did not ask for.
func envNumber[T any](o *options, flagName, key, want string, fallback T, parse func(string) (T, error)) T {
	v, ok := os.LookupEnv(key)
	if !ok || v == "" {
		return fallback
	}
	parsed, err := parse(v)
	if err != nil {
		o.envProblems = append(o.envProblems, envProblem{flag: flagName, key: key, value: v, want: want})
		return fallback
	}
	return parsed
}

// envInt is envNumber for an integer.
func (o *options) envInt(flagName, key string, fallback int) int {
	return envNumber(o, flagName, key, "an integer", fallback, strconv.Atoi)
}

// envFloat is envNumber for a decimal number.
func (o *options) envFloat(flagName, key string, fallback float64) float64 {
	return envNumber(o, flagName, key, "a number", fallback, func(v string) (float64, error) { return strconv.ParseFloat(v, 64) })
}

// envDuration is envNumber for a Go duration.
func (o *options) envDuration(flagName, key string, fallback time.Duration) time.Duration {
	return envNumber(o, flagName, key, "a duration with its unit, such as 600s, 10m or 1h", fallback, time.ParseDuration)
}
