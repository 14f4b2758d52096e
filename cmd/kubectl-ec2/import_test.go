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
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// fleetMember is one instance of the varied fleet the import test makes outside
// Kubernetes, and what its manifest must say.
type fleetMember struct {
	name  string
	req   func(*ec2.LaunchRequest)
	check func(s computev1alpha1.EC2InstanceSpec) bool
}

// TestImportWritesTheFleetAsItIs imports a varied fleet (IMDSv1 with monitoring,
// termination protection, an extra volume, an Elastic IP, a Spot instance, a stopped
// one) from the emulator through the SDK's default credentials chain, as a user
// would run the command: each manifest says the instance as it is, in Observe with
// Retain; an instance an EC2Instance owns and one Karpenter manages are skipped with
// the reason; only Describe calls are made; and the manifests pass server-side
// dry-run against the CRD.
func TestImportWritesTheFleetAsItIs(t *testing.T) {
	sim := ec2sim.New(ec2sim.Config{})
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "AKIDIMPORT", "AWS_SECRET_ACCESS_KEY": "import-secret",
		"AWS_REGION": ec2sim.DefaultRegion, "AWS_ENDPOINT_URL_EC2": srv.URL, "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": filepath.Join(t.TempDir(), "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(t.TempDir(), "none")} {
		t.Setenv(k, v)
	}
	ctx := context.Background()
	c := ec2.NewFromConfig(aws.Config{Region: ec2sim.DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDIMPORT", "import-secret", "")}, ec2.Options{Endpoint: srv.URL})
	fleet := []fleetMember{
		{"imdsv1-monitored", func(r *ec2.LaunchRequest) {
			r.MetadataOptions.HTTPTokens, r.DetailedMonitoring = "optional", true
		}, func(s computev1alpha1.EC2InstanceSpec) bool {
			return s.MetadataOptions.HTTPTokens == computev1alpha1.HTTPTokensOptional && s.WantsMonitoring()
		}},
		{"protected", func(r *ec2.LaunchRequest) { r.DisableAPITermination = true },
			func(s computev1alpha1.EC2InstanceSpec) bool { return s.WantsTerminationProtection() }},
		{"with-volume", func(r *ec2.LaunchRequest) {
			r.Volumes = []ec2.VolumeRequest{{Device: "/dev/sdf", SizeGiB: 20, Type: "gp3"}}
		}, func(s computev1alpha1.EC2InstanceSpec) bool { return len(s.Volumes) == 0 }},
		{"with-eip", nil, func(s computev1alpha1.EC2InstanceSpec) bool {
			return s.ElasticIP != nil && strings.HasPrefix(s.ElasticIP.AllocationID, "eipalloc-")
		}},
		{"spot", func(r *ec2.LaunchRequest) { r.Spot = &ec2.SpotOptions{InterruptionBehavior: "stop"} },
			func(s computev1alpha1.EC2InstanceSpec) bool {
				return s.Spot != nil && s.Spot.InterruptionBehavior == computev1alpha1.SpotInterruptionBehavior("stop")
			}},
		{"stopped", nil, func(s computev1alpha1.EC2InstanceSpec) bool {
			return s.DesiredState == computev1alpha1.DesiredStateStopped
		}},
	}
	ids := map[string]string{}
	for _, m := range fleet {
		ids[m.name] = launch(t, c, m.name, map[string]string{"team": "payments"}, m.req)
	}
	owned := launch(t, c, "owned", map[string]string{"team": "payments", ec2.TagOwnerUID: "uid-1",
		ec2.TagOwnerNamespace: "apps", ec2.TagOwnerName: "web"}, nil)
	karpenter := launch(t, c, "node", map[string]string{"team": "payments", "karpenter.sh/nodepool": "default"}, nil)
	launch(t, c, "elsewhere", map[string]string{"team": "search"}, nil)
	prepareFleet(t, c, ids)

	before := sim.CallCounts()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"import", "--tag", "team=payments", "--namespace", "imported", "--output-dir", dir}, &stdout, &stderr); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr.String())
	}
	for op, n := range sim.CallCounts() {
		if n > before[op] && !strings.HasPrefix(op, "Describe") {
			t.Errorf("the import called %s", op)
		}
	}
	for _, want := range []string{"skipped " + owned + ": managed by EC2Instance apps/web", "skipped " + karpenter + ": managed by Karpenter"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	objs := readManifests(t, dir)
	if len(objs) != len(fleet) {
		t.Fatalf("wrote %d manifests, want %d: %v", len(objs), len(fleet), stderr.String())
	}
	for _, m := range fleet {
		obj, ok := objs[m.name]
		switch {
		case !ok:
			t.Errorf("no manifest named %s", m.name)
		case obj.Spec.InstanceID != ids[m.name] || obj.Spec.ManagementPolicy != computev1alpha1.ManagementPolicyObserve ||
			obj.Spec.DeletionPolicy != computev1alpha1.DeletionPolicyRetain || obj.Namespace != "imported" ||
			obj.Spec.InstanceType != "t3.small" || obj.Spec.Tags["team"] != "payments" || obj.Spec.UserData != "":
			t.Errorf("%s: not the instance as it is, in Observe with Retain: %+v", m.name, obj.Spec)
		case !m.check(obj.Spec):
			t.Errorf("%s: the manifest misses what is particular to it: %+v", m.name, obj.Spec)
		}
	}
	dryRun(t, objs)
}

