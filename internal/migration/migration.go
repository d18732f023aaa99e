// Package migration knows what Karpenter's v1 API moved or removed from the
// v1beta1 API, and what v1beta1 had already renamed from the v1alpha5
// Provisioner and AWSNodeTemplate, so that a field or value written from an
// old habit gets the v1 answer at its line: where the setting went and what
// to write. Without it the HCL fails with Terraform's bare "Unsupported
// argument", and a manifest loses the field to the API server's pruning.
//
// The resources accept the old fields as tombstone attributes only to fail
// on them (the provider adapter looks them up by Field.Attr); the manifest
// checks look them up in the document by Field.Manifest (Scan). Old values
// that v1 renamed or dropped (WhenUnderutilized, the do-not-evict and
// do-not-consolidate annotations) are checked by the NodePool rules, with
// this package's rules and text.
package migration

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// Category is the rules guide section of these rules.
const Category = "Karpenter v1 migration"

const (
	srcV1Migration      = "karpenter.sh docs, upgrading/v1-migration (\"API Moves\", \"API Rename\", \"Breaking API\"); aws/karpenter-provider-aws pkg/apis/crds (v1.14.1, served version v1 only)"
	srcV1beta1Migration = "karpenter.sh docs v0.32, upgrading/v1beta1-migration (Provisioner to NodePool, AWSNodeTemplate to EC2NodeClass)"
)

// Kinds whose fields are listed.
const (
	NodePool     = "NodePool"
	EC2NodeClass = "EC2NodeClass"
)

// Field is a field of an older API that the v1 object does not have.
type Field struct {
	Rule *rules.Rule
	// Kind is the v1 kind the field was written in (NodePool or
	// EC2NodeClass); Scan also maps Provisioner and AWSNodeTemplate to them.
	Kind string
	// Manifest is where the old API had the field, as the API server
	// prints paths ("spec.disruption.expireAfter").
	Manifest string
	// Attr is the resource's tombstone attribute for it; empty when only a
	// manifest can hold it.
	Attr rules.Path
	// was says which API had the field and what it did.
	was string
	// Replaces is the v1 field that took its place, when the v1 CRD
	// requires it: the error that it is missing says nothing the
	// finding on the old field does not.
	Replaces string
	// yaml says what v1 has instead and what to write, given the value as
	// written (one line of YAML). The resource's tombstones say it in its
	// own terms (the provider's tombstone advice).
	yaml func(v string) string
}

