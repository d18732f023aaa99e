package manifestcheck

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/checks"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// ClassAWS is what the checks of one EC2NodeClass (checks.EC2NodeClass)
// found, and what AWS said about it.
type ClassAWS struct {
	// Own are the findings of the class's own rules.
	Own rules.Findings
	// AMIs are the images its AMI selector terms resolve to, when
	// ImagesResolved: not offline, nor when the terms hold an alias and
	// the Kubernetes version is not known (Options.Kubernetes or Cluster),
	// nor when a request failed or an error in the terms makes them
	// meaningless.
	AMIs           ami.Result
	ImagesResolved bool
	// Readiness is what checks.ReadClass read: its predicted status
	// (subnets, security groups, the role or instance profile, capacity
	// reservations) when State is checks.Read; not offline, when the
	// endpoint does not serve the reads, nor when a request failed.
	Readiness checks.ClassReadiness
	// Findings are the rules' findings on the AWS facts (or, offline, on
	// what needs none of them), in the resource's attribute paths.
	Findings rules.Findings
}

// ReadinessRead reports whether the class's status was predicted.
func (a *ClassAWS) ReadinessRead() bool { return a != nil && a.Readiness.State == checks.Read }

// imagesUsable reports whether the images resolved without an error:
// pools are then cross-checked with them.
func (a *ClassAWS) imagesUsable() bool {
	return a != nil && a.ImagesResolved && !a.AMIs.Findings.HasErrors()
}

// readClasses runs the checks of every class (checks.EC2NodeClass) with
// the images and readiness facts Karpenter would read when AWS is asked,
// and reads the region's instance types (the embedded facts offline). A
// failed request is recorded in res.Failures and its check left out; note
// says what was not checked.
func readClasses(ctx context.Context, items []*item, opt Options, res *Result) (*instancetype.Catalogue, string) {
	var classes []nodeclass.Class
	var of []*item
	for _, it := range items {
		if it.class != nil {
			classes = append(classes, *it.class)
			of = append(of, it)
		}
	}
	cat := instancetype.Embedded()
	var catErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if opt.AWS != nil {
			cat, catErr = instancetype.Load(ctx, opt.AWS)
		}
	}()
	facts, notes, failures := ReadClasses(ctx, classes, opt)
	<-done
	for i, it := range of {
		it.aws = facts[i]
	}
	res.Failures = append(res.Failures, failures...)
	if catErr != nil {
		res.Failures = append(res.Failures, fmt.Errorf("reading the region's instance types: %w", catErr))
		notes = append(notes, "the region's instance types (the embedded family facts were used)")
		cat = instancetype.Embedded()
	}
	return cat, strings.Join(notes, "; ")
}

// NoteAliasVersion is ReadClasses' note when classes have alias terms and
// the Kubernetes version is not known.
const NoteAliasVersion = "the images of alias selector terms: they need the cluster's Kubernetes version (--kubernetes-version, or --cluster to read it with eks:DescribeCluster)"

