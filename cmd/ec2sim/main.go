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

// Command ec2sim serves the EC2 emulator from internal/sim/ec2sim over HTTP, so
// the operator, the AWS CLI or any SDK can be pointed at it with an
// endpoint override.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8787", "address to listen on")
	seed := flag.Int64("seed", 1, "seed for deterministic ids and probabilistic faults")
	region := flag.String("region", ec2sim.DefaultRegion, "region to emulate (AZs are <region>a, b, c)")
	pending := flag.Duration("pending-duration", 2*time.Second, "time an instance stays pending")
	stopping := flag.Duration("stopping-duration", 2*time.Second, "time an instance stays stopping")
	shuttingDown := flag.Duration("shutting-down-duration", 2*time.Second, "time an instance stays shutting-down")
	retention := flag.Duration("terminated-retention", time.Hour, "how long terminated instances stay visible")
	visibility := flag.Duration("visibility-delay", 0, "how long new instances are invisible to DescribeInstances")
	throttle := flag.String("throttle", "off", `enforce EC2's API limits: "off", "documented" (EC2's default buckets), or overrides of them such as "RunInstances=50/20,RunInstances.resources=5000/10"`)
	flag.Parse()

	cfg := ec2sim.Config{
		Seed: *seed, Region: *region, PendingDuration: *pending, StoppingDuration: *stopping,
		ShuttingDownDuration: *shuttingDown, TerminatedRetention: *retention, VisibilityDelay: *visibility,
	}
	if *throttle != "off" {
		limits := ec2limits.Documented()
		if *throttle != "documented" {
			var err error
			if limits, err = limits.Parse(*throttle); err != nil {
				log.Fatalf("ec2sim: --throttle: %v", err)
			}
		}
		cfg.Throttle = &limits
	}
	sim := ec2sim.New(cfg)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("ec2sim: %v", err)
	}
	url := "http://" + ln.Addr().String()
	fmt.Printf("ec2sim listening on %s (region %s, seed %d)\n", url, *region, *seed)
	fmt.Printf("example: AWS_ENDPOINT_URL_EC2=%s AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_REGION=%s aws ec2 describe-instances\n", url, *region)
	fmt.Printf("debug:   curl %s/_sim/instances\n", url)

	srv := &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			log.Fatalf("ec2sim: %v", err)
		}
	case <-ctx.Done():
		// Give in-flight requests (possibly held by gates) a moment to finish.
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdownCtx); err != nil {
			log.Printf("ec2sim: shutdown: %v", err)
		}
	}
}