var (
	ruleExpireAfter = rules.Register(rules.Rule{
		ID: "v1beta1-expire-after-in-disruption", Severity: rules.Error, Category: Category,
		Title:     "expire_after inside disruption (v1beta1); v1 has it on the NodePool's template",
		Behaviour: "Karpenter v1 moved expireAfter from spec.disruption to spec.template.spec (where it is part of the drift hash). The v1 CRD has no spec.disruption.expireAfter: kubectl's strict validation rejects the field, and without it the API server prunes it, so nodes never expire. The resource accepts `expire_after` inside `disruption` only to fail at its line with this answer.",
		Source:    srcV1Migration + ": \"ExpireAfter has moved from the NodePool.Spec.Disruption block to NodePool.Spec.Template.Spec\"",
		Bad:       pool(`name = "default"`, `node_class = { name = "default" }`, rules.Block("disruption", `consolidate_after = "5m"`, `expire_after = "720h"`)),
		Good:      pool(`name = "default"`, `node_class = { name = "default" }`, `expire_after = "720h"`, rules.Block("disruption", `consolidate_after = "5m"`)),
	})
	ruleKubelet = rules.Register(rules.Rule{
		ID: "v1beta1-kubelet-on-nodepool", Severity: rules.Error, Category: Category,
		Title:     "kubelet on a NodePool (v1beta1); v1 has it on the EC2NodeClass",
		Behaviour: "Karpenter v1 moved the kubelet settings from the NodePool (spec.template.spec.kubelet) to the EC2NodeClass (spec.kubelet); v1.1 dropped the compatibility annotation that still read the old field. The v1 NodePool CRD has no kubelet: the field is rejected or pruned, and maxPods, reservations and eviction thresholds silently fall back to Karpenter's defaults. Pools that need different kubelet settings need different EC2NodeClasses.",
		Source:    srcV1Migration + ": \"Kubelet was moved to the EC2NodeClass from the NodePool\"",
		Bad:       pool(`name = "default"`, `node_class = { name = "default" }`, rules.Block("kubelet", `max_pods = 110`)),
		Good: rules.Block(`resource "karpenter_ec2nodeclass" "default"`, `name = "default"`, `role = "KarpenterNodeRole-demo"`,
			rules.Block("ami_selector_terms", `alias = "al2023@v20251209"`),
			rules.Block("subnet_selector_terms", `tags = { "karpenter.sh/discovery" = "demo" }`),
			rules.Block("security_group_selector_terms", `tags = { "karpenter.sh/discovery" = "demo" }`),
			rules.Block("kubelet", `max_pods = 110`)) + "\n\n" +
			pool(`name = "default"`, `node_class = karpenter_ec2nodeclass.default.node_class`),
	})
	ruleWhenUnderutilized = rules.Register(rules.Rule{
		ID: "v1beta1-when-underutilized", Severity: rules.Error, Category: Category,
		Title:     "consolidation_policy WhenUnderutilized (v1beta1); v1 calls it WhenEmptyOrUnderutilized",
		Behaviour: "Karpenter v1 renamed the consolidation policy WhenUnderutilized to WhenEmptyOrUnderutilized; the v1 CRD's enum has no WhenUnderutilized, so the API server rejects the NodePool (\"Unsupported value\"). v1 also requires consolidateAfter with it (v1beta1 forbade it): \"0s\" keeps v1beta1's behaviour.",
		Source:    srcV1Migration + ": \"NodePool's ConsolidationPolicy WhenUnderutilized is now renamed to WhenEmptyOrUnderutilized\", \"ConsolidateAfter is required\"",
		Bad:       pool(`name = "default"`, `node_class = { name = "default" }`, rules.Block("disruption", `consolidation_policy = "WhenUnderutilized"`, `consolidate_after = "0s"`)),
		Good:      pool(`name = "default"`, `node_class = { name = "default" }`, rules.Block("disruption", `consolidation_policy = "WhenEmptyOrUnderutilized"`, `consolidate_after = "0s"`)),
	})
	ruleAnnotation = rules.Register(rules.Rule{
		ID: "v1beta1-annotation-removed", Severity: rules.Error, Category: Category,
		Title:     "karpenter.sh/do-not-consolidate or do-not-evict (removed in v1); v1 has karpenter.sh/do-not-disrupt",
		Behaviour: "Karpenter v1 removed the karpenter.sh/do-not-consolidate (node) and karpenter.sh/do-not-evict (pod) annotations; only karpenter.sh/do-not-disrupt: \"true\" blocks voluntary disruption now. Nodes of a pool whose template carries the old annotation are consolidated and drifted like any other: the protection silently stopped working at the upgrade.",
		Source:    srcV1Migration + ": \"karpenter.sh/do-not-consolidate (annotation), karpenter.sh/do-not-evict (annotation) ... are all removed\"; kubernetes-sigs/karpenter pkg/apis/v1/labels.go DoNotDisruptAnnotationKey",
		Bad:       pool(`name = "default"`, `node_class = { name = "default" }`, `annotations = { "karpenter.sh/do-not-consolidate" = "true" }`),
		Good:      pool(`name = "default"`, `node_class = { name = "default" }`, `annotations = { "karpenter.sh/do-not-disrupt" = "true" }`),
	})
	ruleNodeClassRefAPIVersion = rules.Register(rules.Rule{
		ID: "v1beta1-node-class-ref-api-version", Severity: rules.Error, Category: Category,
		Title:     "nodeClassRef.apiVersion (v1beta1); v1 has nodeClassRef.group",
		Behaviour: "Karpenter v1 renamed nodeClassRef.apiVersion to group (the API group alone, without the version) and made group, kind and name required. The v1 CRD rejects a nodeClassRef without group (\"spec.template.spec.nodeClassRef.group: Required value\") and has no apiVersion field.",
		Source:    srcV1Migration + ": \"All NodeClassRef fields are now all required, and apiVersion has been renamed to group\"",
		Bad:       manifestExample("      nodeClassRef:\n        apiVersion: karpenter.k8s.aws/v1beta1\n        kind: EC2NodeClass\n        name: default\n"),
		Good:      manifestExample("      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default\n"),
	})
	ruleProvisioner = rules.Register(rules.Rule{
		ID: "v1alpha5-provisioner-field", Severity: rules.Error, Category: Category,
		Title:     "a v1alpha5 Provisioner field in a NodePool",
		Behaviour: "Karpenter v0.32 replaced the v1alpha5 Provisioner with the NodePool and moved or renamed its fields: ttlSecondsUntilExpired became expireAfter (a duration), ttlSecondsAfterEmpty became consolidationPolicy WhenEmpty with consolidateAfter, consolidation.enabled became consolidationPolicy WhenEmptyOrUnderutilized, providerRef became nodeClassRef, requirements, taints, startupTaints, labels and annotations moved under spec.template, kubeletConfiguration moved (in v1) to the EC2NodeClass's kubelet, and limits.resources became limits. The v1 CRD has none of the old fields: they are rejected or pruned, and the setting is lost.",
		Source:    srcV1beta1Migration + "; " + srcV1Migration,
		Bad:       pool(`name = "default"`, `node_class = { name = "default" }`, `ttl_seconds_until_expired = 2592000`),
		Good:      pool(`name = "default"`, `node_class = { name = "default" }`, `expire_after = "720h"`),
	})
	ruleNodeTemplate = rules.Register(rules.Rule{
		ID: "v1alpha5-node-template-field", Severity: rules.Error, Category: Category,
		Title:     "a v1alpha1 AWSNodeTemplate field in an EC2NodeClass",
		Behaviour: "Karpenter v0.32 replaced the AWSNodeTemplate with the EC2NodeClass: the subnetSelector, securityGroupSelector and amiSelector maps became lists of selector terms (subnetSelectorTerms, securityGroupSelectorTerms, amiSelectorTerms; terms are ORed, the fields of one term ANDed), and launchTemplate was removed (Karpenter writes its own launch templates from the EC2NodeClass's fields). The v1 CRD has none of the old fields: they are rejected or pruned, and a class without selector terms is refused.",
		Source:    srcV1beta1Migration,
		Bad:       classExample("  subnetSelector:\n    karpenter.sh/discovery: demo\n"),
		Good:      classExample("  subnetSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: demo\n"),
	})
)