// launch launches one instance outside Kubernetes, t3.small with IMDSv2, and returns
// its ID.
func launch(t *testing.T, c *ec2.AWSClient, name string, tags map[string]string, adjust func(*ec2.LaunchRequest)) string {
	t.Helper()
	tags["Name"] = name
	req := ec2.LaunchRequest{ClientToken: "tf-" + name, ImageID: ec2sim.DefaultImageID, InstanceType: "t3.small",
		SubnetID: ec2sim.DefaultSubnetIDs[0], Tags: tags,
		MetadataOptions: ec2.MetadataOptions{HTTPTokens: "required", HTTPPutResponseHopLimit: 2, HTTPEndpoint: "enabled",
			InstanceMetadataTags: "disabled", HTTPProtocolIPv6: "disabled"}}
	if adjust != nil {
		adjust(&req)
	}
	inst, err := c.RunInstance(context.Background(), req)
	if err != nil {
		t.Fatalf("launching %s: %v", name, err)
	}
	return inst.ID
}

// prepareFleet waits for the fleet to run, then associates an Elastic IP with
// with-eip and stops stopped.
func prepareFleet(t *testing.T, c *ec2.AWSClient, ids map[string]string) {
	t.Helper()
	ctx := context.Background()
	for i := 0; ; i++ {
		insts, err := c.ListInstances(ctx, ec2.InventoryQuery{Tags: map[string][]string{"team": {"payments"}}})
		if err != nil {
			t.Fatal(err)
		}
		running := 0
		for _, inst := range insts {
			if inst.State == ec2.StateRunning {
				running++
			}
		}
		if running == len(insts) {
			break
		}
		if i > 200 {
			t.Fatalf("the fleet is not running: %d of %d", running, len(insts))
		}
		time.Sleep(50 * time.Millisecond)
	}
	inst, err := c.GetInstance(ctx, ids["with-eip"])
	if err != nil {
		t.Fatal(err)
	}
	addr, err := c.AllocateAddress(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AssociateAddress(ctx, addr.AllocationID, inst.ID, inst.NetworkInterfaces[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := c.StopInstance(ctx, ids["stopped"]); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		inst, err := c.GetInstance(ctx, ids["stopped"])
		if err != nil {
			t.Fatal(err)
		}
		if inst.State == ec2.StateStopped {
			return
		}
		if i > 200 {
			t.Fatalf("%s is %s", inst.ID, inst.State)
		}
		c.ChangedElsewhere(inst.ID)
		time.Sleep(50 * time.Millisecond)
	}
}

// readManifests parses the files the import wrote, by object name.
func readManifests(t *testing.T, dir string) map[string]computev1alpha1.EC2Instance {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]computev1alpha1.EC2Instance{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var obj computev1alpha1.EC2Instance
		if err := yaml.UnmarshalStrict(data, &obj); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, data)
		}
		out[obj.Name] = obj
	}
	return out
}

// dryRun creates the objects with server-side dry-run against the CRD, as `kubectl
// apply --server-side --dry-run=server` would: the API server's schema and CEL rules
// must accept every manifest as written.
func dryRun(t *testing.T, objs map[string]computev1alpha1.EC2Instance) {
	t.Helper()
	testenv.SkipInUnitTier(t)
	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	k, err := client.New(env.Config, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "imported"}}
	if err := k.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	for name, obj := range objs {
		if err := k.Create(context.Background(), &obj, client.DryRunAll); err != nil {
			t.Errorf("%s: server-side dry-run refused the manifest: %v", name, err)
		}
	}
}
