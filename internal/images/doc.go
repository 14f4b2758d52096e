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
