package manifestcheck

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/checks"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/migration"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/readiness"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

const (
	groupCore = "karpenter.sh"
	groupAWS  = "karpenter.k8s.aws"
	served    = "v1"
)

// The catalogue rules whose findings are translated here.
var (
	ruleCRD = crd.RuleValidation
	// Findings about the provider's own inputs, which a manifest does not
	// have: node_class given by name only (a manifest's class is
	// cross-checked when it is among the inputs, else never), the embedded
	// instance facts standing in for an AWS configuration, and the advice
	// to pin an alias with the resource's pin_amis.
	notForManifests = map[*rules.Rule]bool{nodepool.RuleFactsUnknown: true, instancetype.RuleOfflineMayMatch: true, nodeclass.RuleLatestDrift: true,
		// About a plan, not an object: a read AWS denied and an endpoint
		// without DescribeSubnets are the CLI's summary notes (the checks
		// not made), and an update that drifts nodes needs the state
		// before it, which `karpenter-lint disruption` compares with the
		// running cluster in its own report.
		readiness.RuleReadDenied: true, readiness.RuleChecksSkipped: true, drift.RuleNodesWillDrift: true,
		// The scheduling data source's, which the schedule command has as
		// usage errors (exit 1: an allow-unschedulable that is not a
		// workload key, no --region) or as a note (a denied price read).
		scheduling.RuleAllowKey: true, scheduling.RuleNeedsAWS: true, scheduling.RulePriceReadDenied: true,
		// Only the provider's own inputs break these: its bootstrap block
		// (an EC2NodeClass manifest has spec.userData, never a block that
		// renders it), and its renderer's guard against writing a field
		// the CRD does not have (a manifest's own unknown field is
		// manifest-unknown-field).
		nodeclass.RuleBootstrapFamily: true, lint.RuleInputMissing: true, lint.RuleExtraArgInvalid: true,
		lint.RuleScriptUnsafe: true, lint.RuleScriptUnsupported: true, lint.RuleCANotBase64: true,
		lint.RuleCIDRMissing: true, lint.RuleValueUnsafe: true, crd.RuleUnknownField: true}
)

// Reports says whether the rule of the catalogue with this id can be
// reported on a manifest: false for those about the provider's own inputs,
// which karpenter-lint does not list and an ignore annotation cannot
// silence.
func Reports(id string) bool {
	r := rules.Lookup(id)
	return r == nil || !notForManifests[r]
}

// Check validates every EC2NodeClass, NodePool and NodeOverlay document of input (YAML
// or JSON, several YAML documents separated by `---` lines) with the
// offline rules of Karpenter release kv, and returns the findings in
// document order, without those an ignore annotation silences. Documents
// of other kinds are skipped without a finding. It never panics on any
// input.
func Check(ctx context.Context, input string, kv versions.Karpenter) []Finding {
	res := Run(ctx, []Input{{Text: input}}, Options{Karpenter: kv, GateHow: nodeoverlay.GateHow(nodeoverlay.FrontEndFunction)})
	out := make([]Finding, 0, len(res.Findings))
	for _, f := range res.Findings {
		if f.Suppressed == "" {
			out = append(out, f)
		}
	}
	return out
}

