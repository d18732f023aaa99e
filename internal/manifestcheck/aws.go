package manifestcheck

import (
	"context"
	"errors"
	"fmt"
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

// classAWS is what AWS said about one EC2NodeClass.
type classAWS struct {
	amis ami.Result
	// resolved is set when the images resolved without an error: pools
	// are then cross-checked with them.
	resolved bool
	// findings are in the resource's attribute paths.
	findings rules.Findings
}

// readAWS reads, for every class that passed its offline rules, the
// images and readiness facts Karpenter would read, and the region's
// instance types. Each distinct question is asked once (the Cache), and
// classes are read concurrently. A failed request is recorded in
// res.Failures and its check left out; note says what was not checked.
func readAWS(ctx context.Context, items []*item, opt Options, res *Result) (*instancetype.Catalogue, string) {
	var mu sync.Mutex
	var notes []string
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		res.Failures = append(res.Failures, err)
	}
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, s)
	}
	var k8s versions.Kubernetes
	k8sKnown := false
	for _, it := range items {
		if it.class == nil {
			continue
		}
		if _, alias := ami.AliasTerm(it.class.Terms); alias {
			var err error
			k8s, k8sKnown, err = kubernetesVersion(ctx, opt)
			if err != nil {
				fail(err)
			} else if !k8sKnown {
				note("the images of alias selector terms: they need the cluster's Kubernetes version (--kubernetes-version, or --cluster to read it with eks:DescribeCluster)")
			}
			break
		}
	}
	var wg sync.WaitGroup
	var notServed sync.Once
	for _, it := range items {
		if it.class == nil || nodeclass.Validate(*it.class, opt.Karpenter).HasErrors() {
			continue
		}
		it.aws = &classAWS{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			obj := "EC2NodeClass/" + it.class.Name
			if _, alias := ami.AliasTerm(it.class.Terms); !alias || k8sKnown {
				if err := it.aws.resolve(ctx, opt.AWS, *it.class, k8s, opt.Karpenter); err != nil {
					fail(fmt.Errorf("%s: resolving the AMI selector terms: %w", obj, err))
				}
			}
			o, err := readiness.Lookup(ctx, opt.AWS, it.class.Readiness())
			switch {
			case errors.Is(err, awsclient.ErrNotServed):
				notServed.Do(func() { note("the EC2NodeClass readiness checks: the endpoint does not serve ec2:DescribeSubnets") })
			case err != nil:
				fail(fmt.Errorf("%s: reading subnets, security groups, capacity reservations and the role: %w", obj, err))
			default:
				r := readiness.Evaluate(it.class.Readiness(), o, readiness.Options{
					Now: time.Now(),
					// The ReservedCapacity gate, on by default from 1.6.
					CapacityReservations: opt.Karpenter.AtLeast(6, 0),
				})
				it.aws.findings = append(it.aws.findings, r.Findings...)
			}
		}()
	}
	cat, err := instancetype.Load(ctx, opt.AWS)
	if err != nil {
		fail(fmt.Errorf("reading the region's instance types: %w", err))
		note("the region's instance types (the embedded family facts were used)")
		cat = instancetype.Embedded()
	}
	wg.Wait()
	return cat, strings.Join(notes, "; ")
}

// resolve resolves the class's images as Karpenter does, and runs the
// class's rules that need them.
func (a *classAWS) resolve(ctx context.Context, src *awsclient.Cache, c nodeclass.Class, k8s versions.Kubernetes, kv versions.Karpenter) error {
	r := &ami.Resolver{Source: src}
	res, err := r.Resolve(ctx, ami.Request{Terms: c.Terms, Kubernetes: k8s, Karpenter: kv})
	if err != nil {
		return err
	}
	a.amis = res
	a.findings = append(a.findings, res.Findings...)
	if res.Findings.HasErrors() {
		return nil
	}
	a.resolved = true
	for _, f := range nodeclass.Plan(nodeclass.PlanInput{Class: c, AMIs: res, Karpenter: kv}).Findings {
		if !notForManifests[f.Rule.ID] {
			a.findings = append(a.findings, f)
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
