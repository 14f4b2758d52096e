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

// Command kubectl-ec2 is the ec2-operator's command line, usable as a kubectl plugin
// by its name (`kubectl ec2 ...` once it is on the PATH). Its one subcommand, import,
// writes EC2Instance manifests for instances made outside Kubernetes.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/importer"
)

const usage = `Usage: kubectl ec2 import [flags]

Lists the instances of an AWS account's region that the selectors choose, and
writes an EC2Instance manifest for each, as it is in AWS: managementPolicy Observe
and deletionPolicy Retain unless told otherwise. Instances an EC2Instance or another
controller (Auto Scaling, Karpenter, Cluster API, ACK, EKS node groups) manages are
skipped, each with the reason on standard error. It uses the AWS SDK's default
credentials chain, as the operator does (environment, shared config and credentials
files, web identity, IMDS), and makes Describe calls only.

The namespace of the manifests is --namespace (-n), else the namespace of the
kubeconfig's current context (--kubeconfig, --context, as kubectl reads them), else
default; nothing is read from or written to the cluster.

Review the manifests, then: kubectl apply --server-side -f <output>
`

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "kubectl-ec2:", err)
		os.Exit(1)
	}
}

// run is the command, with its arguments and output streams.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "import" {
		fmt.Fprint(stderr, usage)
		return errors.New("the subcommand is import")
	}
	cfg, err := parseImportFlags(args[1:], stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	client, err := ec2.New(ctx, ec2.Options{Region: cfg.region, Endpoint: cfg.endpoint})
	if err != nil {
		return err
	}
	res, err := importer.Import(ctx, client, cfg.query, cfg.options(client.Region()))
	if err != nil {
		return err
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(stderr, "skipped %s: %s\n", s.InstanceID, s.Reason)
	}
	if err := writeManifests(res.Objects, cfg.format, cfg.outputFile, cfg.outputDir, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d EC2Instance manifests (%d skipped)\n", len(res.Objects), len(res.Skipped))
	return nil
}

// importConfig is what the import flags say.
type importConfig struct {
	region, endpoint              string
	format, outputFile, outputDir string
	kubeconfig, kubeContext       string
	query                         ec2.InventoryQuery
	opts                          importer.Options
	timeout                       time.Duration
}

func (c *importConfig) options(region string) importer.Options {
	o := c.opts
	o.Region = region
	return o
}

// parseImportFlags reads the import flags. Selecting nothing is refused unless --all
// says so: a whole region is rarely what someone means to import.
func parseImportFlags(args []string, stderr io.Writer) (*importConfig, error) {
	c := &importConfig{}
	fs := pflag.NewFlagSet("import", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage, "\nFlags:\n"); fs.PrintDefaults() }
	var tags, ids []string
	var all bool
	var policy, deletion string
	fs.StringArrayVar(&tags, "tag", nil, "select instances with this tag: key=value, key=v1,v2 (any of them) or key (any value); repeatable, all must match")
	fs.StringArrayVar(&ids, "ids", nil, "select these instance IDs (comma-separated; repeatable)")
	fs.StringVar(&c.query.VPCID, "vpc", "", "select the instances of this VPC (vpc-...)")
	fs.BoolVar(&all, "all", false, "select every live instance of the region (needed when no other selector is given)")
	fs.StringVar(&c.region, "region", "", "AWS region (default: the SDK's, from AWS_REGION or the profile)")
	fs.StringVar(&c.endpoint, "endpoint-url", "", "EC2 endpoint URL (default: the SDK's; AWS_ENDPOINT_URL_EC2 also works)")
	fs.StringVarP(&c.opts.Namespace, "namespace", "n", "", "namespace of the EC2Instances (default: the kubeconfig context's, else default)")
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig file to read the context's namespace from (default: KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&c.kubeContext, "context", "", "kubeconfig context whose namespace is the default (default: the current context)")
	fs.StringVar(&c.opts.Account, "account", "", "AWSAccount the EC2Instances act through (spec.accountRef)")
	fs.StringVar(&policy, "management-policy", string(computev1alpha1.ManagementPolicyObserve), "Observe or Full")
	fs.StringVar(&deletion, "deletion-policy", string(computev1alpha1.DeletionPolicyRetain), "Retain or Delete")
	fs.StringVarP(&c.format, "output", "o", "yaml", "output format: yaml (one document per instance), json (a v1 List) or name (kind/name, one per line)")
	fs.StringVar(&c.outputFile, "output-file", "-", "file to write all manifests to, - for standard output")
	fs.StringVar(&c.outputDir, "output-dir", "", "directory to write one manifest per instance to, instead of --output-file")
	fs.DurationVar(&c.timeout, "timeout", 5*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if c.format != "yaml" && c.format != "json" && c.format != "name" {
		return nil, fmt.Errorf("--output %q: want yaml, json or name (a file is --output-file)", c.format)
	}
	if c.format == "name" && c.outputDir != "" {
		return nil, errors.New("--output name prints names, not manifests: it cannot write --output-dir")
	}
	var err error
	if c.opts.Namespace == "" {
		if c.opts.Namespace, err = contextNamespace(c.kubeconfig, c.kubeContext); err != nil {
			return nil, err
		}
	}
	if c.query.Tags, err = parseTags(tags); err != nil {
		return nil, err
	}
	for _, v := range ids {
		c.query.IDs = append(c.query.IDs, splitList(v)...)
	}
	if !all && len(c.query.IDs) == 0 && c.query.VPCID == "" && len(c.query.Tags) == 0 {
		return nil, errors.New("select instances with --tag, --vpc or --ids, or pass --all for the whole region")
	}
	if err := c.setPolicies(policy, deletion); err != nil {
		return nil, err
	}
	return c, nil
}

// setPolicies reads --management-policy and --deletion-policy.
func (c *importConfig) setPolicies(policy, deletion string) error {
	switch p := computev1alpha1.ManagementPolicy(policy); p {
	case computev1alpha1.ManagementPolicyObserve, computev1alpha1.ManagementPolicyFull:
		c.opts.Policy = p
	default:
		return fmt.Errorf("--management-policy %q: want Observe or Full", policy)
	}
	switch d := computev1alpha1.DeletionPolicy(deletion); d {
	case computev1alpha1.DeletionPolicyRetain, computev1alpha1.DeletionPolicyDelete:
		c.opts.DeletionPolicy = d
	default:
		return fmt.Errorf("--deletion-policy %q: want Retain or Delete", deletion)
	}
	return nil
}

// contextNamespace is the namespace kubectl would use: the context's (the current one,
// or context) in the kubeconfig it would read (KUBECONFIG, ~/.kube/config, or
// kubeconfig), else default. Without any kubeconfig it is default.
func contextNamespace(kubeconfig, context string) (string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	ns, _, err := cfg.Namespace()
	if clientcmd.IsEmptyConfig(err) {
		return "default", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the namespace of the kubeconfig's context: %w", err)
	}
	return ns, nil
}

// parseTags reads the --tag values.
func parseTags(values []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, v := range values {
		key, vals, hasValue := strings.Cut(v, "=")
		if key == "" {
			return nil, fmt.Errorf("--tag %q: the key is empty", v)
		}
		if hasValue {
			out[key] = append(out[key], splitList(vals)...)
		} else if _, seen := out[key]; !seen {
			out[key] = nil
		}
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
