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
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

func TestCredentialFailureIsClassifiedAsAuth(t *testing.T) {
	failing := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{}, errors.New("no credentials anywhere")
	})
	c := NewFromConfig(aws.Config{Region: "us-east-1"}, Options{
		Endpoint: "http://127.0.0.1:1", Credentials: failing, MaxAttempts: 1,
	})
	_, err := c.TerminateInstance(context.Background(), "i-0123456789abcdef0")
	if awserrors.KindOf(err) != awserrors.KindAuth || awserrors.CodeOf(err) != awserrors.CodeCredentials {
		t.Fatalf("got kind %v code %q (%v), want Auth", awserrors.KindOf(err), awserrors.CodeOf(err), err)
	}
}
