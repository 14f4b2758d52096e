// Package version holds the operator's release version and the source revision it was
// built from. The release build (cmd/images, `make images`) stamps both with -ldflags
// -X; a plain `go build` leaves the defaults, which say so.
package version

// Version is the operator's semantic version, such as 0.1.0.
var Version = "devel"

// Revision is the git commit of the sources the binary was built from.
var Revision = "unknown"
