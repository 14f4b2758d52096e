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

// Package ec2sim is an in-process emulator of the Amazon EC2 query API.
//
// It speaks EC2's wire protocol (form-encoded POST requests answered with
// XML) so that code using the real aws-sdk-go-v2 EC2 client can be tested
// without reaching AWS. Only the operations the ec2-operator uses are
// implemented, but those follow AWS's documented semantics: element names
// match the SDK's deserializers, error codes and messages match what EC2
// returns, and instance lifecycles advance with a (possibly fake) clock.
//
// The simulator is deterministic: every generated identifier derives from
// Config.Seed and the order of requests, so a failing test replays exactly.
package ec2sim

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
)

// Well-known seeded resources. They are identical for every seed so that
// sample manifests and sandboxes can name them.
const (
	// DefaultRegion is the region used when Config.Region is empty.
	DefaultRegion = "us-east-1"
	// DefaultAccountID owns every seeded and created resource when
	// Config.AccountID is empty.
	DefaultAccountID = "123456789012"
	// DefaultVPCID is the default VPC that holds the seeded subnets and groups.
	DefaultVPCID = "vpc-0a1b2c3d4e5f60001"
	// DefaultSecurityGroupID is the default VPC's "default" security group.
	DefaultSecurityGroupID = "sg-0a1b2c3d4e5f60001"
	// WebSecurityGroupID is a second security group named "web".
	WebSecurityGroupID = "sg-0a1b2c3d4e5f60002"
	// DefaultImageID is an Amazon Linux 2023 x86_64 image with a /dev/xvda
	// root device backed by an 8 GiB snapshot.
	DefaultImageID = "ami-0abcdef1234567890"
	// ArmImageID is an Amazon Linux 2023 arm64 image.
	ArmImageID = "ami-0fedcba0987654321"
	// DefaultSSMParameter is a public SSM parameter that resolves to DefaultImageID.
	DefaultSSMParameter = "/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64"
	// ArmSSMParameter is a public SSM parameter that resolves to ArmImageID.
	ArmSSMParameter = "/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-arm64"
	// DefaultInstanceProfile is an IAM instance profile that exists.
	DefaultInstanceProfile = "ec2-operator-demo"
	// DefaultKeyName is a key pair that exists.
	DefaultKeyName = "demo-key"
)

// DefaultSubnetIDs are the default VPC's subnets in the region's a, b and c
// availability zones, in that order. Each is default-for-az and maps public
// IPs on launch.
var DefaultSubnetIDs = []string{
	"subnet-0a1b2c3d4e5f60001",
	"subnet-0a1b2c3d4e5f60002",
	"subnet-0a1b2c3d4e5f60003",
}

// Config tunes a Sim. The zero value is usable.
type Config struct {
	// Seed makes instance, volume, reservation, association and request ids
	// (and probabilistic faults) reproducible.
	Seed int64
	// Region defaults to DefaultRegion; availability zones are Region+"a", "b", "c".
	Region string
	// AccountID is the AWS account this endpoint serves: it is the owner id
	// and the account in every ARN the Sim renders. It defaults to
	// DefaultAccountID; several Sims with different ids model several accounts.
	AccountID string
	// PendingDuration is how long an instance stays pending before running.
	// Zero means it is running on the next request after launch.
	PendingDuration time.Duration
	// StoppingDuration is how long an instance stays stopping before stopped.
	StoppingDuration time.Duration
	// ShuttingDownDuration is how long an instance stays shutting-down before terminated.
	ShuttingDownDuration time.Duration
	// TerminatedRetention is how long a terminated instance stays visible;
	// afterwards DescribeInstances by id reports InvalidInstanceID.NotFound.
	// Zero means one hour, which is roughly what EC2 does.
	TerminatedRetention time.Duration
	// VisibilityDelay models EC2's eventual consistency: a new instance is
	// invisible to DescribeInstances for this long after RunInstances.
	VisibilityDelay time.Duration
	// Now is the clock; it defaults to time.Now. Tests may pass a fake clock.
	Now func() time.Time
	// VolumeCreateDuration is how long a volume made by CreateVolume stays creating
	// before it is available. Zero means it is available on the next request.
	VolumeCreateDuration time.Duration
	// VolumeAttachDuration is how long an AttachVolume attachment stays attaching
	// before it is attached. Zero means it is attached on the next request.
	VolumeAttachDuration time.Duration
	// VolumeDetachDuration is how long a DetachVolume attachment stays detaching
	// before the volume is available again. Zero means on the next request.
	VolumeDetachDuration time.Duration
	// Throttle, when set, enforces these API limits as EC2 does per account and
	// Region (ec2limits.Documented() for EC2's defaults): a call over its bucket fails
	// with RequestLimitExceeded. Nil leaves every call unthrottled.
	Throttle *ec2limits.Limits
}

