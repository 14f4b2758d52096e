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
//	    builds the named images (all five by default) into OCI layouts under --out
//	images digest DIR
//	    prints the digest of the image index in an OCI layout
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
		fmt.Fprintln(os.Stderr, "usage: images build|digest|tool|revision|check|push|render-catalog|krew [flags] [args]")
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
	var registry, platform string
	var cr catalogRender
	var krew krewRelease
	switch command {
	case "render-catalog":
		fs.StringVar(&cr.opm, "opm-bin", "bin/opm", "opm binary")
		fs.StringVar(&cr.template, "template", "config/catalog/ec2-operator.template.yaml", "opm basic catalog template")
		fs.StringVar(&cr.out, "catalog", "catalog/ec2-operator/catalog.yaml", "file-based catalog to write")
		fs.BoolVar(&cr.pinCurrent, "pin-current", false, "point the template's last bundle at the first layout and write it back")
	case "push":
		fs.StringVar(&registry, "registry", "", "registry and organisation to push to, such as quay.io/ec2-operator")
	case "tool":
		fs.StringVar(&platform, "platform", "", "platform to build for (default: this machine's)")
	case "krew":
		fs.StringVar(&krew.out, "krew-out", "bin/krew", "directory of the archives and the plugin manifest")
		fs.StringVar(&krew.platforms, "krew-platforms", krewPlatforms, "os/arch pairs to archive kubectl-ec2 for")
		fs.StringVar(&krew.url, "krew-url", "https://github.com/ec2-operator/ec2-operator/releases/download/{version}",
			"where the release's archives are downloaded from; {version} is v<version>")
	}
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
	case "tool":
		if fs.NArg() != 1 {
			return fmt.Errorf("tool takes one tool name")
		}
		path, err := s.toolFor(ctx, fs.Arg(0), platform)
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
		return s.push(ctx, registry)
	case "render-catalog":
		cr.layouts = fs.Args()
		return s.renderCatalog(ctx, cr)
	case "krew":
		if !filepath.IsAbs(krew.out) {
			krew.out = filepath.Join(s.root, krew.out)
		}
		return s.buildKrew(ctx, krew)
	default:
		return fmt.Errorf("unknown command %q (want build, digest, tool, revision, check, push, render-catalog or krew)", command)
	}
}
