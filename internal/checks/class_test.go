package checks

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// fakeSource records what ReadClass asks; deny makes the named question
// answer as AWS does for a denied action.
type fakeSource struct {
	mu    sync.Mutex
	asked []string
	err   error
	deny  map[string]string // question -> operation
}

func (f *fakeSource) ask(q string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, q)
	if op, ok := f.deny[q]; ok {
		// As the SDK answers a caller whose policy lacks the action.
		return &smithy.OperationError{ServiceID: "IAM", OperationName: op, Err: &smithy.GenericAPIError{Code: "AccessDenied", Message: "not authorized"}}
	}
	return nil
}

func (f *fakeSource) SelectSubnets(_ context.Context, terms []awsclient.SubnetTerm) (awsclient.Selection[awsclient.Subnet], error) {
	if err := f.ask("subnets"); err != nil {
		return awsclient.Selection[awsclient.Subnet]{}, err
	}
	return awsclient.Selection[awsclient.Subnet]{ByTerm: make([][]awsclient.Subnet, len(terms))}, f.err
}

func (f *fakeSource) SelectSecurityGroups(_ context.Context, terms []awsclient.SecurityGroupTerm) (awsclient.SecurityGroupSelection, error) {
	sel := awsclient.SecurityGroupSelection{}
	sel.ByTerm = make([][]awsclient.SecurityGroup, len(terms))
	return sel, f.ask("groups")
}

func (f *fakeSource) SelectCapacityReservations(context.Context, []awsclient.CapacityReservationTerm) (awsclient.Selection[awsclient.CapacityReservation], error) {
	return awsclient.Selection[awsclient.CapacityReservation]{}, f.ask("reservations")
}

func (f *fakeSource) GetRole(_ context.Context, name string) (awsclient.Role, error) {
	return awsclient.Role{Name: name, Found: true}, f.ask("role " + name)
}

func (f *fakeSource) GetInstanceProfile(_ context.Context, name string) (awsclient.InstanceProfile, error) {
	return awsclient.InstanceProfile{Name: name}, f.ask("profile " + name)
}

func class(spec manifest.EC2NodeClassSpec, unknown ...rules.Path) nodeclass.Class {
	c := nodeclass.FromManifest(manifest.EC2NodeClass{Spec: spec})
	c.Unknown = rules.Unknowns{}
	for _, p := range unknown {
		c.Unknown.Add(p)
	}
	return c
}

// TestReadClassAsksOnlyWhatTheClassUses: the reads follow the class (its
// role or instance profile, reservations only with terms), inputs unknown
// at plan are not read, and no AWS or unknown subnets read nothing.
func TestReadClassAsksOnlyWhatTheClassUses(t *testing.T) {
	kv := versions.DefaultKarpenter
	for _, tc := range []struct {
		name  string
		c     nodeclass.Class
		err   error
		want  []string
		state ReadState
	}{
		{"role", class(manifest.EC2NodeClassSpec{Role: "eks/r"}), nil, []string{"groups", "role r", "subnets"}, Read},
		{"instance profile and reservations", class(manifest.EC2NodeClassSpec{InstanceProfile: "p",
			CapacityReservationSelectorTerms: []manifest.CapacityReservationSelectorTerm{{ID: "cr-1"}}}), nil,
			[]string{"groups", "profile p", "reservations", "subnets"}, Read},
		{"groups and role unknown", class(manifest.EC2NodeClassSpec{Role: "r"}, readiness.PathGroupTerms, readiness.PathRole), nil, []string{"subnets"}, Read},
		{"subnets unknown", class(manifest.EC2NodeClassSpec{Role: "r"}, readiness.PathSubnetTerms), nil, nil, Deferred},
		{"not served", class(manifest.EC2NodeClassSpec{Role: "r"}), awsclient.ErrNotServed, []string{"groups", "role r", "subnets"}, Skipped},
		{"configuration unknown", class(manifest.EC2NodeClassSpec{Role: "r"}), awsclient.ErrUnknownConfig, []string{"groups", "role r", "subnets"}, Deferred},
		{"failed", class(manifest.EC2NodeClassSpec{Role: "r"}), errors.New("boom"), []string{"groups", "role r", "subnets"}, Failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &fakeSource{err: tc.err}
			r := ReadClass(context.Background(), src, tc.c, kv)
			slices.Sort(src.asked)
			if r.State != tc.state || !slices.Equal(src.asked, tc.want) {
				t.Errorf("state %v, asked %v; want %v, %v", r.State, src.asked, tc.state, tc.want)
			}
			if tc.state == Skipped && (len(r.Findings) != 1 || r.Findings[0].Rule != readiness.RuleChecksSkipped) {
				t.Errorf("not served: findings %v, want the one saying the checks were skipped", r.Findings)
			}
			if tc.state == Failed && (!errors.Is(r.Failed, tc.err) || r.FailedAt.String() != "subnet_selector_terms") {
				t.Errorf("failed: %v at %q", r.Failed, r.FailedAt)
			}
		})
	}
	if r := ReadClass(context.Background(), nil, class(manifest.EC2NodeClassSpec{Role: "r"}), kv); r.State != Skipped || len(r.Findings) != 0 {
		t.Errorf("without AWS: %+v, want skipped without a finding", r)
	}
}

// TestReadClassDeniedReadGoesOn: a denied readiness read is recorded, its
// condition planned Unknown (NotPredicted), and the class is still read.
func TestReadClassDeniedReadGoesOn(t *testing.T) {
	src := &fakeSource{deny: map[string]string{"role r": "GetRole"}}
	r := ReadClass(context.Background(), src, class(manifest.EC2NodeClassSpec{Role: "r"}), versions.DefaultKarpenter)
	if r.State != Read || len(r.Denied) != 1 || r.Denied[0].Action != "iam:GetRole" || !r.WasDenied(readiness.ConditionInstanceProfileReady) {
		t.Fatalf("denied role read: state %v, denied %+v, not read %v", r.State, r.Denied, r.NotRead)
	}
	for _, c := range r.Result.Conditions {
		if c.Type == readiness.ConditionInstanceProfileReady && (c.Status != "Unknown" || c.Reason != readiness.ReasonNotPredicted) {
			t.Errorf("condition of the denied read: %+v, want Unknown/%s", c, readiness.ReasonNotPredicted)
		}
	}
}