// classify says whether obj is a kind this package checks, and reports a
// Karpenter object that cannot be one (an old API version, a misspelled
// kind). Anything else is skipped silently: a chart's Deployments and
// ConfigMaps are not Karpenter configuration.
func classify(obj map[string]any) (kind string, f *Finding, ok bool) {
	group, version, kind := typeMeta(obj)
	av, _ := obj["apiVersion"].(string)
	want := map[string]string{manifest.NodePoolKind: manifest.NodePoolAPIVersion, manifest.EC2NodeClassKind: manifest.EC2NodeClassAPIVersion, nodeoverlay.Kind: nodeoverlay.APIVersion}
	karpenterGroup := group == groupCore || group == groupAWS
	switch {
	case kind == manifest.EC2NodeClassKind && group == groupAWS && version == served,
		kind == manifest.NodePoolKind && group == groupCore && version == served,
		kind == nodeoverlay.Kind && av == nodeoverlay.APIVersion:
		return kind, nil, true
	case kind == nodeoverlay.Kind && group == groupCore:
		return "", &Finding{Rule: ruleAPIVersion, Severity: ruleAPIVersion.Severity, Path: "apiVersion", Message: fmt.Sprintf(
			"apiVersion %q: Karpenter %s serves NodeOverlay only as %s (alpha, behind its NodeOverlay feature gate), so kubectl apply fails with `no matches for kind %q in version %q`. Write apiVersion: %s.",
			av, crd.KarpenterVersion, nodeoverlay.APIVersion, kind, av, nodeoverlay.APIVersion)}, false
	case want[kind] != "":
		return "", &Finding{Rule: ruleAPIVersion, Severity: ruleAPIVersion.Severity, Path: "apiVersion", Message: fmt.Sprintf(
			"apiVersion %q: Karpenter serves %s only as %s (the CRDs of karpenter-provider-aws %s), so kubectl apply fails with `no matches for kind %q in version %q`. Write apiVersion: %s; a v1beta1 document needs migrating to v1, not only relabelling (kubelet moved to the EC2NodeClass, expireAfter to spec.template.spec, WhenUnderutilized became WhenEmptyOrUnderutilized).",
			av, kind, want[kind], crd.KarpenterVersion, kind, av, want[kind])}, false
	case karpenterGroup && (kind == "Provisioner" || kind == "AWSNodeTemplate"):
		now := map[string]string{"Provisioner": manifest.NodePoolKind, "AWSNodeTemplate": manifest.EC2NodeClassKind}[kind]
		return "", &Finding{Rule: ruleAPIVersion, Severity: ruleAPIVersion.Severity, Path: "kind", Message: fmt.Sprintf(
			"%s %s was removed in Karpenter v0.32 and renamed %s (%s): kubectl apply fails with `no matches for kind %q in version %q`. Rewrite the document as a %s.",
			av, kind, now, want[now], kind, av, now)}, false
	case karpenterGroup && kind != "":
		if s := suggest.Closest(kind, []string{manifest.NodePoolKind, manifest.EC2NodeClassKind, nodeoverlay.Kind}); s != "" {
			return "", &Finding{Rule: ruleKind, Severity: ruleKind.Severity, Path: "kind", Message: fmt.Sprintf(
				"kind %q in %s is no Karpenter kind (kinds are case-sensitive): kubectl apply fails with `no matches for kind %q`, and a GitOps tool never syncs it. Write kind: %s with apiVersion: %s.",
				kind, av, kind, s, want[s])}, false
		}
	}
	return "", nil, false
}

// decodeClass reads the EC2NodeClass into the manifest model. An error
// means a field has the wrong JSON type, which the CRD validation reports.
func decodeClass(raw []byte) (manifest.EC2NodeClass, error) {
	var m manifest.EC2NodeClass
	err := json.Unmarshal(raw, &m)
	return m, err
}

// checkClass reports the findings of the class's checks (a, offline or
// with AWS: readClasses) and the CRD validation.
func checkClass(ctx context.Context, obj map[string]any, a *ClassAWS) []Finding {
	var own []Finding
	if a != nil {
		own = translate(crd.EC2NodeClass, append(append(rules.Findings(nil), a.Own...), a.Findings...))
	}
	return withOldFields(obj, own, crdFindings(ctx, crd.EC2NodeClass, obj, own))
}

// oldFields are the findings on fields of an older Karpenter API in obj.
func oldFields(obj map[string]any) []Finding {
	_, _, kind := typeMeta(obj)
	var out []Finding
	for _, o := range migration.Scan(kind, obj) {
		out = append(out, Finding{Rule: o.Field.Rule, Severity: o.Field.Rule.Severity, Path: o.Path, Message: o.Message})
	}
	return out
}

// withOldFields puts the findings on old fields first, and leaves out what
// they already say: the API server's unknown-field error on the old field
// (or inside it), and any error that the v1 field replacing it is missing.
func withOldFields(obj map[string]any, own, fromCRD []Finding) []Finding {
	found := migration.Scan(typeMetaKind(obj), obj)
	if len(found) == 0 {
		return append(own, fromCRD...)
	}
	out := oldFields(obj)
	said := func(f Finding) bool {
		p := canonical(f.Path)
		for _, o := range found {
			old := canonical(o.Path)
			if f.Rule == o.Field.Rule && p == old {
				return true // an old value the NodePool rules report too
			}
			switch {
			case f.Rule == ruleUnknownField && (p == old || within(p, old) || within(old, p)):
				return true
			case f.Rule == ruleCRD && f.Severity == rules.Error &&
				(p == old || within(p, old) || strings.Contains(f.Message, `"`+o.Path+`"`)):
				// The old field's shape, which the v1 schema rejects.
				return true
			}
			if r := canonical(o.Field.Replaces); r != "" && f.Severity == rules.Error && (p == r || within(p, r)) {
				return true
			}
		}
		return false
	}
	for _, f := range append(own, fromCRD...) {
		if !said(f) {
			out = append(out, f)
		}
	}
	return out
}