// Attribute paths of karpenter_nodepool's tombstones.
var (
	AttrDisruptionExpireAfter = rules.Root("disruption").Attr("expire_after")
	AttrKubelet               = rules.Root("kubelet")
	AttrTTLUntilExpired       = rules.Root("ttl_seconds_until_expired")
	AttrTTLAfterEmpty         = rules.Root("ttl_seconds_after_empty")
)

// Fields lists every old field, NodePool's first.
func Fields() []Field { return fields }

var fields = []Field{
	{Rule: ruleExpireAfter, Kind: NodePool, Manifest: "spec.disruption.expireAfter", Attr: AttrDisruptionExpireAfter,
		was: "v1beta1 had expireAfter in spec.disruption",
		yaml: func(v string) string {
			return fmt.Sprintf("v1 has it at spec.template.spec.expireAfter: move it there (expireAfter: %s) and remove it from spec.disruption.", v)
		}},
	{Rule: ruleKubelet, Kind: NodePool, Manifest: "spec.template.spec.kubelet", Attr: AttrKubelet,
		was: "v1beta1 had the kubelet settings on the NodePool",
		yaml: func(string) string {
			return "v1 has them at spec.kubelet of the EC2NodeClass: move them there (pools that need different kubelet settings need their own EC2NodeClass) and remove them from the NodePool."
		}},
	{Rule: ruleNodeClassRefAPIVersion, Kind: NodePool, Manifest: "spec.template.spec.nodeClassRef.apiVersion", Replaces: "spec.template.spec.nodeClassRef.group",
		was: "v1beta1's nodeClassRef named the class's apiVersion",
		yaml: func(v string) string {
			return fmt.Sprintf("v1 names its API group instead, and requires group, kind and name: replace apiVersion: %s with group: %s.", v, groupOf(v))
		}},
	{Rule: ruleProvisioner, Kind: NodePool, Manifest: "spec.ttlSecondsUntilExpired", Attr: AttrTTLUntilExpired,
		was: "the v1alpha5 Provisioner expired nodes after ttlSecondsUntilExpired",
		yaml: func(v string) string {
			return fmt.Sprintf("v1 has spec.template.spec.expireAfter, a duration: write expireAfter: %s there instead.", SecondsDuration(v))
		}},
	{Rule: ruleProvisioner, Kind: NodePool, Manifest: "spec.ttlSecondsAfterEmpty", Attr: AttrTTLAfterEmpty,
		was: "the v1alpha5 Provisioner removed empty nodes after ttlSecondsAfterEmpty",
		yaml: func(v string) string {
			return fmt.Sprintf("v1 has spec.disruption.consolidationPolicy: WhenEmpty with consolidateAfter: %s instead.", SecondsDuration(v))
		}},
	{Rule: ruleProvisioner, Kind: NodePool, Manifest: "spec.consolidation",
		was: "the v1alpha5 Provisioner enabled consolidation with consolidation.enabled",
		yaml: func(string) string {
			return "v1 has spec.disruption.consolidationPolicy: WhenEmptyOrUnderutilized (the default) or WhenEmpty, with consolidateAfter; remove spec.consolidation."
		}},
	{Rule: ruleProvisioner, Kind: NodePool, Manifest: "spec.providerRef", Replaces: "spec.template.spec.nodeClassRef",
		was: "the v1alpha5 Provisioner named its AWSNodeTemplate in providerRef",
		yaml: func(string) string {
			return "v1 has spec.template.spec.nodeClassRef with group: karpenter.k8s.aws, kind: EC2NodeClass and the EC2NodeClass's name."
		}},
	{Rule: ruleProvisioner, Kind: NodePool, Manifest: "spec.kubeletConfiguration",
		was: "the v1alpha5 Provisioner had kubeletConfiguration",
		yaml: func(string) string {
			return "v1 has the kubelet settings at spec.kubelet of the EC2NodeClass: move them there."
		}},
	{Rule: ruleProvisioner, Kind: NodePool, Manifest: "spec.limits.resources",
		was: "the v1alpha5 Provisioner nested its limits in limits.resources",
		yaml: func(string) string {
			return "v1 has the resource names directly under spec.limits (spec.limits.cpu, spec.limits.memory): remove the resources level."
		}},
	{Rule: ruleProvisioner, Kind: NodePool, Manifest: "spec.requirements", was: "the v1alpha5 Provisioner had requirements in spec",
		yaml: movedUnder("spec.template.spec.requirements")},
	{Rule: ruleProvisioner, Kind: NodePool, Manifest: "spec.taints", was: "the v1alpha5 Provisioner had taints in spec",
		yaml: movedUnder("spec.template.spec.taints")},
	{Rule: ruleProvisioner, Kind: NodePool, Manifest: "spec.startupTaints", was: "the v1alpha5 Provisioner had startupTaints in spec",
		yaml: movedUnder("spec.template.spec.startupTaints")},
	{Rule: ruleProvisioner, Kind: NodePool, Manifest: "spec.labels", was: "the v1alpha5 Provisioner had the node labels in spec",
		yaml: movedUnder("spec.template.metadata.labels")},
	{Rule: ruleProvisioner, Kind: NodePool, Manifest: "spec.annotations", was: "the v1alpha5 Provisioner had the node annotations in spec",
		yaml: movedUnder("spec.template.metadata.annotations")},
	{Rule: ruleNodeTemplate, Kind: EC2NodeClass, Manifest: "spec.subnetSelector", Replaces: "spec.subnetSelectorTerms", was: "the v1alpha1 AWSNodeTemplate selected subnets with a map",
		yaml: selectorTerms("subnetSelectorTerms")},
	{Rule: ruleNodeTemplate, Kind: EC2NodeClass, Manifest: "spec.securityGroupSelector", Replaces: "spec.securityGroupSelectorTerms", was: "the v1alpha1 AWSNodeTemplate selected security groups with a map",
		yaml: selectorTerms("securityGroupSelectorTerms")},
	{Rule: ruleNodeTemplate, Kind: EC2NodeClass, Manifest: "spec.amiSelector", Replaces: "spec.amiSelectorTerms", was: "the v1alpha1 AWSNodeTemplate selected images with a map",
		yaml: func(string) string {
			return "v1 has spec.amiSelectorTerms, a list of terms (required): an alias such as al2023@v20251209 for EKS-optimized images, or tags/name/id terms; an id key of the old map becomes one { id: ami-... } term per image."
		}},
	{Rule: ruleNodeTemplate, Kind: EC2NodeClass, Manifest: "spec.launchTemplate", was: "the v1alpha1 AWSNodeTemplate could name a launch template",
		yaml: func(string) string {
			return "v1 has no launch template field: Karpenter writes its own launch templates from the EC2NodeClass's fields (amiSelectorTerms, userData, blockDeviceMappings, metadataOptions, securityGroupSelectorTerms, ...). Move what the launch template set into those fields."
		}},
}

