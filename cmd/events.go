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
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ec2-operator/ec2-operator/internal/cloud/sdkhttp"
	"github.com/ec2-operator/ec2-operator/internal/controller"
	"github.com/ec2-operator/ec2-operator/internal/events"
	"github.com/ec2-operator/ec2-operator/internal/metrics"
)

// addEventsConsumer adds the SQS consumer of EC2 events to the manager. It runs only
// in the leader (like the reconciler), with the operator's AWS credentials, in the
// queue's region.
func addEventsConsumer(ctx context.Context, mgr ctrl.Manager, opts options, creds aws.CredentialsProvider,
	m *metrics.Metrics, r *controller.EC2InstanceReconciler) error {
	region := queueRegion(opts.eventsQueueURL, opts.awsRegion)
	if region == "" {
		return fmt.Errorf("--events-queue-url %q names no region and --aws-region is not set", opts.eventsQueueURL)
	}
	load := []func(*config.LoadOptions) error{config.WithRegion(region)}
	if creds != nil {
		load = append(load, config.WithCredentialsProvider(creds))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return fmt.Errorf("loading AWS configuration for the events queue: %w", err)
	}
	client := sqs.NewFromConfig(cfg, func(o *sqs.Options) {
		if opts.sqsEndpoint != "" {
			o.BaseEndpoint = aws.String(opts.sqsEndpoint)
		}
		// A received batch must not be lost under a closed connection
		// (sdkhttp.WholeBodies): its messages would come back only after their
		// visibility timeout.
		o.HTTPClient = sdkhttp.WholeBodies(o.HTTPClient)
	})
	return mgr.Add(&events.Consumer{
		QueueURL: opts.eventsQueueURL,
		SQS:      client,
		Handle:   r.HandleEvent,
		Log:      ctrl.Log.WithName("events"),
		Observe:  events.Observer{QueueReady: m.EventsQueueReady, Received: m.EventReceived},
	})
}

// queueRegion reads the region from an SQS queue URL
// (https://sqs.<region>.amazonaws.com/<account>/<name>), or returns fallback.
func queueRegion(queueURL, fallback string) string {
	u, err := url.Parse(queueURL)
	if err != nil {
		return fallback
	}
	parts := strings.Split(u.Hostname(), ".")
	if len(parts) >= 3 && parts[0] == "sqs" && strings.HasSuffix(u.Hostname(), ".amazonaws.com") {
		return parts[1]
	}
	return fallback
}
