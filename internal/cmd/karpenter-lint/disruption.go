package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

const disruptionUsage = `Usage: karpenter-lint disruption --pools PATH --cluster-state FILE [flags]

Says what the NodePools of --pools do to the running cluster of --cluster-state (the List
` + snapshot.Command + ` prints):
which NodeClaims Karpenter v1.14 would find drifted and why (NodePoolDrifted: the nodepool-hash annotation against the
configured spec.template's hash; RequirementsDrifted: labels outside the configured requirements; NodeClassDrift: the
ec2nodeclass-hash annotation against the configured class's hash, with --ca-bundle), which of them Karpenter would not
disrupt (karpenter.sh/do-not-disrupt, a PodDisruptionBudget allowing no disruption), and how its disruption budgets
pace the rest at --at: how many at once, in how many rounds. Offline: no AWS, no cluster connection.

With --region or --profile, a NodeClaim whose status.imageID is not the image its EC2NodeClass (among --pools) resolves
to for its instance type now is AMIDrift (alias terms need --kubernetes-version or --cluster); offline, images are not
compared and the output says so.

` + consolidationUsage + `
Not decided: subnet and security-group drift, expiration.

Flags:
`

// runDisruption is the disruption command.
func runDisruption(e *env, args []string) int {
	fs := flag.NewFlagSet("disruption", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var pools list
	var state, at, kv, format string
	var caBundle optionalString
	fs.Var(&pools, "pools", "NodePools and EC2NodeClasses: a file, a directory (recursive) or - for standard input (repeatable)")
	fs.StringVar(&state, "cluster-state", "", "the running cluster: the List `"+snapshot.Command+"` prints")
	fs.StringVar(&at, "at", "", "the instant budgets are evaluated at, RFC 3339 (default: the time karpenter-lint snapshot wrote on the snapshot, else now)")
	fs.StringVar(&kv, "karpenter-version", "", "the Karpenter release whose hashes the NodeClaims carry, 1.0 to 1.14 (default 1.14)")
	fs.Var(&caBundle, "ca-bundle", "the CA bundle Karpenter's controller hashes into the EC2NodeClass hash (base64, as aws eks describe-cluster prints it); without it the class hash is not compared")
	fs.StringVar(&format, "format", "text", "text or json")
	// --region, --profile, --kubernetes-version and --cluster are the
	// consolidation flags; images are compared with them too.
	var cons consolidationFlags
	cons.register(fs)
	fs.Usage = func() {
		_, _ = fmt.Fprint(e.stderr, disruptionUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitCannot
	}
	if len(pools) == 0 || state == "" {
		return e.errorf("give the NodePools with --pools and the cluster with --cluster-state")
	}
	if format != "text" && format != "json" {
		return e.errorf("--format %q: write text or json", format)
	}
	in := disruption.Input{At: time.Now().UTC(), Version: versions.DefaultKarpenter, CABundle: caBundle.p}
	if at != "" {
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return e.errorf("--at %q: write an RFC 3339 time, e.g. 2026-11-30T10:00:00Z", at)
		}
		in.At = t.UTC()
	}
	if kv != "" {
		v, err := versions.ParseKarpenter(kv)
		if err != nil {
			return e.errorf("--karpenter-version: %v", err)
		}
		in.Version = v
	}
	inputs, err := readInputs(e.stdin, pools)
	if err != nil {
		return e.errorf("pools: %v", err)
	}
	in.Karpenter = texts(inputs)
	snap, err := readInputs(e.stdin, []string{state})
	if err != nil || len(snap) != 1 {
		return e.errorf("cluster-state: %v", cmpErr(err, "give one file, the List kubectl prints"))
	}
	in.Cluster = snapshot.Parse(snap[0].Text)
	if cons.region != "" || cons.profile != "" {
		opt := manifestcheck.Options{Karpenter: in.Version, Kubernetes: cons.kubernetes, Cluster: cons.cluster,
			AWS: awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: cons.region, Profile: cons.profile, MaxRetries: -1}))}
		images, notes, err := disruptionImages(context.Background(), inputs, opt)
		if err != nil {
			return e.errorf("%v", err)
		}
		in.Images = images
		for _, n := range notes {
			_, _ = fmt.Fprintln(e.stderr, "karpenter-lint: not read: "+n)
		}
	}
	if at == "" && !in.Cluster.Taken.IsZero() {
		// The snapshot's own time, as karpenter_disruption: the same
		// snapshot gives the same answer tomorrow.
		in.At = in.Cluster.Taken
	}
	plan := disruption.Decide(in)
	if err := cons.consolidate(in, plan); err != nil {
		return e.errorf("consolidation: %v", err)
	}
	if format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(plan); err != nil {
			return e.errorf("%v", err)
		}
		return exitOK
	}
	out := plan.Summary()
	if plan.Consolidation != nil {
		out += plan.Consolidation.Summary(plan.At)
	}
	for _, f := range append(plan.Findings, plan.Notes...) {
		out += "note: " + f + "\n"
	}
	if _, err := fmt.Fprint(e.stdout, out); err != nil {
		return e.errorf("%v", err)
	}
	return exitOK
}

func cmpErr(err error, otherwise string) error {
	if err != nil {
		return err
	}
	return errors.New(otherwise)
}

// optionalString is a string flag that stays nil until set.
type optionalString struct{ p *string }

func (o *optionalString) String() string {
	if o.p == nil {
		return ""
	}
	return *o.p
}

func (o *optionalString) Set(s string) error {
	o.p = &s
	return nil
}

// disruptionImages resolves the images of the EC2NodeClasses of the
// inputs as lint does (manifestcheck.ReadClasses), by class name; a
// class whose images could not be resolved (an alias without the
// Kubernetes version) is left out, so its NodeClaims' images are not
// compared. A failed request fails the command.
func disruptionImages(ctx context.Context, inputs []manifestcheck.Input, opt manifestcheck.Options) (map[string][]disruption.Image, []string, error) {
	var classes []nodeclass.Class
	for _, m := range disruption.NodeClasses(texts(inputs)) {
		classes = append(classes, nodeclass.FromManifest(m))
	}
	read, notes, failures := manifestcheck.ReadClasses(ctx, classes, opt)
	if len(failures) > 0 {
		return nil, nil, fmt.Errorf("resolving the EC2NodeClasses' images: %w", errors.Join(failures...))
	}
	out := map[string][]disruption.Image{}
	for i, c := range classes {
		if read[i] == nil || !read[i].ImagesResolved {
			continue
		}
		out[c.Name] = disruption.ImagesOf(read[i].AMIs.AMIs)
	}
	return out, notes, nil
}
