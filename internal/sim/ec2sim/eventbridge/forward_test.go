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

package eventbridge

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/sim/sqssim"
)

// EventBridge User Guide, "Amazon SQS as a target": the rule delivers each
// matched event's JSON as the body of one SQS message. Here the EC2 state
// changes of a launch and a Spot interruption (EC2 User Guide, "State change
// events" and "Spot Instance interruption notices") reach the queue in
// order and a consumer using the real SQS client reads them back.
func TestForwardDeliversEventsToQueue(t *testing.T) {
	clock := simtest.NewClock(simtest.Epoch)
	ec2Sim := ec2sim.New(ec2sim.Config{Now: clock.Now})
	sqsSim := sqssim.New(sqssim.Config{Now: clock.Now})
	queueURL := sqsSim.CreateQueue("ec2-events")
	Forward(ec2Sim, sqsSim, queueURL)

	cfg := simtest.SDKConfig("us-east-1", "AKID", "secret")
	cfg.Retryer = nil
	ec2c := simtest.EC2Client(cfg, simtest.Serve(t, ec2Sim))
	sqsc := simtest.SQSClient(cfg, simtest.Serve(t, sqsSim))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	run, err := ec2c.RunInstances(ctx, &ec2.RunInstancesInput{
		ImageId: aws.String(ec2sim.DefaultImageID), InstanceType: ec2types.InstanceTypeT3Micro,
		MinCount: aws.Int32(1), MaxCount: aws.Int32(1), SubnetId: aws.String(ec2sim.DefaultSubnetIDs[0]),
		InstanceMarketOptions: &ec2types.InstanceMarketOptionsRequest{MarketType: ec2types.MarketTypeSpot},
	})
	if err != nil {
		t.Fatalf("RunInstances: %v", err)
	}
	id := aws.ToString(run.Instances[0].InstanceId)
	ec2Sim.FlushEvents() // pending, then running
	if err := ec2Sim.InjectSpotInterruption(id, "terminate"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(ec2sim.SpotInterruptionNotice)
	ec2Sim.FlushEvents() // warning, shutting-down, terminated

	var got []string
	for len(got) < 5 {
		out, err := sqsc.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(queueURL), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatalf("ReceiveMessage: %v", err)
		}
		if len(out.Messages) == 0 {
			t.Fatalf("queue ran dry after %v", got)
		}
		for _, m := range out.Messages {
			var e ec2sim.Event
			if err := json.Unmarshal([]byte(aws.ToString(m.Body)), &e); err != nil {
				t.Fatalf("message body is not an event: %v", err)
			}
			if e.Detail.InstanceID != id || e.Source != "aws.ec2" {
				t.Fatalf("event %+v is not about %s", e, id)
			}
			got = append(got, e.DetailType+":"+e.Detail.State+e.Detail.InstanceAction)
			if _, err := sqsc.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(queueURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatalf("DeleteMessage: %v", err)
			}
		}
	}
	want := []string{
		ec2sim.DetailTypeStateChange + ":pending",
		ec2sim.DetailTypeStateChange + ":running",
		ec2sim.DetailTypeSpotInterruption + ":terminate",
		ec2sim.DetailTypeStateChange + ":shutting-down",
		ec2sim.DetailTypeStateChange + ":terminated",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if n := sqsSim.Messages(queueURL); n != 0 {
		t.Fatalf("%d messages left after deleting all", n)
	}
}
