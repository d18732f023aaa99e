package node

import (
	"context"
	"fmt"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// FuzzCompute: whatever the manifests, instance type, capacity type and
// zone, the data source's path (the manifest rules, decoding, the node)
// never panics, and an answer without errors is complete.
func FuzzCompute(f *testing.F) {
	kv := versions.DefaultKarpenter
	k8s := versions.Kubernetes{Minor: 32}
	for _, s := range []struct{ pool, class, typ, ct, zone string }{
		{poolYAML("general", ""), classYAML("default", ""), "m5.large", "", ""},
		{poolYAML("graviton", arm64Only), bottlerocketClass("  instanceStorePolicy: RAID0\n  kubelet:\n    maxPods: 20\n"), "g5g.xlarge", "spot", "us-east-1a"},
		{poolYAML("zonal", zoneReq), windowsClass(), "m5.large", "on-demand", "us-east-1c"},
		{poolYAML("steady", onDemandReq), classYAML("default", "  kubelet:\n    evictionHard:\n      memory.available: 5%\n    kubeReserved:\n      cpu: 1\n"), "p4d.24xlarge", "reserved", ""},
	} {
		f.Add(s.pool, s.class, s.typ, s.ct, s.zone)
	}
	e := newEnv(f)
	images := map[string]ami.Result{}
	f.Fuzz(func(t *testing.T, pool, class, typ, ct, zone string) {
		if CheckManifests(context.Background(), pool, class, kv).HasErrors() {
			return
		}
		p, c, fs := Decode(pool, class)
		if fs.HasErrors() {
			return
		}
		it, ok := e.cat.Type(typ)
		if !ok {
			return
		}
		key := fmt.Sprint(nodeclass.Terms(c))
		res, ok := images[key]
		if !ok {
			var err error
			if res, err = (&ami.Resolver{Source: e.cache}).Resolve(context.Background(), ami.Request{Terms: nodeclass.Terms(c), Kubernetes: k8s, Karpenter: kv}); err != nil {
				return
			}
			images[key] = res
		}
		n, fs := Compute(Request{Pool: p, Class: c, Type: it, CapacityType: ct, Zone: zone}, Facts{Region: "us-east-1", Images: res, Kubernetes: k8s,
			Cluster: demo, Settings: capacity.DefaultSettings(), Karpenter: kv, Offerings: e.offerings,
			Zones: []instancetype.Zone{{Name: "us-east-1a", ID: "use1-az1"}}})
		if fs.HasErrors() {
			return
		}
		if n.Labels[capacityTypeLabel] == "" || n.Resources.Capacity == nil || n.AMI.ID == "" {
			t.Errorf("an answer without errors lacks labels, capacity or an image: %+v", n)
		}
	})
}

const capacityTypeLabel = "karpenter.sh/capacity-type"
