package checks

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// ReadState says whether a class's readiness facts exist.
type ReadState int

const (
	// Read: AWS answered (some reads may have been denied, see Denied).
	Read ReadState = iota
	// Skipped: no AWS to ask (offline, terraform validate), or an endpoint
	// that does not serve ec2:DescribeSubnets (Findings says so).
	Skipped
	// Deferred: what the reads need (the subnet terms, the AWS
	// configuration) is known only at apply.
	Deferred
	// Failed: a read failed for a reason other than a denied readiness
	// read (Failed, FailedAt).
	Failed
)

// DeniedRead is a readiness read AWS denied: its checks are skipped and the
// condition it predicts is Unknown (readiness.Options.NotRead).
type DeniedRead struct {
	Action string
	Err    error
}

// ClassReadiness is what the readiness reads predict for one class.
type ClassReadiness struct {
	State    ReadState
	Class    readiness.Class
	Observed readiness.Observed
	// Result is the predicted status and its findings, when State is Read.
	Result readiness.Result
	// GroupsKnown, ReservationsKnown and IdentityKnown say which inputs
	// were known (and read); the checks of the others wait for apply.
	GroupsKnown, ReservationsKnown, IdentityKnown bool
	// Findings are Result.Findings, or the finding of an endpoint that
	// does not serve the reads.
	Findings rules.Findings
	// Failed is the read that failed, at the attribute whose terms it
	// read.
	Failed   error
	FailedAt rules.Path
	// Denied are the readiness reads AWS denied, by action, and NotRead
	// the conditions they leave unpredicted (condition -> action).
	Denied  []DeniedRead
	NotRead map[string]string
}

// WasDenied reports whether the read predicting condition was denied.
func (r ClassReadiness) WasDenied(condition string) bool {
	_, ok := r.NotRead[condition]
	return ok
}

// ReadClass asks src, each kind of question concurrently, what Karpenter
// would read for class c's status, for the inputs that are known, and
// predicts the status for Karpenter release kv. A nil src (no AWS) skips
// the reads.
func ReadClass(ctx context.Context, src readiness.Source, c nodeclass.Class, kv versions.Karpenter) ClassReadiness {
	if src == nil {
		return ClassReadiness{State: Skipped}
	}
	u := c.Unknown
	// Without the subnets nothing can be predicted (nor whether the
	// endpoint serves the reads at all): everything waits for apply.
	if u.Within(readiness.PathSubnetTerms) {
		return ClassReadiness{State: Deferred}
	}
	r := ClassReadiness{
		Class:             c.Readiness(),
		GroupsKnown:       !u.Within(readiness.PathGroupTerms),
		ReservationsKnown: !u.Within(readiness.PathReservationTerms),
		IdentityKnown:     !u.Is(readiness.PathRole) && !u.Is(readiness.PathInstanceProfile),
	}
	r.read(ctx, src)
	if r.State == Read {
		r.evaluate(kv)
	}
	return r
}

func (r *ClassReadiness) read(ctx context.Context, src readiness.Source) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	fail := func(err error, at rules.Path) {
		mu.Lock()
		defer mu.Unlock()
		if action, ok := readiness.DeniedRead(err); ok {
			r.Denied = append(r.Denied, DeniedRead{action, err})
			return
		}
		if r.Failed == nil || errors.Is(err, awsclient.ErrNotServed) {
			r.Failed, r.FailedAt = err, at
		}
	}
	run := func(at rules.Path, f func() error) {
		wg.Go(func() {
			if err := f(); err != nil {
				fail(err, at)
			}
		})
	}
	c, o := r.Class, &r.Observed
	run(readiness.PathSubnetTerms, func() (err error) {
		o.Subnets, err = src.SelectSubnets(ctx, c.SubnetTerms)
		return err
	})
	if r.GroupsKnown {
		run(readiness.PathGroupTerms, func() (err error) {
			o.SecurityGroups, err = src.SelectSecurityGroups(ctx, c.SecurityGroupTerms)
			return err
		})
	}
	if r.ReservationsKnown && len(c.CapacityReservationTerms) > 0 {
		run(readiness.PathReservationTerms, func() (err error) {
			o.CapacityReservations, err = src.SelectCapacityReservations(ctx, c.CapacityReservationTerms)
			return err
		})
	}
	switch {
	case !r.IdentityKnown:
	case c.Role != "":
		run(readiness.PathRole, func() error {
			role, err := src.GetRole(ctx, readiness.RoleName(c.Role))
			o.Role = &role
			return err
		})
	case c.InstanceProfile != "":
		run(readiness.PathInstanceProfile, func() error {
			p, err := src.GetInstanceProfile(ctx, c.InstanceProfile)
			o.InstanceProfile = &p
			return err
		})
	}
	wg.Wait()
	slices.SortFunc(r.Denied, func(a, b DeniedRead) int { return strings.Compare(a.Action, b.Action) })
	for _, d := range r.Denied {
		if r.NotRead == nil {
			r.NotRead = map[string]string{}
		}
		r.NotRead[readiness.ConditionOf(d.Action)] = d.Action
	}
	switch {
	case errors.Is(r.Failed, awsclient.ErrNotServed):
		r.State, r.Findings = Skipped, rules.Findings{readiness.ChecksSkipped(r.Failed)}
		r.Failed = nil
	case errors.Is(r.Failed, awsclient.ErrUnknownConfig):
		r.State, r.Failed = Deferred, nil // the provider configuration is known at apply
	case r.Failed != nil:
		r.State = Failed
	}
}

// evaluate turns what AWS answered into the predicted status and the
// findings, for the inputs that were known.
func (r *ClassReadiness) evaluate(kv versions.Karpenter) {
	r.Result = readiness.Evaluate(r.Class, r.Observed, readiness.Options{
		Now: time.Now(),
		// The ReservedCapacity feature gate, which adds the condition, is on
		// by default from 1.6 (kubernetes-sigs/karpenter#2365).
		CapacityReservations: kv.AtLeast(6, 0),
		LowFreeAddresses:     readiness.DefaultLowFreeAddresses,

		UnknownSecurityGroups:       !r.GroupsKnown,
		UnknownCapacityReservations: !r.ReservationsKnown,
		UnknownIdentity:             !r.IdentityKnown,
		NotRead:                     r.NotRead,
	})
	r.Findings = r.Result.Findings
}
