package provider

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
)

// The provider's cluster_state: the running cluster the resources'
// nodes-will-drift warnings count NodeClaims on. It is a provider
// argument, not a resource's, because every EC2NodeClass and NodePool of
// a configuration runs on the same cluster: one snapshot, parsed once per
// provider process, serves them all, and the resources' schemas (and the
// manifests they render) do not change.

func clusterStateProviderAttribute() schema.Attribute {
	return schema.StringAttribute{Optional: true,
		Description: "The running cluster, as the List `" + snapshot.Command + "` prints or `karpenter-lint snapshot` writes " +
			"(`file(\"cluster.yaml\")`). With it, the `nodes-will-drift` warning of `karpenter_nodepool` and " +
			"`karpenter_ec2nodeclass` counts the NodeClaims of the snapshot the planned object drifts and names their " +
			"pools: a pool's NodeClaims whose `karpenter.sh/nodepool-hash` differs from the planned one or whose labels " +
			"leave its requirements; a class's whose `karpenter.k8s.aws/ec2nodeclass-hash` differs or whose image is not " +
			"the one the planned `amis` map their instance type to (AMIDrift). The snapshot's NodeClaims are the " +
			"\"before\", so the warning also fires when nothing changed against the Terraform state but the cluster runs " +
			"something else (a pool new to Terraform that replaces one applied by hand or Helm). Read once per provider " +
			"process; unknown or unset, the warning compares with the state only. Never a connection to the cluster."}
}

// clusterState is the snapshot, parsed on first use.
type clusterState struct {
	text string
	once sync.Once
	snap *snapshot.Snapshot
}

func newClusterState(v types.String) *clusterState {
	s, ok := knownString(v)
	if !ok || s == "" {
		return nil
	}
	return &clusterState{text: s}
}

// snapshot is the parsed snapshot; nil when none was given.
func (c *clusterState) snapshot() *snapshot.Snapshot {
	if c == nil {
		return nil
	}
	c.once.Do(func() { c.snap = snapshot.Parse(c.text) })
	return c.snap
}

// withPoolCluster adds to a pool's preview what the planned pool drifts
// on the provider's cluster_state; ok tells whether there is a preview
// to warn with.
func withPoolCluster(p drift.Preview, ok bool, pd *ProviderData, yamlManifest string, spec manifest.NodePoolSpec, name string) (drift.Preview, bool) {
	snap := pd.ClusterState.snapshot()
	if snap == nil {
		return p, ok
	}
	plan := disruption.Decide(disruption.Input{Karpenter: []string{yamlManifest}, Cluster: snap, At: time.Now().UTC(), Version: pd.Karpenter})
	if len(plan.Unread) > 0 {
		return p, ok // the manifest's own checks report it
	}
	if !ok {
		p = drift.Preview{Kind: manifest.NodePoolKind, Name: name}
		p.Pool = &drift.Pool{TerminationGracePeriod: spec.Template.Spec.TerminationGracePeriod}
		if spec.Disruption != nil {
			p.Pool.Budgets = spec.Disruption.Budgets
		}
	}
	d := plan.Drifted()
	p.Cluster, p.ClusterDrifted = disruption.Tally(d, disruption.NodeClaimsOf(snap, name, ""))+incomplete(snap), len(d)
	return p, ok || len(d) > 0
}

// withClassCluster adds to a class's preview what the planned class
// drifts on the provider's cluster_state: its hash (when known) and its
// images (when known), against the NodeClaims launched from it.
func withClassCluster(p drift.Preview, ok bool, pd *ProviderData, name string, plan ec2NodeClassModel) (drift.Preview, bool) {
	snap := pd.ClusterState.snapshot()
	if snap == nil {
		return p, ok
	}
	c := disruption.Class{Name: name, HashVersion: drift.EC2NodeClassHashVersion(pd.Karpenter)}
	if h, known := knownString(plan.DriftHash); known {
		c.Hash = h
	}
	c.Images = plannedImages(plan.AMIs)
	if !ok {
		p = drift.Preview{Kind: manifest.EC2NodeClassKind, Name: name}
	}
	d := disruption.ClassDrift(snap, c)
	p.Cluster, p.ClusterDrifted = disruption.Tally(d, disruption.NodeClaimsOf(snap, "", name)), len(d)
	if c.Images == nil {
		p.Cluster += " (images were not compared: they are known at apply)"
	}
	p.Cluster += incomplete(snap)
	return p, ok || len(d) > 0
}

// incomplete says that the count leaves out what the snapshot did not
// hold together, so a partial snapshot is not read as the cluster.
func incomplete(snap *snapshot.Snapshot) string {
	if len(snap.Findings) == 0 {
		return ""
	}
	return fmt.Sprintf("; the snapshot has %d finding(s) (items left out or not holding together), which `karpenter-lint disruption --cluster-state` names", len(snap.Findings))
}

// plannedImages are the class's planned amis with their requirements, by
// key; nil when not known.
func plannedImages(v types.Map) []disruption.Image {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	elems := v.Elements()
	keys := make([]string, 0, len(elems))
	for k := range elems {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	amis := make([]ami.AMI, 0, len(keys))
	for _, k := range keys {
		s, ok := knownString(elems[k])
		if !ok {
			return nil
		}
		a, err := parseClassAMI(s)
		if err != nil {
			return nil
		}
		amis = append(amis, a)
	}
	return disruption.ImagesOf(amis)
}