func movedUnder(to string) func(string) string {
	return func(string) string {
		return "v1 has it at " + to + ": move it there."
	}
}

func selectorTerms(field string) func(string) string {
	return func(string) string {
		return "v1 has spec." + field + ", a list of terms: write the map as the tags of one term (- tags: {...}); several terms are ORed, the fields of one term ANDed."
	}
}

// ByAttr returns the tombstone at the resource attribute p.
func ByAttr(p rules.Path) (Field, bool) {
	for _, f := range fields {
		if !f.Attr.IsEmpty() && f.Attr.String() == p.String() {
			return f, true
		}
	}
	return Field{}, false
}

// Summary says which release removed the old field and what it did; the
// caller adds where v1 has it.
func (f Field) Summary() string {
	return "Removed in " + strings.TrimSuffix(removedIn(f.Rule), " removed") + ": " + f.was + ";"
}

// Removed is the finding at p that the old field, written as written,
// is not in the v1 object; advice says where v1 has it and what to write.
func (f Field) Removed(p rules.Path, written, advice string) rules.Finding {
	return rules.New(f.Rule, p, "%s: %s, which %s; a v1 %s has no such field (the resource accepts it only to say where it went). %s",
		written, f.was, removedIn(f.Rule), f.Kind, advice)
}

// YAML returns the message for f found in a manifest with value v (YAML
// syntax, one line).
func (f Field) YAML(v string) string {
	return fmt.Sprintf("%s: %s, which %s; the v1 CRD has no such field (kubectl's strict validation rejects it, and otherwise the API server drops it and the setting is lost). %s",
		f.Manifest, f.was, removedIn(f.Rule), f.yaml(v))
}

