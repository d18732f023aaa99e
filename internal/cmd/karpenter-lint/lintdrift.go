package main

import (
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/disruption"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/yamlstream"
)

// clusterDrift is lint's nodes-will-drift with --cluster-state: the
// NodeClaims of the snapshot are the "before" (their hash annotations and
// labels), the checked NodePools the "after". A pool with drifted
// NodeClaims gets the warning at its document, with how many and why, and
// how its budgets pace them. The EC2NodeClass hash is compared only for
// releases that do not hash the cluster's CA bundle (before 1.12), which a
// manifest does not hold; images are not compared (that needs AWS).
func clusterDrift(inputs []manifestcheck.Input, snap *snapshot.Snapshot, kv versions.Karpenter, docs []manifestcheck.Document) []manifestcheck.Finding {
	var karp []string
	for _, in := range inputs {
		karp = append(karp, in.Text)
	}
	in := disruption.Input{Karpenter: karp, Cluster: snap, At: time.Now().UTC(), Version: kv}
	if !drift.HashUsesCABundle(kv) {
		none := ""
		in.CABundle = &none
	}
	plan := disruption.Decide(in)
	specs := poolSpecs(inputs)
	var out []manifestcheck.Finding
	for _, pp := range plan.Pools {
		doc, ok := poolDocument(docs, pp.Name)
		spec, known := specs[pp.Name]
		if !ok || !known || len(pp.Drifted) == 0 {
			continue
		}
		p := drift.Preview{Kind: manifest.NodePoolKind, Name: pp.Name, Pool: &drift.Pool{TerminationGracePeriod: spec.Template.Spec.TerminationGracePeriod}}
		if spec.Disruption != nil {
			p.Pool.Budgets = spec.Disruption.Budgets
		}
		p.Cluster, p.ClusterDrifted = disruption.Tally(pp.Drifted, disruption.NodeClaimsOf(snap, pp.Name, "")), len(pp.Drifted)
		f, ok := p.Finding()
		if !ok {
			continue
		}
		out = append(out, manifestcheck.Finding{Rule: drift.RuleNodesWillDrift, Severity: drift.RuleNodesWillDrift.Severity,
			Message: f.Detail, Object: doc.Object(), Input: doc.Input, Line: doc.Line, Column: 1, Source: doc.Source, SourceLine: doc.SourceLine})
	}
	return out
}

// poolDocument is the checked document of NodePool name.
func poolDocument(docs []manifestcheck.Document, name string) (manifestcheck.Document, bool) {
	for _, d := range docs {
		if d.Checked && d.Kind == manifest.NodePoolKind && d.Name == name {
			return d, true
		}
	}
	return manifestcheck.Document{}, false
}

// poolSpecs are the NodePools' specs by name, for the budgets the warning
// describes.
func poolSpecs(inputs []manifestcheck.Input) map[string]manifest.NodePoolSpec {
	out := map[string]manifest.NodePoolSpec{}
	for _, in := range inputs {
		for _, d := range yamlstream.Split(in.Text) {
			j, err := sigsyaml.YAMLToJSON([]byte(d.Text))
			if err != nil {
				continue
			}
			var head metav1.TypeMeta
			var np manifest.NodePool
			if json.Unmarshal(j, &head) != nil || head.Kind != manifest.NodePoolKind || json.Unmarshal(j, &np) != nil {
				continue
			}
			out[np.Metadata.Name] = np.Spec
		}
	}
	return out
}
