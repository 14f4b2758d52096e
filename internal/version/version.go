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

// Package version holds the operator's release version and the source revision it was
// built from. The release build (cmd/images, `make images`) stamps both with -ldflags
// -X; a plain `go build` leaves the defaults, which say so.
package version

// Version is the operator's semantic version, such as 0.1.0.
var Version = "devel"

// Revision is the git commit of the sources the binary was built from.
var Revision = "unknown"
