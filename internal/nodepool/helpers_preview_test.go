package nodepool

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// previewText is PreviewFor's userData and findings.
func previewText(p Pool, r Result, facts cluster.Facts, kv versions.Karpenter) (string, rules.Findings) {
	o := PreviewFor(p, r, facts, kv)
	return o.UserData, o.Findings
}

// renderYAML is the manifest YAML of the pool (see Object).
func renderYAML(p Pool) (string, error) { return manifest.YAML(Object(p)) }
