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

package stssim

// base32Alphabet is the alphabet of AWS access key ids and unique ids
// (upper-case letters and the digits 2-7).
const base32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// secretAlphabet is the alphabet of secret access keys and session tokens.
const secretAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// randomString draws n characters of alphabet from the seeded source.
// The caller holds s.mu.
func (s *Sim) randomString(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[s.idRand.IntN(len(alphabet))]
	}
	return string(b)
}

// uniqueID returns an IAM unique id such as AIDA... (users) or AROA...
// (roles): the prefix and 17 base32 characters, 21 in all.
func (s *Sim) uniqueID(prefix string) string {
	return prefix + s.randomString(base32Alphabet, 17)
}

// temporaryKeyID returns an access key id of temporary credentials, which
// STS gives the ASIA prefix (long-term keys start with AKIA).
func (s *Sim) temporaryKeyID() string {
	return "ASIA" + s.randomString(base32Alphabet, 16)
}

// newRequestID returns a UUID-shaped request id numbered in request order.
// The caller holds s.mu.
func (s *Sim) newRequestID() string {
	s.reqSeq++
	return fmtRequestID(s.reqSeq)
}
