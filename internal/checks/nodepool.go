package checks

import (
	"context"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Offerings answers the region's instance-type offerings per zone
// (awsclient.Cache); nil when no AWS is asked.
type Offerings interface {
	OfferingsByZone(ctx context.Context) (map[string][]string, error)
}

// PoolFacts are what a NodePool's checks use besides the pool itself (its
// class's family, images and userData are in nodepool.Pool.Class).
type PoolFacts struct {
	Karpenter versions.Karpenter
	// Converted are the findings of the front end's own reading of the
	// pool (values the model cannot hold): they gate the cross-checks as
	// the validation's own errors do.
	Converted rules.Findings
	// Catalogue is the region's instance types (the embedded family facts
	// offline), read when the cross-checks run.
	Catalogue func(context.Context) (*instancetype.Catalogue, error)
	// Subnets are the class's subnets (as its status lists them), when
	// SubnetsKnown; else the zone checks are skipped.
	Subnets      []readiness.Subnet
	SubnetsKnown bool
	// Offerings, when set, is asked when the pool names instance families.
	Offerings Offerings
}

// PoolResult is what the NodePool's checks found.
type PoolResult struct {
	// Findings are in one order: the pool's own rules, the cross-checks
	// with the instance types and the class, the zone checks. Paths are
	// attribute paths, located (nodepool.Locate).
	Findings rules.Findings
	// CrossChecked says the cross-checks ran: no error in what they read.
	CrossChecked bool
	// Result is the cross-checks' answer (families, image assignments),
	// when CrossChecked.
	Result nodepool.Result
	// Failed is an AWS read the checks needed that failed (the catalogue,
	// the offerings), at FailedAt: the findings stop before it.
	Failed   error
	FailedAt rules.Path
}

// pathRequirements is where an AWS failure of the pool's checks points:
// the requirements are what the catalogue and offerings are read for.
var pathRequirements = rules.Root("requirements")

// NodePool runs a NodePool's checks in order: its own rules (for the
// Karpenter release), then, unless an error is in what they read
// (nodepool.CrossChecksApply), the cross-checks with the instance types and
// the class, then the zones it requires against the class's subnets and the
// families it names against the offerings of those zones. A denied
// offerings read skips the family check with readiness.ReadDenied, and the
// zones are still checked.
func NodePool(ctx context.Context, p nodepool.Pool, f PoolFacts) PoolResult {
	var r PoolResult
	validated := nodepool.Validate(p, f.Karpenter)
	r.Findings = nodepool.Locate(p, validated)
	if !nodepool.CrossChecksApply(append(append(rules.Findings(nil), f.Converted...), validated...)) {
		return r
	}
	cat, err := f.Catalogue(ctx)
	if err != nil {
		r.Failed, r.FailedAt = err, pathRequirements
		return r
	}
	r.CrossChecked = true
	r.Result = nodepool.Check(p, cat, f.Karpenter)
	r.Findings = append(r.Findings, nodepool.Locate(p, r.Result.Findings)...)
	if !f.SubnetsKnown {
		return r
	}
	pool, ok := nodepool.ZonePool(p, f.Subnets, r.Result)
	if !ok {
		return r
	}
	var offerings map[string][]string
	if len(pool.Families) > 0 && f.Offerings != nil {
		off, err := f.Offerings.OfferingsByZone(ctx)
		if action, denied := readiness.DeniedRead(err); denied {
			// Without offerings the family check is skipped; the zones
			// are still checked.
			r.Findings = append(r.Findings, readiness.ReadDenied(action, err))
		} else if err != nil {
			r.Failed, r.FailedAt = err, pathRequirements
			return r
		}
		// A fixture set without offerings says nothing about the zones.
		if len(off) > 0 {
			offerings = off
		}
	}
	// Family findings keep the requirements path: Locate moves them to the
	// requirement that names the families.
	r.Findings = append(r.Findings, nodepool.Locate(p, readiness.CheckPool(pool, f.Subnets, offerings))...)
	return r
}
