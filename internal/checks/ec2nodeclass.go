package checks

import (
	"context"
	"errors"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// ErrDeferred is what a fact reader of ClassFacts returns when an input it
// needs (the Kubernetes version, the AWS configuration) is known only at
// apply: the checks that need it wait for apply.
var ErrDeferred = errors.New("deferred until the value is known")

// ClassFacts are what an EC2NodeClass's checks use besides the class.
type ClassFacts struct {
	Karpenter versions.Karpenter
	// Images resolves the class's AMI selector terms as Karpenter would
	// (with the front end's AWS and Kubernetes version); nil when the
	// images are not read (offline, an alias without a Kubernetes version).
	Images func(ctx context.Context) (ami.Result, error)
	// SuggestFamily lets a missing amiFamily ask Images for the family the
	// images suggest (false: Images is asked only for the images' checks,
	// e.g. when AWS is not set up and only a hint would wait on it).
	SuggestFamily bool
	// ClusterFacts reads the cluster facts a bootstrap block takes its
	// defaults from (need: cluster.Field*); nil when there is no cluster
	// to read.
	ClusterFacts func(ctx context.Context, need []string) (cluster.Facts, error)
	// Cluster is the name of the cluster the class is for, "" when not
	// known: a Custom userData's bootstrap.sh call must name it.
	Cluster string
	// Readiness answers the readiness reads (ReadClass); nil skips them.
	Readiness readiness.Source
}

// ClassResult is what an EC2NodeClass's checks found.
type ClassResult struct {
	// Own are the class's own rules (nodeclass.Validate), the missing
	// amiFamily naming the family the images suggest; OnImages the
	// findings of the images and of what builds on them (nodeclass.Plan),
	// or, when the images were not read, the checks that need none of them.
	Own, OnImages rules.Findings
	// ImagesChecked and ReadinessChecked say no error of the class makes
	// its images or its readiness reads meaningless (nodeclass.PlanChecks).
	ImagesChecked, ReadinessChecked bool
	// ImagesAsked says ClassFacts.Images was asked for the images step
	// (not only for the family suggestion); Images are its answer, when
	// ImagesResolved.
	ImagesAsked    bool
	Images         ami.Result
	ImagesResolved bool
	// Deferred says an input of the images or of the userData is known
	// only at apply.
	Deferred bool
	// Planned is nodeclass.Plan's answer (the rendered userData and
	// manifest), when it ran: the images resolved without a blocking error.
	Planned *nodeclass.Planned
	// Readiness is what the readiness reads predict (State Skipped when
	// they were not made).
	Readiness ClassReadiness
	// ImagesErr and ClusterErr are the failed reads of ClassFacts.Images
	// and ClassFacts.ClusterFacts: the checks on them were not made.
	ImagesErr, ClusterErr error
}

// Findings are Own then OnImages: the readiness findings are in Readiness,
// which each front end reports in its way (a denied read, strictness).
func (r ClassResult) Findings() rules.Findings {
	return append(append(rules.Findings(nil), r.Own...), r.OnImages...)
}

var (
	pathAMIFamily = rules.Root("ami_family")
	pathBootstrap = rules.Root("bootstrap")
)

// EC2NodeClass runs an EC2NodeClass's checks in order: its own rules (for
// the Karpenter release), then, each unless an error makes it meaningless
// (nodeclass.PlanChecks: an error in the AMI selector terms, the family or
// the bootstrap block skips the images; one in the subnet, security group
// or reservation terms or the identity skips the readiness reads), the
// images and what builds on them (the userData for the family, block
// devices against the snapshots, the bootstrap rendering) while the
// readiness reads run. An error elsewhere in the class does not hide them:
// a tag error and a snapshot larger than the root volume are reported
// together. A missing amiFamily asks the images only to name the family
// they suggest.
func EC2NodeClass(ctx context.Context, c nodeclass.Class, f ClassFacts) ClassResult {
	var r ClassResult
	validated := nodeclass.Validate(c, f.Karpenter)
	r.Own = suggestFamily(ctx, c, f, validated)
	r.ImagesChecked, r.ReadinessChecked = nodeclass.PlanChecks(validated)
	r.Readiness = ClassReadiness{State: Skipped}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if r.ReadinessChecked {
			r.Readiness = ReadClass(ctx, f.Readiness, c, f.Karpenter)
		}
	}()
	if r.ImagesChecked {
		r.images(ctx, c, f)
	}
	<-done
	return r
}

// images resolves the images and runs the checks on them.
func (r *ClassResult) images(ctx context.Context, c nodeclass.Class, f ClassFacts) {
	u := c.Unknown
	if u.Within(ami.TermsPath) || u.Is(pathAMIFamily) {
		r.Deferred = true
		return
	}
	if f.Images == nil {
		// The cluster check needs no images: without them it runs alone.
		r.OnImages = nodeclass.BootstrapClusterFindings(c, f.Karpenter, f.Cluster)
		return
	}
	r.ImagesAsked = true
	res, err := f.Images(ctx)
	switch {
	case errors.Is(err, ErrDeferred):
		r.Deferred = true
		return
	case err != nil:
		r.ImagesErr = err
		return
	}
	r.Images, r.ImagesResolved = res, true
	r.OnImages = append(r.OnImages, res.Findings...)
	// The checks below are about the images; errors elsewhere in the
	// class do not stop them, unless no image is left to check.
	if res.Findings.HasBlockingErrors() || r.Own.HasBlockingErrors() && len(res.AMIs) == 0 {
		return
	}
	var facts cluster.Facts
	if c.Bootstrap != nil {
		if u.Within(pathBootstrap) {
			r.Deferred = true
			return
		}
		if need := nodeclass.BootstrapNeeds(*c.Bootstrap); len(need) > 0 && f.ClusterFacts != nil {
			facts, err = f.ClusterFacts(ctx, need)
			switch {
			case errors.Is(err, cluster.ErrUnknown) || errors.Is(err, ErrDeferred):
				r.Deferred = true
				return
			case err != nil:
				r.ClusterErr = err
				return
			}
		}
	}
	if facts.Name == "" {
		// The configured name alone (no eks:DescribeCluster): the cluster
		// a Custom userData's bootstrap call must name.
		facts.Name = f.Cluster
	}
	p := nodeclass.Plan(nodeclass.PlanInput{Class: c, AMIs: res, Cluster: facts, Karpenter: f.Karpenter})
	r.Planned = &p
	r.OnImages = append(r.OnImages, p.Findings...)
}

// suggestFamily: when amiFamily is missing without an alias and nothing
// else is wrong, the images the terms select say which family to set, so
// the error names it (the API server's message does not).
func suggestFamily(ctx context.Context, c nodeclass.Class, f ClassFacts, fs rules.Findings) rules.Findings {
	i := -1
	for j, x := range fs {
		switch {
		case x.Rule.ID == ami.RuleFamilyRequired.ID:
			i = j
		case x.Severity == rules.Error && !x.Rule.Acknowledgeable:
			return fs
		}
	}
	if i < 0 || c.Unknown.Within(ami.TermsPath) || f.Images == nil || !f.SuggestFamily {
		return fs
	}
	res, err := f.Images(ctx)
	if err != nil || len(res.AMIs) == 0 {
		return fs
	}
	out := append(rules.Findings(nil), fs...)
	out[i] = nodeclass.FamilyRequired(res)
	return out
}
