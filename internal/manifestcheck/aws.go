package manifestcheck

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// ClassAWS is what AWS says about one EC2NodeClass.
type ClassAWS struct {
	// AMIs are the images its AMI selector terms resolve to, when
	// ImagesResolved: not when the terms hold an alias and the Kubernetes
	// version is not known (Options.Kubernetes or Cluster), nor when a
	// request failed.
	AMIs           ami.Result
	ImagesResolved bool
	// Readiness is its predicted status (subnets, security groups, the
	// role or instance profile, capacity reservations), when
	// ReadinessRead: not when the endpoint does not serve the reads, nor
	// when a request failed.
	Readiness     readiness.Result
	ReadinessRead bool
	// Findings are the rules' findings on the AWS facts, in the resource's
	// attribute paths.
	Findings rules.Findings
}

// imagesUsable reports whether the images resolved without an error:
// pools are then cross-checked with them.
func (a *ClassAWS) imagesUsable() bool {
	return a != nil && a.ImagesResolved && !a.AMIs.Findings.HasErrors()
}

// readAWS reads, for every class that passed its offline rules, the
// images and readiness facts Karpenter would read, and the region's
// instance types. A failed request is recorded in res.Failures and its
// check left out; note says what was not checked.
func readAWS(ctx context.Context, items []*item, opt Options, res *Result) (*instancetype.Catalogue, string) {
	var classes []nodeclass.Class
	var of []*item
	for _, it := range items {
		if it.class != nil && !nodeclass.Validate(*it.class, opt.Karpenter).HasErrors() {
			classes = append(classes, *it.class)
			of = append(of, it)
		}
	}
	var cat *instancetype.Catalogue
	var catErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		cat, catErr = instancetype.Load(ctx, opt.AWS)
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

// ReadClasses reads what Karpenter would read from AWS for each class: the
// images its AMI selector terms resolve to, and the readiness facts.
// Each distinct question is asked once (the Cache) and classes are read
// concurrently. A readiness read AWS denies skips the checks it feeds, as
// in the provider (Options.NotRead), and is named in notes, which say what
// was not read; a request that fails otherwise is in failures, and the
// class's facts it was for are left out.
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
		if _, alias := ami.AliasTerm(c.Terms); alias {
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
	src := &tolerant{Source: opt.AWS, denied: map[string]error{}}
	facts = make([]*ClassAWS, len(classes))
	for i, c := range classes {
		a := &ClassAWS{}
		facts[i] = a
		wg.Go(func() {
			obj := "EC2NodeClass/" + c.Name
			if i, alias := ami.AliasTerm(c.Terms); !alias || k8sKnown {
				// The version matters to the class through its alias.
				if alias {
					a.Findings = append(a.Findings, ami.KubernetesUnsupported(k8s, ami.TermsPath.Index(i).Attr(ami.FieldAlias))...)
				}
				if err := a.resolve(ctx, opt.AWS, c, k8s, opt.Karpenter); err != nil {
					fail(fmt.Errorf("%s: resolving the AMI selector terms: %w", obj, err))
				}
			}
			o, err := readiness.Lookup(ctx, src, c.Readiness())
			switch {
			case errors.Is(err, awsclient.ErrNotServed):
				notServed.Do(func() { note("the EC2NodeClass readiness checks: the endpoint does not serve ec2:DescribeSubnets") })
			case err != nil:
				fail(fmt.Errorf("%s: reading subnets, security groups, capacity reservations and the role: %w", obj, err))
			default:
				a.Readiness = readiness.Evaluate(c.Readiness(), o, readiness.Options{
					Now: time.Now(),
					// The ReservedCapacity gate, on by default from 1.6.
					CapacityReservations: opt.Karpenter.AtLeast(6, 0),
					NotRead:              src.notRead(),
				})
				a.ReadinessRead = true
				a.Findings = append(a.Findings, a.Readiness.Findings...)
			}
		})
	}
	wg.Wait()
	for _, action := range slices.Sorted(maps.Keys(src.denied)) {
		notes = append(notes, fmt.Sprintf("the readiness checks that need %s (%s): AWS denied it (%v); grant it to the identity that runs the checks",
			action, readiness.ConditionOf(action), src.denied[action]))
	}
	return facts, notes, failures
}

// tolerant answers a readiness read that AWS denies with nothing and
// records it, as the provider does: the checks it feeds are skipped
// (Options.NotRead) and the other reads go on. A role that runs the
// checks in CI often has ec2:Describe* and no IAM reads.
type tolerant struct {
	readiness.Source
	mu     sync.Mutex
	denied map[string]error
}

func (t *tolerant) keep(err error) error {
	action, ok := awsclient.Denied(err)
	if !ok || !readiness.IsRead(action) {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.denied[action] = err
	return nil
}

// notRead maps the conditions of the denied reads to their action.
func (t *tolerant) notRead() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]string{}
	for action := range t.denied {
		out[readiness.ConditionOf(action)] = action
	}
	return out
}

func (t *tolerant) SelectSubnets(ctx context.Context, terms []awsclient.SubnetTerm) (awsclient.Selection[awsclient.Subnet], error) {
	s, err := t.Source.SelectSubnets(ctx, terms)
	return s, t.keep(err)
}

func (t *tolerant) SelectSecurityGroups(ctx context.Context, terms []awsclient.SecurityGroupTerm) (awsclient.SecurityGroupSelection, error) {
	s, err := t.Source.SelectSecurityGroups(ctx, terms)
	return s, t.keep(err)
}

func (t *tolerant) SelectCapacityReservations(ctx context.Context, terms []awsclient.CapacityReservationTerm) (awsclient.Selection[awsclient.CapacityReservation], error) {
	s, err := t.Source.SelectCapacityReservations(ctx, terms)
	return s, t.keep(err)
}

func (t *tolerant) GetRole(ctx context.Context, name string) (awsclient.Role, error) {
	r, err := t.Source.GetRole(ctx, name)
	return r, t.keep(err)
}

func (t *tolerant) GetInstanceProfile(ctx context.Context, name string) (awsclient.InstanceProfile, error) {
	p, err := t.Source.GetInstanceProfile(ctx, name)
	return p, t.keep(err)
}

// resolve resolves the class's images as Karpenter does, and runs the
// class's rules that need them.
func (a *ClassAWS) resolve(ctx context.Context, src *awsclient.Cache, c nodeclass.Class, k8s versions.Kubernetes, kv versions.Karpenter) error {
	r := &ami.Resolver{Source: src}
	res, err := r.Resolve(ctx, ami.Request{Terms: c.Terms, Kubernetes: k8s, Karpenter: kv})
	if err != nil {
		return err
	}
	a.AMIs, a.ImagesResolved = res, true
	a.Findings = append(a.Findings, res.Findings...)
	if res.Findings.HasErrors() {
		return nil
	}
	for _, f := range nodeclass.Plan(nodeclass.PlanInput{Class: c, AMIs: res, Karpenter: kv}).Findings {
		if !notForManifests[f.Rule.ID] {
			a.Findings = append(a.Findings, f)
		}
	}
	return nil
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

// offerings answers the check only when the pool names families.
func (z *zoneFacts) offerings(ctx context.Context, needed bool) map[string][]string {
	if !needed {
		return nil
	}
	return z.region.get(ctx)
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

func (o *offerings) get(ctx context.Context) map[string][]string {
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
	return o.zone
}
