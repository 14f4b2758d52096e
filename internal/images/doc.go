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

// Package images assembles OCI images without a container engine, the way ko does: a
// filesystem described file by file, written as reproducible layers, with a config and
// labels, for one or more platforms, stored as an OCI image layout and pushed to a
// registry with go-containerregistry.
//
// Everything is deterministic: the same files, config and timestamp give the same
// bytes and so the same digests, on any machine. Tar entries are sorted, owners,
// modes and modification times are fixed, no user or group names or build paths are
// recorded, and layers are compressed once with a fixed gzip configuration.
package images