// ReadClasses runs the checks of each class (checks.EC2NodeClass, as the
// karpenter_ec2nodeclass resource does), with, when opt.AWS is set, what
// Karpenter would read from AWS: the images its AMI selector terms resolve
// to, and the readiness facts. Each distinct question is asked once (the
// Cache) and classes are read concurrently. A readiness read AWS denies
// skips the checks it feeds, as in the provider (Options.NotRead), and is
// named in notes, which say what was not read; a request that fails
// otherwise is in failures, and the class's facts it was for are left out.
func ReadClasses(ctx context.Context, classes []nodeclass.Class, opt Options) (facts []*ClassAWS, notes []string, failures []error) {
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, err)
	}
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, s)
	}
	var k8s versions.Kubernetes
	k8sKnown := false
	for _, c := range classes {
		if _, alias := ami.AliasTerm(c.Terms); alias && opt.AWS != nil {
			var err error
			k8s, k8sKnown, err = kubernetesVersion(ctx, opt)
			if err != nil {
				fail(err)
			} else if !k8sKnown {
				note(NoteAliasVersion)
			}
			break
		}
	}
	var wg sync.WaitGroup
	var notServed sync.Once
	denied := map[string]error{}
	facts = make([]*ClassAWS, len(classes))
	for i, c := range classes {
		a := &ClassAWS{}
		facts[i] = a
		wg.Go(func() {
			obj := "EC2NodeClass/" + c.Name
			f := checks.ClassFacts{Karpenter: opt.Karpenter, Cluster: opt.Cluster}
			var versionFindings rules.Findings
			if opt.AWS != nil {
				f.Readiness, f.SuggestFamily = opt.AWS, true
				if i, alias := ami.AliasTerm(c.Terms); !alias || k8sKnown {
					// The version matters to the class through its alias.
					if alias {
						versionFindings = ami.KubernetesUnsupported(k8s, ami.TermsPath.Index(i).Attr(ami.FieldAlias))
					}
					f.Images = func(ctx context.Context) (ami.Result, error) {
						r := &ami.Resolver{Source: opt.AWS}
						return r.Resolve(ctx, ami.Request{Terms: c.Terms, Kubernetes: k8s, Karpenter: opt.Karpenter})
					}
				}
			}
			res := checks.EC2NodeClass(ctx, c, f)
			a.Own, a.AMIs, a.ImagesResolved = res.Own, res.Images, res.ImagesResolved
			if res.ImagesAsked {
				a.Findings = append(a.Findings, versionFindings...)
			}
			if res.ImagesErr != nil {
				fail(fmt.Errorf("%s: resolving the AMI selector terms: %w", obj, res.ImagesErr))
			}
			for _, f := range res.OnImages {
				if !notForManifests[f.Rule] {
					a.Findings = append(a.Findings, f)
				}
			}
			// The provider's reader: a denied readiness read skips the
			// checks it feeds, and the others go on (a role that runs
			// the checks in CI often has ec2:Describe* and no IAM reads).
			r := res.Readiness
			a.Readiness = r
			mu.Lock()
			for _, d := range r.Denied {
				denied[d.Action] = d.Err
			}
			mu.Unlock()
			switch {
			case opt.AWS == nil || !res.ReadinessChecked:
			case r.State == checks.Skipped:
				notServed.Do(func() { note("the EC2NodeClass readiness checks: the endpoint does not serve ec2:DescribeSubnets") })
			case r.State == checks.Failed, r.State == checks.Deferred:
				err := cmp.Or(r.Failed, awsclient.ErrUnknownConfig)
				fail(fmt.Errorf("%s: reading subnets, security groups, capacity reservations and the role: %w", obj, err))
			default:
				a.Findings = append(a.Findings, r.Findings...)
			}
		})
	}
	wg.Wait()
	for _, action := range slices.Sorted(maps.Keys(denied)) {
		notes = append(notes, fmt.Sprintf("the readiness checks that need %s (%s): AWS denied it (%v); grant it to the identity that runs the checks",
			action, readiness.ConditionOf(action), denied[action]))
	}
	return facts, notes, failures
}

// kubernetesVersion is the version alias terms resolve for: given, or read
// from the cluster; known is false when neither was given.
func kubernetesVersion(ctx context.Context, opt Options) (v versions.Kubernetes, known bool, err error) {
	s := opt.Kubernetes
	if s == "" && opt.Cluster != "" {
		facts, err := cluster.Resolve(ctx, cluster.Settings{Name: opt.Cluster}, []string{cluster.FieldKubernetesVersion}, opt.AWS, "resolving an AMI alias")
		if err != nil {
			return v, false, fmt.Errorf("reading the Kubernetes version of cluster %q: %w", opt.Cluster, err)
		}
		s = facts.KubernetesVersion
	}
	if s == "" {
		return v, false, nil
	}
	v, err = versions.ParseKubernetes(s)
	return v, err == nil, err
}

// zoneFacts is what the zone cross-check of a NodePool reads with AWS: its
// class's subnets (as the class's status would list them) and the region's
// offerings.
type zoneFacts struct {
	subnets []readiness.Subnet
	region  *offerings
}

// offerings reads the region's instance-type offerings per zone once per
// run, when a pool first needs them. A denied read skips the family check
// (the zones are still checked) and says so, as the provider's warning
// does; another failure is a failed request of the run.
type offerings struct {
	aws  *awsclient.Cache
	res  *Result
	once sync.Once
	zone map[string][]string
}

// OfferingsByZone is checks.Offerings: the failures are the run's, said
// once, so the pool's check is only skipped.
func (o *offerings) OfferingsByZone(ctx context.Context) (map[string][]string, error) {
	o.once.Do(func() {
		off, err := o.aws.OfferingsByZone(ctx)
		if action, denied := awsclient.Denied(err); denied {
			o.res.Skipped = append(o.res.Skipped, fmt.Sprintf("the NodePools' instance families against the offerings of their zones "+
				"(nodepool-families-not-offered): AWS denied %s (%v); grant it to the identity that runs the checks", action, err))
			return
		} else if err != nil {
			o.res.Failures = append(o.res.Failures, fmt.Errorf("reading the region's instance-type offerings: %w", err))
			return
		}
		// A fixture set without offerings says nothing about the zones.
		if len(off) > 0 {
			o.zone = off
		}
	})
	return o.zone, nil
}