func removedIn(r *rules.Rule) string {
	if strings.HasPrefix(r.ID, "v1alpha5") {
		return "Karpenter v0.32 removed"
	}
	return "Karpenter v1 removed"
}

// Found is an old field present in a manifest.
type Found struct {
	Field Field
	// Path is where it is, as the API server prints paths.
	Path string
	// Message is the finding's text.
	Message string
}

// oldKinds are the v1alpha5 kinds and the v1 kinds that replaced them.
var oldKinds = map[string]string{"Provisioner": NodePool, "AWSNodeTemplate": EC2NodeClass}

// Scan returns the old fields present in a decoded manifest of kind (a v1
// kind, or the v1alpha5 kind it replaced), in the order of Fields.
func Scan(kind string, obj map[string]any) []Found {
	if k, ok := oldKinds[kind]; ok {
		kind = k
	}
	var out []Found
	for _, f := range fields {
		if f.Kind != kind || f.yaml == nil {
			continue
		}
		v, ok := lookup(obj, f.Manifest)
		if !ok {
			continue
		}
		out = append(out, Found{Field: f, Path: f.Manifest, Message: f.YAML(yamlScalar(v))})
	}
	if kind == NodePool {
		out = append(out, scanValues(obj)...)
	}
	return out
}

// scanValues finds the old values of a NodePool manifest: the v1beta1
// policy name and the removed annotations.
func scanValues(obj map[string]any) []Found {
	var out []Found
	if v, ok := lookup(obj, "spec.disruption.consolidationPolicy"); ok {
		if f, ok := ConsolidationPolicy(yamlScalar(v), rules.Path{}); ok {
			out = append(out, Found{Field: Field{Rule: f.Rule, Kind: NodePool}, Path: "spec.disruption.consolidationPolicy",
				Message: "consolidationPolicy: WhenUnderutilized is the v1beta1 name of the policy, which Karpenter v1 renamed WhenEmptyOrUnderutilized; the v1 CRD's enum has no WhenUnderutilized and the API server rejects the NodePool (\"Unsupported value\"). Write consolidationPolicy: WhenEmptyOrUnderutilized with consolidateAfter (v1 requires it: 0s behaves as v1beta1 did)."})
		}
	}
	if v, ok := lookup(obj, "spec.template.metadata.annotations"); ok {
		if m, ok := v.(map[string]any); ok {
			as := map[string]string{}
			for k, x := range m {
				as[k] = yamlScalar(x)
			}
			for _, f := range Annotations(as, rules.Path{}) {
				key := f.Path.Steps()[0].Name
				out = append(out, Found{Field: Field{Rule: f.Rule, Kind: NodePool}, Path: "spec.template.metadata.annotations[" + key + "]",
					Message: fmt.Sprintf("annotation %s was removed in Karpenter v1: nothing reads it any more, so the nodes of this NodePool are consolidated and drifted like any other. Write %s: \"true\" instead (on these nodes, or on the pods that must not be disrupted).", key, removedAnnotations[key])})
			}
		}
	}
	return out
}

