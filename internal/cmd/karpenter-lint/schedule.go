package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/checks"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

const scheduleUsage = `Usage: karpenter-lint schedule --pools PATH --workloads PATH --region REGION [--baseline PATH] [flags]

Decides where Karpenter v1.14 would put the workloads' pods on an empty cluster (or, with --cluster-state, on the
running cluster's nodes first), as the provider's data source
karpenter_scheduling does, by running Karpenter's own scheduler: the NodePool that takes each pod, the NodeClaims
Karpenter would create, and for a pod it would not place its reason (pod-unschedulable, exit 2) and what to change.

--pools reads NodePools, EC2NodeClasses and NodeOverlays (applied with --feature-gates NodeOverlay=true, as Karpenter
applies them with its gate on); --workloads reads Pods, Deployments, ReplicaSets, StatefulSets, Jobs,
CronJobs, DaemonSets (overhead on the nodes they run on), PersistentVolumeClaims, PersistentVolumes, StorageClasses,
PriorityClasses and Namespaces, and lists other kinds as not read. Each is a file, a directory (*.yaml, *.yml and *.json,
recursively) or - (standard input, for one of them), and repeatable.

The decision needs the region's instance types and offerings and the subnets of the EC2NodeClasses, so it needs AWS:
--region or --profile (read-only; AWS_ENDPOINT_URL_* and the SDK's other variables are honoured). Alias AMI terms are
resolved with --kubernetes-version or --cluster; without either, their images are taken to resolve.

--baseline reads the NodePools and EC2NodeClasses before a change (the main branch's): the same workloads are decided on
them too, and the output adds what the change does: the workloads whose pods land elsewhere, and the NodeClaims it adds
and removes. The exit status is the new pools' alone: 2 only for pods they cannot place.

Flags (also keys of the configuration file, .karpenter-lint.yaml in the working directory by default):
`

// runSchedule is the schedule command.
func runSchedule(e *env, args []string) int {
	var flags options
	var configPath string
	var outputs outputList
	o, paths, loaded, code, ok := parseSettings(e, scheduleFlags(&flags, &configPath, &outputs), scheduleUsage, &flags, &outputs, &configPath, args)
	if !ok {
		return code
	}
	if len(paths) > 0 {
		return e.errorf("schedule takes no paths (%s): give NodePools and EC2NodeClasses with --pools, workloads with --workloads", strings.Join(paths, " "))
	}
	kv, failLevel, settings, err := checkSchedule(o)
	if err != nil {
		if loaded != "" {
			err = fmt.Errorf("%w (flags and %s)", err, loaded)
		}
		return e.errorf("%v", err)
	}
	pools, workloads, err := scheduleInputs(e, o)
	if err != nil {
		return e.errorf("%v", err)
	}
	gates, err := nodeoverlay.ParseFeatureGates(o.FeatureGates)
	if err != nil {
		return e.errorf("%v", err)
	}
	loc := newLocator(pools, workloads, o.SourceRoot)
	in := scheduling.Input{
		Karpenter: texts(pools), Workloads: texts(workloads), AllowUnschedulable: o.AllowUnschedulable, Describe: loc.describe,
		AllowedIn: "allow-unschedulable", GateHow: nodeoverlay.GateHow(nodeoverlay.FrontEndCLI),
	}
	if in.ClusterState, err = loc.addClusterState(e, o.ClusterState); err != nil {
		return e.errorf("cluster-state: %v", err)
	}
	p := scheduling.Parse(in)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opt := manifestcheck.Options{Karpenter: kv, Kubernetes: o.KubernetesVersion, Cluster: o.Cluster,
		AWS: awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: o.Region, Profile: o.Profile, MaxRetries: -1}))}
	facts, notes, err := scheduleFacts(ctx, p, opt)
	if err != nil {
		return e.errorf("%v", err)
	}
	facts.Settings = settings
	facts.NodeOverlayGate = gates.NodeOverlay
	d, err := p.Decide(ctx, facts)
	if err != nil {
		return e.errorf("the decision was interrupted: %v", err)
	}
	o.KarpenterVersion = kv.String()
	r := newReport(loc.result(p, d, notes), len(pools)+len(workloads), o, failLevel)
	r.Schedule = newDecision(p, d, loc, o.AllowUnschedulable)
	if len(o.Baseline) > 0 {
		diff, err := baselineDiff(ctx, e, o, workloads, settings, opt, d)
		if err != nil {
			return e.errorf("baseline: %v", err)
		}
		r.Schedule.baseline = &diff
	}
	return writeReport(e, o, r)
}