func typeMetaKind(obj map[string]any) string {
	_, _, kind := typeMeta(obj)
	return kind
}

// decodePool reads the NodePool into the manifest model. Limits are
// quantities the CRD accepts as integers too (`cpu: 1000`); the model
// holds them as strings.
func decodePool(raw []byte) (manifest.NodePool, error) {
	var m manifest.NodePool
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return m, err
	}
	if spec, ok := obj["spec"].(map[string]any); ok {
		if limits, ok := spec["limits"].(map[string]any); ok {
			for k, v := range limits {
				if n, ok := v.(json.Number); ok {
					limits[k] = n.String()
				}
			}
		}
	}
	j, err := json.Marshal(obj)
	if err != nil {
		return m, err
	}
	err = json.Unmarshal(j, &m)
	return m, err
}

// checkPool runs the pool's rules, the cross-checks with its class when
// the class is known (facts) against the instance types of cat, and the
// CRD validation.
func checkPool(ctx context.Context, obj map[string]any, raw []byte, facts nodepool.ClassFacts, zones *zoneFacts, cat *instancetype.Catalogue, kv versions.Karpenter) []Finding {
	var own []Finding
	if m, err := decodePool(raw); err == nil {
		p := nodepool.Pool{Manifest: m, Empty: emptyStrings(obj), Class: facts}
		pf := checks.PoolFacts{Karpenter: kv, Catalogue: func(context.Context) (*instancetype.Catalogue, error) { return cat, nil }}
		if zones != nil {
			// With AWS, the pool's zones against its class's subnets and
			// the families offered there.
			pf.Subnets, pf.SubnetsKnown, pf.Offerings = zones.subnets, true, zones.region
		}
		var fs rules.Findings
		for _, f := range checks.NodePool(ctx, p, pf).Findings {
			if !notForManifests[f.Rule] {
				fs = append(fs, f)
			}
		}
		own = translate(crd.NodePool, fs)
	}
	return withOldFields(obj, own, crdFindings(ctx, crd.NodePool, obj, own))
}

// checkOverlay is what the API server and Karpenter make of a NodeOverlay:
// the CRD's schema and CEL rules, Karpenter's runtime validation of an
// object the server would store, and, with the gate off, that Karpenter
// ignores it.
func checkOverlay(ctx context.Context, obj map[string]any, opt Options) []Finding {
	fromCRD := crdFindings(ctx, crd.NodeOverlay, obj, nil)
	stored := true
	for _, f := range fromCRD {
		stored = stored && f.Severity != rules.Error
	}
	own := checks.NodeOverlay(ctx, obj, stored, checks.OverlayFacts{GateOn: opt.FeatureGates.NodeOverlay,
		GateHow: cmp.Or(opt.GateHow, nodeoverlay.GateHow(nodeoverlay.FrontEndProvider))})
	return append(translate(crd.NodeOverlay, own), fromCRD...)
}

// poolClass is the nodeClassRef of a pool, when it names an EC2NodeClass.
func poolClass(raw []byte) (string, bool) {
	m, err := decodePool(raw)
	ref := m.Spec.Template.Spec.NodeClassRef
	return ref.Name, err == nil && ref.Group == groupAWS && ref.Kind == manifest.EC2NodeClassKind
}

// classFacts is what an EC2NodeClass of the inputs tells the pool's
// cross-checks: its family, its images when AWS resolved them, and, for
// Custom userData, the taints the node registers with.
func classFacts(c nodeclass.Class, amis []ami.AMI, kv versions.Karpenter) nodepool.ClassFacts {
	family, ok := ami.ResolvedFamily(c.Family, c.Terms, kv)
	if !ok {
		return nodepool.ClassFacts{}
	}
	f := nodepool.ClassFacts{Known: true, Family: family, AMIs: amis, InstanceStorePolicy: c.Spec.InstanceStorePolicy}
	if c.Spec.Kubelet != nil {
		f.Kubelet = *c.Spec.Kubelet
	}
	if c.Spec.UserData != nil {
		f.UserData = *c.Spec.UserData
		if !family.Model().KarpenterBootstraps() {
			f.RegisteredTaints = lint.RegisteredTaints(*c.Spec.UserData, kv)
		}
	}
	return f
}