func lookup(obj map[string]any, p string) (any, bool) {
	var cur any = obj
	for _, seg := range strings.Split(p, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[seg]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// yamlScalar writes a scalar as YAML would; objects and lists by their
// shape only (the message names the field, not its whole content).
func yamlScalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return "{" + strings.Join(keys, ", ") + "}"
	case []any:
		return fmt.Sprintf("[%d items]", len(x))
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return "null"
	default:
		return fmt.Sprint(x)
	}
}

// groupOf is the group of an apiVersion ("karpenter.k8s.aws/v1beta1").
func groupOf(apiVersion string) string {
	g, _, ok := strings.Cut(apiVersion, "/")
	if !ok || g == "" {
		return "karpenter.k8s.aws"
	}
	return g
}

// SecondsDuration writes a number of seconds as a duration the v1 CRD
// pattern accepts ("2592000" → "720h", "90" → "1m30s"); a value that is not
// a whole number is returned as is.
func SecondsDuration(v string) string {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 || n > int64(time.Duration(1<<62)/time.Second) {
		return v
	}
	d := time.Duration(n) * time.Second
	h, m, s := int64(d/time.Hour), int64(d%time.Hour/time.Minute), int64(d%time.Minute/time.Second)
	var b strings.Builder
	if h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if s > 0 || b.Len() == 0 {
		fmt.Fprintf(&b, "%ds", s)
	}
	return b.String()
}

// ConsolidationPolicy reports the v1beta1 policy name at p; ok is false for
// any other value.
func ConsolidationPolicy(policy string, p rules.Path) (rules.Finding, bool) {
	if policy != "WhenUnderutilized" {
		return rules.Finding{}, false
	}
	return rules.New(ruleWhenUnderutilized, p,
		"%q is the v1beta1 name of the policy, which Karpenter v1 renamed \"WhenEmptyOrUnderutilized\"; the v1 CRD's enum has no %q and the API server rejects the NodePool (\"Unsupported value\"). v1 requires consolidateAfter with it: \"0s\" behaves as v1beta1 did.",
		policy, policy).WithFix(rules.Fix{Value: `"WhenEmptyOrUnderutilized"`}), true
}

// removedAnnotations are the annotations v1 removed, and what replaced them.
var removedAnnotations = map[string]string{
	"karpenter.sh/do-not-consolidate": "karpenter.sh/do-not-disrupt",
	"karpenter.sh/do-not-evict":       "karpenter.sh/do-not-disrupt",
}

// Annotations reports the removed annotations among the node annotations of
// a NodePool's template, each at p.Key(key).
func Annotations(annotations map[string]string, p rules.Path) rules.Findings {
	keys := make([]string, 0, len(annotations))
	for k := range annotations {
		if _, ok := removedAnnotations[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var fs rules.Findings
	for _, k := range keys {
		fs = append(fs, rules.New(ruleAnnotation, p.Key(k),
			"annotation %q was removed in Karpenter v1: nothing reads it any more, so the nodes of this pool are consolidated and drifted like any other. v1 reads %q with the value \"true\" instead (on these nodes, or on the pods that must not be disrupted).",
			k, removedAnnotations[k]).WithFix(rules.Fix{Field: p.Key(removedAnnotations[k]), Value: `"true"`, And: []rules.Fix{{Field: p.Key(k), Remove: true}}}))
	}
	return fs
}

// pool is a karpenter_nodepool docs example.
func pool(items ...string) string {
	return rules.Block(`resource "karpenter_nodepool" "default"`, items...) + "\n"
}

// manifestExample is validate_manifest on a NodePool whose template spec
// is spec.
func manifestExample(spec string) string {
	return validateManifest("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n  template:\n    spec:\n      requirements: []\n" + spec)
}

// classExample is validate_manifest on an EC2NodeClass with the lines of
// its spec besides role and the AMI and security group terms.
func classExample(spec string) string {
	return validateManifest("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: default\nspec:\n  role: KarpenterNodeRole-demo\n" +
		"  amiSelectorTerms:\n    - alias: al2023@v20251209\n  securityGroupSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: demo\n" + spec)
}

func validateManifest(yaml string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(yaml, "\n") {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return "locals {\n  findings = provider::karpenter::validate_manifest(<<-EOT\n" + b.String() + "  EOT\n  )\n}"
}
