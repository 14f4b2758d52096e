package release

import "runtime"

func goarch() string { return runtime.GOARCH }
