package checks

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

func pool(labels map[string]string, reqs ...manifest.Requirement) nodepool.Pool {
	var m manifest.NodePool
	m.Metadata.Name = "general"
	m.Spec.Template.Spec.NodeClassRef = manifest.NodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	m.Spec.Template.Spec.Requirements = reqs
	if labels != nil {
		m.Spec.Template.Metadata = &manifest.TemplateMeta{Labels: labels}
	}
	return nodepool.Pool{Manifest: m}
}

var (
	families = manifest.Requirement{Key: "karpenter.k8s.aws/instance-family", Operator: "In", Values: []string{"m5"}}
	zoneB    = manifest.Requirement{Key: "topology.kubernetes.io/zone", Operator: "In", Values: []string{"us-east-1b"}}
)

type offeringsFunc func(context.Context) (map[string][]string, error)

func (f offeringsFunc) OfferingsByZone(ctx context.Context) (map[string][]string, error) {
	return f(ctx)
}

func ids(fs rules.Findings) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule.ID)
	}
	return out
}

func embedded(context.Context) (*instancetype.Catalogue, error) { return instancetype.Embedded(), nil }

// TestNodePoolSequence: the pool's own rules first; the cross-checks only
// without an error in what they read (and then the catalogue is not even
// read); an AWS failure stops the sequence where it happens; the zones
// are checked against the class's subnets, and a denied offerings read
// skips only the family check.
func TestNodePoolSequence(t *testing.T) {
	ctx := context.Background()
	kv := versions.DefaultKarpenter

	// A label Karpenter refuses is in what the cross-checks read.
	read := false
	r := NodePool(ctx, pool(map[string]string{"karpenter.sh/nodepool": "x"}, families), PoolFacts{Karpenter: kv,
		Catalogue: func(context.Context) (*instancetype.Catalogue, error) {
			read = true
			return instancetype.Embedded(), nil
		}})
	if r.CrossChecked || read || !r.Findings.HasErrors() {
		t.Errorf("an error in the labels: cross-checked %v, catalogue read %v, findings %v", r.CrossChecked, read, ids(r.Findings))
	}
	// So are the front end's own conversion errors.
	conv := rules.Findings{rules.New(crd.RuleValidation, rules.Root("labels"), "unreadable")}
	if r := NodePool(ctx, pool(nil, families), PoolFacts{Karpenter: kv, Converted: conv, Catalogue: embedded}); r.CrossChecked {
		t.Errorf("a conversion error in the labels: cross-checked")
	}

	boom := errors.New("boom")
	r = NodePool(ctx, pool(nil, families), PoolFacts{Karpenter: kv,
		Catalogue: func(context.Context) (*instancetype.Catalogue, error) { return nil, boom }})
	if !errors.Is(r.Failed, boom) || r.FailedAt.String() != "requirements" || r.CrossChecked {
		t.Errorf("a failed catalogue read: %v at %q, cross-checked %v", r.Failed, r.FailedAt, r.CrossChecked)
	}

	subnets := []readiness.Subnet{{ID: "subnet-a", Zone: "us-east-1a", ZoneID: "use1-az1"}}
	denied := offeringsFunc(func(context.Context) (map[string][]string, error) {
		return nil, &smithy.OperationError{ServiceID: "EC2", OperationName: "DescribeInstanceTypeOfferings",
			Err: &smithy.GenericAPIError{Code: "UnauthorizedOperation"}}
	})
	r = NodePool(ctx, pool(nil, families, zoneB), PoolFacts{Karpenter: kv, Catalogue: embedded,
		Subnets: subnets, SubnetsKnown: true, Offerings: denied})
	got := ids(r.Findings)
	di, zi := slices.Index(got, readiness.RuleReadDenied.ID), slices.Index(got, "nodepool-zones-without-subnet")
	if !r.CrossChecked || di < 0 || zi < di || r.Failed != nil {
		t.Errorf("zone b without a subnet, offerings denied: %v (failed %v); want the denied read, then the zone finding", got, r.Failed)
	}
	// Without the class's subnets the zones are not checked.
	r = NodePool(ctx, pool(nil, families, zoneB), PoolFacts{Karpenter: kv, Catalogue: embedded, Offerings: denied})
	if slices.Contains(ids(r.Findings), "nodepool-zones-without-subnet") || slices.Contains(ids(r.Findings), readiness.RuleReadDenied.ID) {
		t.Errorf("subnets unknown: %v", ids(r.Findings))
	}
	// A failed offerings read fails the check.
	r = NodePool(ctx, pool(nil, families, zoneB), PoolFacts{Karpenter: kv, Catalogue: embedded, Subnets: subnets, SubnetsKnown: true,
		Offerings: offeringsFunc(func(context.Context) (map[string][]string, error) { return nil, boom })})
	if !errors.Is(r.Failed, boom) {
		t.Errorf("a failed offerings read: %v", r.Failed)
	}
}

// TestClassStatus: the decision's status of a class follows the reader's
// state.
func TestClassStatus(t *testing.T) {
	if _, ok := ClassStatus(ClassReadiness{State: Failed, Failed: errors.New("boom")}, ""); ok {
		t.Error("a failed read gave a status")
	}
	for _, s := range []ReadState{Skipped, Deferred} {
		if st, ok := ClassStatus(ClassReadiness{State: s}, ""); !ok || st.Unknown == "" {
			t.Errorf("state %v: %+v, want the not-served status", s, st)
		}
	}
	st, ok := ClassStatus(ClassReadiness{State: Read}, "no image")
	if !ok || st.Ready {
		t.Errorf("read, images not ready: %+v", st)
	}
}
