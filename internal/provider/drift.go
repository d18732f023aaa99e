package provider

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// driftHashAttributes are drift_hash and drift_hash_version of a resource
// whose object carries the annotation named.
// nullWhen says when the hash cannot be computed.
func driftHashAttributes(annotation, versionAnnotation, nullWhen string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"drift_hash": schema.StringAttribute{Computed: true, Description: "The `" + annotation + "` annotation Karpenter writes for this spec " +
			"under the provider's `karpenter_version`: when it changes, Karpenter replaces the nodes launched before (see the nodes-will-drift " +
			"warning). Unknown while any input is; null " + nullWhen + "."},
		"drift_hash_version": schema.StringAttribute{Computed: true, Description: "The `" + versionAnnotation + "` of `drift_hash`. When it " +
			"changes (a new `karpenter_version`), Karpenter re-stamps the hashes of running nodes instead of replacing them."},
	}
}

// classCABundle is the CA bundle the EC2NodeClass hash includes from
// Karpenter 1.12. It is unknown while the cluster's CA is (known at apply),
// and missing when neither configured nor discoverable: the hash cannot be
// computed then.
func classCABundle(ctx context.Context, pd *ProviderData) (ca string, unknown, missing bool) {
	if !drift.HashUsesCABundle(pd.Karpenter) {
		return "", false, false
	}
	facts, err := pd.ClusterFacts(ctx, []string{cluster.FieldCertificateAuthority}, "drift_hash")
	switch {
	case errors.Is(err, cluster.ErrUnknown):
		return "", true, false
	case err != nil || facts.CertificateAuthority == "":
		return "", false, true
	}
	return facts.CertificateAuthority, false, false
}

// classDriftHash is drift_hash for a rendered spec: unknown while the CA
// bundle is; null when it cannot be computed (no CA bundle from 1.12, or a
// spec Karpenter could not store, which other rules report), since a
// computed value must be known once applied.
func classDriftHash(ctx context.Context, spec manifest.EC2NodeClassSpec, pd *ProviderData) (types.String, string) {
	ca, unknown, missing := classCABundle(ctx, pd)
	switch {
	case unknown:
		return types.StringUnknown(), ""
	case missing:
		return types.StringNull(), ""
	}
	h, err := drift.EC2NodeClassHash(spec, ca, pd.Karpenter)
	if err != nil {
		return types.StringNull(), ""
	}
	return types.StringValue(h), ca
}

func poolDriftHash(spec manifest.NodePoolSpec, pd *ProviderData) types.String {
	h, err := drift.NodePoolHash(spec, pd.Karpenter)
	if err != nil {
		return types.StringNull()
	}
	return types.StringValue(h)
}

// priorDriftBase is whether an update can be compared with its prior
// state: not on create, not while a hash is unknown, not against a state
// without a manifest or hash version (an older provider), and not when the
// hash version changed: Karpenter then re-stamps running nodes instead of
// replacing them, so nothing drifts. A null hash (no CA bundle) still
// compares fields and images.
func priorDriftBase(priorHash, priorVersion, priorManifest, planHash types.String, version string) bool {
	for _, v := range []types.String{priorVersion, priorManifest} {
		if v.IsNull() || v.IsUnknown() {
			return false
		}
	}
	if priorHash.IsUnknown() || planHash.IsUnknown() {
		return false
	}
	return priorVersion.ValueString() == version
}

// warnDrift appends the nodes-will-drift warning of p, if it drifts. The
// resource's ModifyPlan names its object in the summary (aboutObject), so
// the warnings of two pools, or of two environments' copies of one module,
// are each printed.
func warnDrift(diags *diag.Diagnostics, p drift.Preview) {
	if f, ok := p.Finding(); ok {
		appendFindings(diags, path.Empty(), rules.Findings{f})
	}
}

