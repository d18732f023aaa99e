package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
)

// consolidationUsage is the disruption command's usage on consolidation.
const consolidationUsage = `With --region (or --profile) it also says what consolidation does next: Karpenter's own disruption methods
(Emptiness, multi-node and single-node consolidation) run on the snapshot at --at, each command applied to the cluster
before the next is decided, up to --max-commands: the nodes each deletes or replaces, the replacement's instance types
and price, the savings per hour, and why the nodes left are kept. It reads the region's instance types and prices and
the EC2NodeClasses' subnets (read-only), as karpenter-lint schedule does.
`

// consolidationFlags are the disruption command's consolidation flags.
type consolidationFlags struct {
	region, profile, kubernetes, cluster string
	max                                  int
}

func (c *consolidationFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.region, "region", "", "with it, consolidation is decided too: the AWS region of the cluster (its instance types and prices)")
	fs.StringVar(&c.profile, "profile", "", "the AWS profile to read the region's instance types with (instead of --region)")
	fs.StringVar(&c.kubernetes, "kubernetes-version", "", "the cluster's Kubernetes minor (1.32) for resolving AMI aliases, with --region or --profile")
	fs.StringVar(&c.cluster, "cluster", "", "EKS cluster whose Kubernetes version AMI aliases resolve for (eks:DescribeCluster), with --region or --profile")
	fs.IntVar(&c.max, "max-commands", disruption.DefaultBound, "the consolidation commands predicted at most")
}

// consolidate decides consolidation into plan when AWS is given; an error
// is a failed AWS read.
func (c *consolidationFlags) consolidate(in disruption.Input, plan *disruption.Plan) error {
	if c.region == "" && c.profile == "" {
		plan.Findings = append(plan.Findings, "consolidation is not decided: it needs the region's instance types and prices (give --region or --profile)")
		return nil
	}
	if c.max < 1 {
		return fmt.Errorf("--max-commands %d: give at least 1", c.max)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	p := scheduling.Parse(scheduling.Input{Karpenter: in.Karpenter})
	opt := manifestcheck.Options{Karpenter: in.Version, Kubernetes: c.kubernetes, Cluster: c.cluster,
		AWS: awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: c.region, Profile: c.profile, MaxRetries: -1}))}
	facts, notes, err := scheduleFacts(ctx, p, opt)
	if err != nil {
		return err
	}
	facts.Settings = capacity.DefaultSettings()
	its, findings := p.InstanceTypes(ctx, facts)
	for _, f := range findings {
		notes = append(notes, f.Detail)
	}
	cons, errs := disruption.Consolidate(ctx, in, disruption.ConsolidationInput{InstanceTypes: its, Bound: c.max})
	plan.Consolidation = cons
	for _, n := range append(notes, errs...) {
		plan.Findings = append(plan.Findings, "consolidation: "+n)
	}
	return nil
}
