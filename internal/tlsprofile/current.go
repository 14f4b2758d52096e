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

package tlsprofile

import (
	"crypto/tls"
	"sync/atomic"
)

// Current holds the settings a server follows now. Servers configured with its
// ServerOption read it at every handshake, so a change applies to the next connection
// without a restart; connections already open keep what they negotiated.
type Current struct {
	settings atomic.Pointer[Settings]
}

// NewCurrent starts with the given settings.
func NewCurrent(s Settings) *Current {
	c := &Current{}
	c.Set(s)
	return c
}

// Set replaces the settings and reports whether they changed.
func (c *Current) Set(s Settings) bool {
	old := c.settings.Swap(&s)
	return old == nil || !old.Equal(s)
}

// Get returns the settings in force.
func (c *Current) Get() Settings { return *c.settings.Load() }

// ServerOption makes a server's TLS configuration follow c. It must be the last option
// applied: at each handshake it copies the configuration as the server left it (its
// certificates and protocols included) and puts the current settings on the copy.
func (c *Current) ServerOption() func(*tls.Config) {
	return func(base *tls.Config) {
		c.Get().Apply(base)
		base.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
			cfg := base.Clone()
			cfg.GetConfigForClient = nil
			c.Get().Apply(cfg)
			return cfg, nil
		}
	}
}