// Sim is an emulated EC2 endpoint. It implements http.Handler: the EC2 API
// is served at "/" and a JSON debug API under "/_sim/". It is safe for
// concurrent use.
type Sim struct {
	cfg Config

	// mu guards everything below. One lock keeps every request atomic, which
	// is what callers of a real control plane observe for single calls.
	mu sync.Mutex

	idRand    *rand.Rand // identifiers, so faults never perturb ids
	faultRand *rand.Rand // probabilistic faults
	reqRand   *rand.Rand // request ids

	instances    map[string]*instance
	order        []string // instance ids in launch order, for stable listings
	volumes      map[string]*VolumeRecord
	volumeOrder  []string
	reservations map[string]*reservation
	tokens       map[string]*tokenRecord
	associations map[string]*association
	// cancelledSpot holds the Spot Instance requests that were cancelled.
	cancelledSpot map[string]bool
	// notOffered and noCapacity model which instance types each zone can
	// run (see SetOffered and SetCapacity).
	notOffered map[placementKey]bool
	noCapacity map[placementKey]bool
	// launchCapacity is the most instances one RunInstances call launches (0: as
	// many as asked), set by SetLaunchCapacity.
	launchCapacity int

	// volumeSeq numbers volumes in creation order, for DescribeVolumes paging tokens.
	volumeSeq int
	// snapshots are the EBS snapshots added with AddSnapshot or AddSharedSnapshot, by id.
	snapshots map[string]snapshot
	// volumeTokens remembers what each CreateVolume ClientToken created.
	volumeTokens map[string]*volumeToken
	// volumeFailures are the failures armed by FailNextVolumeCreation, taken in order
	// by the volumes CreateVolume creates next.
	volumeFailures []VolumeFailure

	images        map[string]*Image
	imageOrder    []string
	ssmParams     map[string]string
	subnets       map[string]*Subnet
	subnetOrder   []string
	groups        map[string]*SecurityGroup
	groupOrder    []string
	profiles      map[string]bool
	keyPairs      map[string]bool
	net           *netState // VPCs, network interfaces and Elastic IPs (see network())
	launchSeq     int
	publicCounter int

	// place holds placement groups, Dedicated Hosts and Capacity Reservations (see placing()).
	place *placementState

	// events holds event subscribers and scheduled Spot interruptions (see eventing()).
	events *eventState

	calls    map[string]int
	throttle *throttle
	requests []Request
	faults   []*faultEntry
	gates    map[string]*Gate
	respGate map[string]*Gate
}

// New returns a Sim seeded with the well-known default resources.
func New(cfg Config) *Sim {
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	if cfg.AccountID == "" {
		cfg.AccountID = DefaultAccountID
	}
	if cfg.TerminatedRetention == 0 {
		cfg.TerminatedRetention = time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	seed := uint64(cfg.Seed)
	s := &Sim{
		cfg:           cfg,
		idRand:        rand.New(rand.NewPCG(seed, 0x1d5)),
		faultRand:     rand.New(rand.NewPCG(seed, 0xfa17)),
		reqRand:       rand.New(rand.NewPCG(seed, 0x4e9)),
		instances:     map[string]*instance{},
		volumes:       map[string]*VolumeRecord{},
		reservations:  map[string]*reservation{},
		tokens:        map[string]*tokenRecord{},
		associations:  map[string]*association{},
		cancelledSpot: map[string]bool{},
		notOffered:    map[placementKey]bool{},
		noCapacity:    map[placementKey]bool{},
		images:        map[string]*Image{},
		ssmParams:     map[string]string{},
		subnets:       map[string]*Subnet{},
		groups:        map[string]*SecurityGroup{},
		profiles:      map[string]bool{},
		keyPairs:      map[string]bool{},
		calls:         map[string]int{},
		gates:         map[string]*Gate{},
		respGate:      map[string]*Gate{},
	}
	if cfg.Throttle != nil {
		s.throttle = newThrottle(*cfg.Throttle)
	}
	s.seedDefaults()
	return s
}

// now reads the configured clock in UTC, the zone EC2 reports times in.
func (s *Sim) now() time.Time { return s.cfg.Now().UTC() }

// azs returns the region's three availability zones.
func (s *Sim) azs() []string {
	r := s.cfg.Region
	return []string{r + "a", r + "b", r + "c"}
}