// baselineDiff decides the same workloads on the pools and classes of
// --baseline, and compares: the baseline's own findings are not reported
// (the exit status is the new pools' alone).
func baselineDiff(ctx context.Context, e *env, o options, workloads []manifestcheck.Input, settings capacity.Settings,
	opt manifestcheck.Options, after *scheduling.Decision) (scheduling.Diff, error) {
	before, err := readInputs(e.stdin, o.Baseline)
	if err != nil {
		return scheduling.Diff{}, err
	}
	p := scheduling.Parse(scheduling.Input{Karpenter: texts(before), Workloads: texts(workloads), AllowUnschedulable: o.AllowUnschedulable})
	facts, _, err := scheduleFacts(ctx, p, opt)
	if err != nil {
		return scheduling.Diff{}, err
	}
	facts.Settings = settings
	d, err := p.Decide(ctx, facts)
	if err != nil {
		return scheduling.Diff{}, fmt.Errorf("the decision was interrupted: %w", err)
	}
	return scheduling.Compare(d, after), nil
}

// checkSchedule validates the settings: lint's, and the schedule
// command's own.
func checkSchedule(o options) (versions.Karpenter, rules.Severity, capacity.Settings, error) {
	settings := capacity.DefaultSettings()
	if o.Region == "" && o.Profile == "" {
		return versions.Karpenter{}, 0, settings, errors.New("the decision needs AWS (the region's instance types and offerings, " +
			"the subnets of the EC2NodeClasses), and it cannot be made offline: give --region (or --profile), with credentials " +
			"that may call ec2:Describe* read-only")
	}
	kv, failLevel, err := check(o)
	if err != nil {
		return kv, failLevel, settings, err
	}
	if len(o.Pools) == 0 || len(o.Workloads) == 0 {
		return kv, failLevel, settings, errors.New("give the NodePools and EC2NodeClasses with --pools and the workloads with --workloads " +
			"(files, directories or -), or pools and workloads in " + defaultConfig)
	}
	if slices.Contains(o.Pools, "-") && slices.Contains(o.Workloads, "-") {
		return kv, failLevel, settings, errors.New("standard input (-) can stand for --pools or for --workloads, not both")
	}
	for _, k := range o.AllowUnschedulable {
		if !scheduling.IsWorkloadKey(k) {
			return kv, failLevel, settings, fmt.Errorf("allow-unschedulable %q is not a workload key: write \"<namespace>/<kind>/<name>\", "+
				"as the json output's pods are keyed (e.g. default/Deployment/web, batch/Job/backfill)", k)
		}
	}
	if o.VMMemoryOverhead != nil {
		settings.VMMemoryOverheadPercent = *o.VMMemoryOverhead
	}
	if o.ReservedENIs != nil {
		settings.ReservedENIs = *o.ReservedENIs
	}
	if err := settings.Validate(); err != nil {
		return kv, failLevel, settings, err
	}
	return kv, failLevel, settings, nil
}

// scheduleInputs reads --pools and --workloads.
func scheduleInputs(e *env, o options) (pools, workloads []manifestcheck.Input, err error) {
	if pools, err = readInputs(e.stdin, o.Pools); err != nil {
		return nil, nil, fmt.Errorf("pools: %w", err)
	}
	if workloads, err = readInputs(e.stdin, o.Workloads); err != nil {
		return nil, nil, fmt.Errorf("workloads: %w", err)
	}
	return pools, workloads, nil
}

