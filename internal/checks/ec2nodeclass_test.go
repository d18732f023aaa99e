package checks

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

func validSpec() manifest.EC2NodeClassSpec {
	return manifest.EC2NodeClassSpec{
		Role:                       "KarpenterNodeRole-demo",
		AMIFamily:                  "AL2023",
		AMISelectorTerms:           []manifest.AMISelectorTerm{{ID: "ami-0123456789abcdef0"}},
		SubnetSelectorTerms:        []manifest.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
		SecurityGroupSelectorTerms: []manifest.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}},
	}
}

// TestEC2NodeClassSkipsOnlyWhatAnErrorMakesMeaningless: the images and the
// readiness reads each run unless an error is in what they read; an error
// elsewhere in the class hides neither.
func TestEC2NodeClassSkipsOnlyWhatAnErrorMakesMeaningless(t *testing.T) {
	for _, tc := range []struct {
		name                string
		edit                func(*manifest.EC2NodeClassSpec)
		unknown             []rules.Path
		images, read, plan  bool
		deferred, ownErrors bool
	}{
		{"valid", func(*manifest.EC2NodeClassSpec) {}, nil, true, true, true, false, false},
		{"reserved tag", func(s *manifest.EC2NodeClassSpec) { s.Tags = map[string]string{"karpenter.sh/nodepool": "x"} }, nil, true, true, true, false, true},
		{"bad image id", func(s *manifest.EC2NodeClassSpec) { s.AMISelectorTerms[0].ID = "not-an-ami" }, nil, false, true, false, false, true},
		{"no subnet terms", func(s *manifest.EC2NodeClassSpec) { s.SubnetSelectorTerms = nil }, nil, true, false, true, false, true},
		{"terms unknown", func(*manifest.EC2NodeClassSpec) {}, []rules.Path{ami.TermsPath}, false, true, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := validSpec()
			tc.edit(&spec)
			src := &fakeSource{}
			asked := 0
			r := EC2NodeClass(context.Background(), class(spec, tc.unknown...), ClassFacts{
				Karpenter: versions.DefaultKarpenter,
				Images:    func(context.Context) (ami.Result, error) { asked++; return ami.Result{AMIs: []ami.AMI{{}}}, nil },
				Readiness: src,
			})
			if (asked == 1) != tc.images || r.ImagesAsked != tc.images {
				t.Errorf("images asked %d times (ImagesAsked %v), want %v", asked, r.ImagesAsked, tc.images)
			}
			if read := slices.Contains(src.asked, "subnets"); read != tc.read || (r.Readiness.State == Read) != tc.read {
				t.Errorf("readiness read %v (state %v), want %v", read, r.Readiness.State, tc.read)
			}
			if (r.Planned != nil) != tc.plan || r.Deferred != tc.deferred || r.Own.HasErrors() != tc.ownErrors {
				t.Errorf("planned %v, deferred %v, own %v", r.Planned != nil, r.Deferred, r.Own)
			}
		})
	}
}

// TestEC2NodeClassFacts: a failed image read stops the checks on the
// images; without images (offline) the cluster check that needs none runs
// alone, naming the cluster the class is for.
func TestEC2NodeClassFacts(t *testing.T) {
	boom := errors.New("boom")
	r := EC2NodeClass(context.Background(), class(validSpec()), ClassFacts{
		Karpenter: versions.DefaultKarpenter,
		Images:    func(context.Context) (ami.Result, error) { return ami.Result{}, boom },
	})
	if !errors.Is(r.ImagesErr, boom) || r.Planned != nil || r.ImagesResolved || r.Readiness.State != Skipped {
		t.Errorf("failed image read: %+v", r)
	}
	r = EC2NodeClass(context.Background(), class(validSpec()), ClassFacts{
		Karpenter: versions.DefaultKarpenter,
		Images:    func(context.Context) (ami.Result, error) { return ami.Result{}, ErrDeferred },
	})
	if !r.Deferred || r.ImagesErr != nil {
		t.Errorf("deferred image read: %+v", r)
	}

	spec := validSpec()
	spec.AMIFamily = "Custom"
	ud := "#!/bin/bash\n/etc/eks/bootstrap.sh other\n"
	spec.UserData = &ud
	for _, f := range []ClassFacts{
		{Karpenter: versions.DefaultKarpenter, Cluster: "demo"},
		{Karpenter: versions.DefaultKarpenter, Cluster: "demo", Images: func(context.Context) (ami.Result, error) { return ami.Result{AMIs: []ami.AMI{{}}}, nil }},
	} {
		r := EC2NodeClass(context.Background(), class(spec), f)
		if got := r.Findings().ByRule(nodeclass.RuleOtherCluster.ID); len(got) != 1 || got[0].Severity != rules.Error {
			t.Errorf("images read %v: other-cluster findings %v, want one error", f.Images != nil, r.Findings())
		}
	}
}
