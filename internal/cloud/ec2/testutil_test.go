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

package ec2

import (
	"errors"
	"strings"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

func asError(err error, target **awserrors.Error) bool {
	if errors.As(err, target) {
		return true
	}
	*target = &awserrors.Error{}
	return false
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func errMessage(err error) string {
	var e *awserrors.Error
	asError(err, &e)
	return e.Message
}