// emptyStrings lists the pool's strings written as "" that the model
// cannot tell from unset (nodepool.Pool.Empty), as attribute paths.
func emptyStrings(obj map[string]any) nodepool.PathSet {
	set := nodepool.PathSet{}
	spec, _ := obj["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	ts, _ := tmpl["spec"].(map[string]any)
	isEmpty := func(m map[string]any, k string) bool { s, ok := m[k].(string); return ok && s == "" }
	for field, attr := range map[string]string{"taints": "taints", "startupTaints": "startup_taints"} {
		list, _ := ts[field].([]any)
		for i, t := range list {
			if m, ok := t.(map[string]any); ok && isEmpty(m, "value") {
				set.Add(rules.Root(attr).Index(i).Attr("value"))
			}
		}
	}
	if isEmpty(ts, "expireAfter") {
		set.Add(rules.Root("expire_after"))
	}
	if isEmpty(ts, "terminationGracePeriod") {
		set.Add(rules.Root("termination_grace_period"))
	}
	if d, ok := spec["disruption"].(map[string]any); ok && isEmpty(d, "consolidationPolicy") {
		set.Add(rules.Root("disruption").Attr("consolidation_policy"))
	}
	return set
}

// translate moves findings from the resource's attribute paths to the
// manifest's.
func translate(k *crd.Kind, fs rules.Findings) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		p, ok := k.ManifestPath(f.Path)
		if !ok && len(f.Path.Steps()) > 0 && f.Path.Steps()[0].Name == "metadata" {
			// The object's own metadata block has the manifest's names.
			p = literal(f.Path)
		}
		out = append(out, Finding{Rule: f.Rule, Severity: f.Severity, Path: p, Message: f.Detail + yamlFix(k, f)})
	}
	return out
}

// literal writes an attribute path in the API server's notation.
func literal(p rules.Path) string {
	var b strings.Builder
	for _, s := range p.Steps() {
		switch s.Kind {
		case rules.AttrStep:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		case rules.IndexStep:
			fmt.Fprintf(&b, "[%d]", s.Index)
		case rules.KeyStep:
			b.WriteString("[" + s.Name + "]")
		}
	}
	return b.String()
}

// crdFindings validates the document as written against the kind's CRD.
// An API server error on a field where the project's own rules already
// found an error is left out: theirs says the same, with the fix.
func crdFindings(ctx context.Context, k *crd.Kind, obj map[string]any, own []Finding) []Finding {
	res, err := k.Validate(ctx, obj)
	if err != nil {
		return []Finding{{Rule: ruleCRD, Severity: rules.Error, Message: fmt.Sprintf("Could not validate the %s against the CRD of karpenter-provider-aws %s: %v", k.Name(), crd.KarpenterVersion, err)}}
	}
	var out []Finding
	more := false
	for _, e := range res.Errors {
		if e.Field == "" && e.Detail == crd.RulesNotChecked {
			// Not a finding of its own (it has no field, so it would sit at
			// the document's first line): the errors beside it are. It is
			// said once, on the first of them.
			more = true
			continue
		}
		if covered(e.Field, e.Detail, own) {
			continue
		}
		out = append(out, Finding{Rule: ruleCRD, Severity: rules.Error, Path: e.Field,
			Message: fmt.Sprintf("The API server would reject the %s: %s (CRD of karpenter-provider-aws %s)", k.Name(), e.Text, crd.KarpenterVersion)})
	}
	if more && len(out) > 0 {
		out[0].Message += ". The API server checks the object's remaining rules only once it is valid, so more may follow"
	}
	for _, u := range res.Unknown {
		out = append(out, Finding{Rule: ruleUnknownField, Severity: ruleUnknownField.Severity, Path: u, Message: fmt.Sprintf(
			"The %s CRD of karpenter-provider-aws %s has no field %s%s: kubectl's strict field validation rejects the object (unknown field %q), and without it the API server drops the field and the setting silently vanishes.",
			k.Name(), crd.KarpenterVersion, u, fieldHint(k, u), u)})
	}
	return out
}

// containers are the levels that hold most fields: an error on one of them
// (an object-level CEL rule) is not covered by a finding inside it.
var containers = map[string]bool{"": true, "metadata": true, "spec": true, "spec.template": true, "spec.template.spec": true}

// covered reports whether one of the project's errors is about the same
// field as an API server error at path p: the same field, one inside it,
// or one containing it; or, for an object-level CEL rule (p a container),
// an error inside it that quotes the server's detail, e.g.
// nodepool-static-limits at spec.limits for the rule at spec.
func covered(p, detail string, own []Finding) bool {
	p = canonical(p)
	for _, f := range own {
		if f.Severity != rules.Error {
			continue
		}
		q := canonical(f.Path)
		if p == q || (within(q, p) && (!containers[p] || detail != "" && strings.Contains(f.Message, detail))) || (within(p, q) && !containers[q]) {
			return true
		}
	}
	return false
}