// classDriftPreview compares the prior class with the planned one. A hash
// that changed with no hashed field changed is the CA bundle (from 1.12):
// the state keeps no CA bundle to compare.
func classDriftPreview(prior, plan ec2NodeClassModel, spec manifest.EC2NodeClassSpec, ca string, pd *ProviderData) (drift.Preview, bool) {
	if !priorDriftBase(prior.DriftHash, prior.DriftHashVersion, prior.Manifest, plan.DriftHash, drift.EC2NodeClassHashVersion(pd.Karpenter)) {
		return drift.Preview{}, false
	}
	var old manifest.EC2NodeClass
	if err := yaml.Unmarshal([]byte(prior.Manifest.ValueString()), &old); err != nil {
		return drift.Preview{}, false
	}
	changes, err := drift.EC2NodeClassChanges(old.Spec, spec, ca, ca, pd.Karpenter)
	if err != nil {
		return drift.Preview{}, false
	}
	hashesKnown := !prior.DriftHash.IsNull() && !plan.DriftHash.IsNull()
	if hashesKnown && prior.DriftHash.ValueString() != plan.DriftHash.ValueString() && !slices.ContainsFunc(changes, func(c drift.Change) bool { return c.Effect == drift.ReplacesAll }) {
		changes = append(changes, drift.Change{Path: drift.CABundleField, Effect: drift.ReplacesAll})
	}
	oldImages, ok1 := imageLabels(prior.AMIs, classImageLabel)
	newImages, ok2 := imageLabels(plan.AMIs, classImageLabel)
	p := drift.Preview{Kind: manifest.EC2NodeClassKind, Name: old.Metadata.Name, Changes: changes}
	if ok1 && ok2 {
		p.Images = drift.ImageChanges(oldImages, newImages)
	}
	if plan.Name.ValueString() != "" {
		p.Name = plan.Name.ValueString()
	}
	return p, true
}

// poolDriftPreview compares the prior pool with the planned one; its
// images are its ami_assignments, the images its own nodes boot.
func poolDriftPreview(prior, plan nodePoolModel, spec manifest.NodePoolSpec, pd *ProviderData) (drift.Preview, bool) {
	if !priorDriftBase(prior.DriftHash, prior.DriftHashVersion, prior.Manifest, plan.DriftHash, drift.NodePoolHashVersion(pd.Karpenter)) {
		return drift.Preview{}, false
	}
	var old manifest.NodePool
	if err := yaml.Unmarshal([]byte(prior.Manifest.ValueString()), &old); err != nil {
		return drift.Preview{}, false
	}
	changes, err := drift.NodePoolChanges(old.Spec, spec, pd.Karpenter)
	if err != nil {
		return drift.Preview{}, false
	}
	p := drift.Preview{Kind: manifest.NodePoolKind, Name: plan.Name.ValueString(), Changes: changes}
	oldImages, ok1 := imageLabels(prior.AMIAssignments, assignmentImageLabel)
	newImages, ok2 := imageLabels(plan.AMIAssignments, assignmentImageLabel)
	if ok1 && ok2 {
		p.Images = drift.ImageChanges(oldImages, newImages)
	}
	p.Pool = &drift.Pool{TerminationGracePeriod: spec.Template.Spec.TerminationGracePeriod}
	if spec.Disruption != nil {
		p.Pool.Budgets = spec.Disruption.Budgets
	}
	return p, true
}

// imageLabels turns a keyed image map into key -> image id, label reading
// one element; false when the map or an element is not known. Images are
// compared by id; the warning names only their keys, the plan's diff above
// it shows ids and names.
func imageLabels(v attr.Value, label func(attr.Value) (string, bool)) (map[string]string, bool) {
	m, ok := v.(types.Map)
	if !ok || m.IsNull() || m.IsUnknown() {
		return nil, false
	}
	out := map[string]string{}
	for k, e := range m.Elements() {
		l, ok := label(e)
		if !ok {
			return nil, false
		}
		out[k] = l
	}
	return out, true
}

// classImageLabel reads an amis line (false when it does not read back).
func classImageLabel(e attr.Value) (string, bool) {
	s, ok := e.(types.String)
	if !ok || s.IsNull() || s.IsUnknown() {
		return "", false
	}
	a, err := parseClassAMI(s.ValueString())
	return a.ID, err == nil
}

// assignmentImageLabel reads an ami_assignments line.
func assignmentImageLabel(e attr.Value) (string, bool) {
	s, ok := knownString(e)
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(s, " ")
	return id, ok && id != ""
}