func texts(inputs []manifestcheck.Input) []string {
	out := make([]string, len(inputs))
	for i, in := range inputs {
		out[i] = in.Text
	}
	return out
}

// scheduleFacts reads the decision's AWS facts as the data source reads
// them: the region's instance types and offerings, and each class's
// status predicted from its images and readiness reads (each distinct
// question asked once). notes say what was not read. Any failed request
// is an error: a decision on missing facts would mislead.
func scheduleFacts(ctx context.Context, p *scheduling.Parsed, opt manifestcheck.Options) (scheduling.Facts, []string, error) {
	f := scheduling.Facts{Classes: map[string]scheduling.ClassStatus{}, Karpenter: opt.Karpenter}
	region, err := opt.AWS.Clients().Region(ctx)
	if err != nil {
		return f, nil, fmt.Errorf("the AWS configuration: %w", err)
	}
	var catErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Catalogue, catErr = scheduling.ReadCatalogue(ctx, region, opt.AWS)
	}()
	classes := make([]nodeclass.Class, len(p.Classes))
	for i, c := range p.Classes {
		classes[i] = nodeclass.FromManifest(c.Manifest)
	}
	read, notes, failures := manifestcheck.ReadClasses(ctx, classes, opt)
	<-done
	var priceNotes []string
	f.Prices, priceNotes = schedulePrices(ctx, opt.AWS, region)
	notes = append(notes, priceNotes...)
	if catErr != nil {
		failures = append([]error{fmt.Errorf("reading the region's instance types and offerings: %w", catErr)}, failures...)
	}
	if len(failures) > 0 {
		msgs := make([]string, len(failures))
		for i, err := range failures {
			msgs[i] = err.Error()
		}
		return f, nil, fmt.Errorf("the decision needs AWS facts that could not be read:\n  %s", strings.Join(msgs, "\n  "))
	}
	assumed := false
	for i, c := range classes {
		a := read[i]
		images := ""
		if a.ImagesResolved {
			images = scheduling.ImagesNotReady(a.AMIs)
		} else if a.ReadinessRead() {
			assumed = true
		}
		// Every failed read is among the failures above.
		f.Classes[c.Name], _ = checks.ClassStatus(a.Readiness, images)
	}
	if assumed {
		// The decision is made all the same: say what it assumed.
		if i := slices.Index(notes, manifestcheck.NoteAliasVersion); i >= 0 {
			notes = slices.Delete(notes, i, i+1)
		}
		notes = append(notes, "the images of alias selector terms, which need the cluster's Kubernetes version (--kubernetes-version, "+
			"or --cluster to read it with eks:DescribeCluster): their EC2NodeClasses were taken to resolve images (AMIsReady)")
	}
	return f, notes, nil
}

// schedulePrices are the decision's prices as the data source reads them
// (Karpenter's pricing provider, each half AWS would not give on its
// static table); notes name the reads AWS denied.
func schedulePrices(ctx context.Context, aws *awsclient.Cache, region string) (*scheduling.PriceSource, []string) {
	p, err := aws.Prices(ctx)
	if err != nil {
		src := scheduling.StaticSource(region, "the prices could not be read ("+err.Error()+")")
		return &src, nil
	}
	var notes []string
	read := func(action string, r awsclient.PriceRead) scheduling.PriceRead {
		why, denied := r.Status(action)
		if denied != "" {
			notes = append(notes, "the live prices of "+denied+" (AWS denied it): the cost uses Karpenter's static price table")
		}
		return scheduling.PriceRead{Live: r.Live, Why: why}
	}
	src := scheduling.LiveSource(p.Provider, p.Region, read("pricing:GetProducts", p.OnDemand), read("ec2:DescribeSpotPriceHistory", p.Spot))
	return &src, notes
}
