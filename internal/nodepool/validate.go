package nodepool

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/migration"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/objectmeta"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/requirements"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Validate checks the pool as configured, offline, against the NodePool CRD
// and Karpenter's runtime validation of release kv (kubernetes-sigs/karpenter
// pkg/apis/v1/nodepool_validation.go, nodeclaim_validation.go), and, when
// node_class literally names an ami_family,
// the family-table checks (arm64 GPU families without an image, Windows with
// only arm64, kubernetes.io/os against the family, a1 on AL2023). Values in
// p.Unknown are skipped. It never panics.
func Validate(p Pool, kv versions.Karpenter) rules.Findings {
	var fs rules.Findings
	fs = append(fs, checkName(p)...)
	fs = append(fs, checkNodeClassRef(p)...)
	if !p.Unknown.Within(objectmeta.Root) {
		fs = append(fs, objectmeta.Validate(p.Manifest.Metadata.Labels, p.Manifest.Metadata.Annotations)...)
	}
	fs = append(fs, checkLabels(p, kv)...)
	if t := p.Manifest.Spec.Template.Metadata; t != nil && !p.Unknown.Within(pathAnnotations) {
		fs = append(fs, migration.Annotations(t.Annotations, pathAnnotations)...)
	}
	specs := Specs(p)
	reqFindings := requirements.Validate(specs, kv)
	fs = append(fs, reqFindings...)
	fs = append(fs, checkLabelConflicts(p)...)
	fs = append(fs, checkTaints(p)...)
	fs = append(fs, checkTemplateDurations(p)...)
	fs = append(fs, checkDisruption(p, kv)...)
	fs = append(fs, checkSizing(p, kv)...)
	if p.Class.Family != "" && !p.Unknown.Is(pathNodeClass) && !p.Unknown.Is(pathNodeClass.Attr("ami_family")) && !reqFindings.HasBlockingErrors() {
		fs = append(fs, familyTableChecks(p, specs, kv)...)
	}
	return fs
}