// canonical writes map keys and list indexes after dots: the API server
// prints a map key as "spec.limits.cpu" in OpenAPI errors and as
// "spec.limits[cpu]" elsewhere.
func canonical(p string) string {
	return strings.NewReplacer("[", ".", "]", "").Replace(p)
}

// within reports whether path a lies strictly inside path b.
func within(a, b string) bool {
	if b == "" {
		return a != ""
	}
	return strings.HasPrefix(a, b+".")
}

// The rules the checks of this file emit.
var (
	ruleAPIVersion = rules.Register(rules.Rule{
		ID: "manifest-api-version-unsupported", Severity: rules.Error, Category: Category,
		Title:     "the Karpenter object is not karpenter.sh/v1 NodePool or karpenter.k8s.aws/v1 EC2NodeClass",
		Behaviour: "The CRDs of current Karpenter releases serve NodePool only as `karpenter.sh/v1` and EC2NodeClass only as `karpenter.k8s.aws/v1`; the v1beta1 versions were served by the v1.0 conversion webhooks only, and v0.32 renamed Provisioner (karpenter.sh/v1alpha5) to NodePool and AWSNodeTemplate (karpenter.k8s.aws/v1alpha1) to EC2NodeClass. `kubectl apply` of another version fails with `no matches for kind \"NodePool\" in version \"karpenter.sh/v1beta1\"`. The v1 objects moved and renamed fields (e.g. `spec.template.spec.kubelet` moved to the EC2NodeClass, `amiSelectorTerms` became required, `consolidationPolicy: WhenUnderutilized` became `WhenEmptyOrUnderutilized`, `expireAfter` moved to `spec.template.spec`), so a document must be migrated, not only relabelled; validate_manifest does not check the old versions' fields.",
		Source:    "github.com/aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml and karpenter.k8s.aws_ec2nodeclasses.yaml (versions: v1 only); karpenter.sh docs upgrading/v1-migration and v1beta1-migration",
		Bad: example(`apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        name: default
`),
		Good: example(nodePool("      requirements: []\n" + nodeClassRef)),
	})
	ruleKind = rules.Register(rules.Rule{
		ID: "manifest-kind-unknown", Severity: rules.Error, Category: Category,
		Title:     "the kind is a misspelling of NodePool or EC2NodeClass",
		Behaviour: "Kinds are case-sensitive. `kubectl apply` of `kind: EC2Nodeclass` in karpenter.k8s.aws/v1 fails with `no matches for kind \"EC2Nodeclass\"`; a GitOps tool reports the resource as unknown and never syncs it. Documents of other kinds (Deployments, ConfigMaps, NodeClaims, ...) are not Karpenter configuration and are skipped without a finding.",
		Source:    "Kubernetes API discovery (kinds are matched exactly); github.com/aws/karpenter-provider-aws v1.14.1 pkg/apis/crds (names.kind)",
		Bad: example(`apiVersion: karpenter.k8s.aws/v1
kind: EC2Nodeclass
metadata:
  name: default
`),
		Good: example(`apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms:
    - alias: al2023@v20251209
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: demo
`),
	})
	ruleUnknownField = rules.Register(rules.Rule{
		ID: "manifest-unknown-field", Severity: rules.Error, Category: Category,
		Title:     "the manifest has a field the Karpenter CRD does not know",
		Behaviour: "The API server prunes every field the CRD's structural schema does not list. With kubectl's default strict field validation (kubectl 1.27+) the apply fails with `unknown field \"spec.amiSelectorTerm\"`; with `--validate=false`, Helm or a client that does not ask for strict validation, the object is stored without the field and the setting silently vanishes (a misspelled `minValues` constrains nothing, a `kubelet` left in the NodePool from v1beta1 configures nothing). The finding names the nearest known field when the unknown one looks like a misspelling of it.",
		Source:    crd.KarpenterVersion + " CRDs of github.com/aws/karpenter-provider-aws (pkg/apis/crds), pruned with k8s.io/apiextensions-apiserver pkg/apiserver/schema/pruning as the API server does",
		Bad:       example(nodePool(familyRequirement("minValue") + nodeClassRef)),
		Good:      example(nodePool(familyRequirement("minValues") + nodeClassRef)),
	})
)
