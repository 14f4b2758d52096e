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

// Command sbomprog is a Go program with a module dependency, built by the SBOM test
// so that the SBOM has modules to list (a test binary records none).
package main

import (
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
)

func main() { fmt.Println(name.DefaultRegistry) }
