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

// Command images builds, inspects and pushes ec2-operator's release images without a
// container engine, the way ko does: static Go binaries on a minimal filesystem,
// assembled file by file into reproducible OCI images (internal/images).
//
// Usage:
//
//	images build [flags] [operator|scorecard|must-gather|bundle|catalog ...]
//	    builds the named images (all five by default) into OCI layouts under --out,
//	    each platform's image with its SPDX SBOM attached as an OCI 1.1 artifact
//	images digest DIR
//	    prints the digest of the image index in an OCI layout
//	images sbom-digests DIR
//	    prints the digests of the SBOMs an OCI layout holds beside its image
//	images tool opm|grpc_health_probe [flags]
//	    builds a third-party tool the images carry, for --platform, and prints its path
//	images revision [flags]
//	    prints the source revision the images are labelled and stamped with
//	images check [flags]
//	    fails unless bundle/ and catalog/ name the images in --out by digest
//	images krew [flags]
//	    archives kubectl-ec2 for each --krew-platforms and writes the krew plugin
//	    manifest that names them
//	images push --registry HOST/ORG [flags]
//	    pushes the five images by digest, then tags them v<version>
//
// The Makefile drives it (make images, make bundle, make catalog, make images-push);
// every setting has a flag, and the defaults are the Makefile's.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: images build|digest|sbom-digests|tool|revision|check|push|render-catalog|krew [flags] [args]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1], os.Args[2:]); err != nil {
		// One line that names the problem: callers (make, CI logs) show it as is.
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, command string, args []string) error {
	fs := flag.NewFlagSet("images "+command, flag.ContinueOnError)
	s := bindSettings(fs)
	f := bindCommandFlags(fs, command)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := s.complete(command); err != nil {
		return err
	}
	switch command {
	case "build":
		return s.build(ctx, fs.Args())
	case "digest":
		if fs.NArg() != 1 {
			return fmt.Errorf("digest takes one OCI layout directory")
		}
		return printDigest(fs.Arg(0))
	case "sbom-digests":
		if fs.NArg() != 1 {
			return fmt.Errorf("sbom-digests takes one OCI layout directory")
		}
		return printSBOMDigests(fs.Arg(0))
	case "tool":
		if fs.NArg() != 1 {
			return fmt.Errorf("tool takes one tool name")
		}
		path, err := s.toolFor(ctx, fs.Arg(0), f.platform)
		if err != nil {
			return err
		}
		fmt.Println(path)
		return nil
	case "revision":
		fmt.Println(s.revision)
		return nil
	case "check":
		return s.checkReferences()
	case "push":
		return s.push(ctx, f.registry)
	case "render-catalog":
		f.catalog.layouts = fs.Args()
		return s.renderCatalog(ctx, f.catalog)
	case "krew":
		if !filepath.IsAbs(f.krew.out) {
			f.krew.out = filepath.Join(s.root, f.krew.out)
		}
		return s.buildKrew(ctx, f.krew)
	default:
		return fmt.Errorf("unknown command %q (want build, digest, tool, revision, check, push, render-catalog or krew)", command)
	}
}

// commandFlags are the flags of the commands that take more than the settings.
type commandFlags struct {
	registry, platform string
	catalog            catalogRender
	krew               krewRelease
}

// bindCommandFlags registers the flags of command beyond the settings.
func bindCommandFlags(fs *flag.FlagSet, command string) *commandFlags {
	f := &commandFlags{}
	switch command {
	case "render-catalog":
		fs.StringVar(&f.catalog.opm, "opm-bin", "bin/opm", "opm binary")
		fs.StringVar(&f.catalog.template, "template", "config/catalog/ec2-operator.template.yaml", "opm basic catalog template")
		fs.StringVar(&f.catalog.out, "catalog", "catalog/ec2-operator/catalog.yaml", "file-based catalog to write")
		fs.BoolVar(&f.catalog.pinCurrent, "pin-current", false, "point the template's last bundle at the first layout and write it back")
	case "push":
		fs.StringVar(&f.registry, "registry", "", "registry and organisation to push to, such as quay.io/ec2-operator")
	case "tool":
		fs.StringVar(&f.platform, "platform", "", "platform to build for (default: this machine's)")
	case "krew":
		fs.StringVar(&f.krew.out, "krew-out", "bin/krew", "directory of the archives and the plugin manifest")
		fs.StringVar(&f.krew.platforms, "krew-platforms", krewPlatforms, "os/arch pairs to archive kubectl-ec2 for")
		fs.StringVar(&f.krew.url, "krew-url", "https://github.com/ec2-operator/ec2-operator/releases/download/{version}",
			"where the release's archives are downloaded from; {version} is v<version>")
	}
	return f
}
