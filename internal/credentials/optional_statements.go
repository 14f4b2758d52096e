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

package credentials

import (
	"net/url"
	"os"
	"strings"
)

// The statements here are added to Policy only when the operator is configured to
// need them: an events queue, or the roles of AWSAccounts.

// EventsQueueStatement grants reading and deleting the messages of the EC2 events
// queue at queueURL (--events-queue-url; DeleteMessageBatch is authorized as
// sqs:DeleteMessage). The queue's ARN comes from its URL:
// https://sqs.<region>.amazonaws.com/<account>/<name>, or any region for another host
// (a VPC endpoint). It reports false for an empty or unreadable URL.
func EventsQueueStatement(queueURL string) (Statement, bool) {
	u, err := url.Parse(queueURL)
	if err != nil || queueURL == "" {
		return Statement{}, false
	}
	path := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(path) != 2 || path[0] == "" || path[1] == "" {
		return Statement{}, false
	}
	region := "*"
	if host := strings.Split(u.Hostname(), "."); len(host) >= 3 && host[0] == "sqs" && strings.HasSuffix(u.Hostname(), ".amazonaws.com") {
		region = host[1]
	}
	return Statement{
		Sid:      "ReadEC2Events",
		Effect:   "Allow",
		Action:   []string{"sqs:DeleteMessage", "sqs:ReceiveMessage"},
		Resource: []string{"arn:aws:sqs:" + region + ":" + path[0] + ":" + path[1]},
	}, true
}

// AccountRoleARNsEnv names the environment variable (comma-separated role ARNs, IAM
// wildcards allowed) of the AWSAccount roles the operator's identity may assume. When
// set, the CredentialsRequest asks for sts:AssumeRole on exactly those roles.
const AccountRoleARNsEnv = "ACCOUNT_ROLE_ARNS"

// AccountRoleARNsFromEnv splits ACCOUNT_ROLE_ARNS into role ARNs.
func AccountRoleARNsFromEnv() []string {
	var out []string
	for _, r := range strings.Split(os.Getenv(AccountRoleARNsEnv), ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// AssumeRoleStatement grants assuming the roles of AWSAccounts. The roles' trust
// policies in their own accounts must allow the operator's identity too; this is the
// identity's side of that handshake. It reports false when no role is given.
func AssumeRoleStatement(roleARNs []string) (Statement, bool) {
	if len(roleARNs) == 0 {
		return Statement{}, false
	}
	return Statement{
		Sid:      "AssumeAccountRoles",
		Effect:   "Allow",
		Action:   []string{"sts:AssumeRole"},
		Resource: append([]string(nil), roleARNs...),
	}, true
}
