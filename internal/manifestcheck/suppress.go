package manifestcheck

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
)

// IgnoreAnnotation silences findings on the object that carries it in
// metadata.annotations: "<rule>[,<rule>]: <reason>".
const IgnoreAnnotation = "lint.karpenter-tf.io/ignore"

const (
	pathIgnore         = "metadata.annotations[" + IgnoreAnnotation + "]"
	pathTemplateIgnore = "spec.template.metadata.annotations[" + IgnoreAnnotation + "]"
)

// ignoreExample is a NodePool whose lint.karpenter-tf.io/ignore
// annotation is annotation (in metadata, or spec.template.metadata when
// inTemplate), with the startup taint the annotation is about.
func ignoreExample(annotation string, inTemplate bool) string {
	meta := "metadata:\n  name: batch\n"
	tmeta := ""
	line := "    " + IgnoreAnnotation + ": " + annotation + "\n"
	if inTemplate {
		tmeta = "    metadata:\n      annotations:\n    " + line
	} else {
		meta += "  annotations:\n" + line
	}
	return example("apiVersion: karpenter.sh/v1\nkind: NodePool\n" + meta + "spec:\n  template:\n" + tmeta + "    spec:\n" +
		"      requirements: []\n      startupTaints:\n        - key: karpenter.sh/unregistered\n          effect: NoExecute\n" + nodeClassRef)
}

var (
	ruleIgnoreReason = rules.Register(rules.Rule{
		ID: "lint-ignore-reason-missing", Severity: rules.Error, Category: Category,
		Title: "the lint.karpenter-tf.io/ignore annotation gives no reason",
		Behaviour: "A finding is silenced by the annotation `" + IgnoreAnnotation + ": \"<rule>[,<rule>]: <reason>\"` in the " +
			"object's `metadata.annotations`. The reason is required, so that whoever reads the manifest later knows why the " +
			"rule does not apply; without it the annotation silences nothing and this finding says so.",
		Source: "this project's convention (karpenter-lint and validate_manifest); the annotation is an ordinary Kubernetes " +
			"annotation, which the API server stores and Karpenter ignores",
		Bad:  ignoreExample("nodepool-taint-karpenter-owned", false),
		Good: ignoreExample(`"nodepool-taint-karpenter-owned: our node agent waits for it, removal tracked in PLAT-142"`, false),
	})
	ruleIgnoreInvalid = rules.Register(rules.Rule{
		ID: "lint-ignore-invalid", Severity: rules.Error, Category: Category,
		Title: "the lint.karpenter-tf.io/ignore annotation names no rule, or a rule that does not exist",
		Behaviour: "The annotation's value is a comma-separated list of rule ids, a colon and the reason. A rule id that is " +
			"not in the catalogue (a typo, or a rule renamed) silences nothing, so the finding it was meant for would come " +
			"back unnoticed; the annotation is not applied and this finding names the nearest rule id. A rule of the provider's " +
			"resources only (such as `alias-latest-drift`, about pinning an alias the resource resolves) is never reported on " +
			"a manifest: naming it is a warning, and the rest of the annotation applies.",
		Source: "this project's convention (karpenter-lint and validate_manifest); rule ids are those of the rules guide",
		Bad:    ignoreExample(`"nodepool-taint-karpenter-ownd: our node agent waits for it, removal tracked in PLAT-142"`, false),
		Good:   ignoreExample(`"nodepool-taint-karpenter-owned: our node agent waits for it, removal tracked in PLAT-142"`, false),
	})
	ruleIgnoreInTemplate = rules.Register(rules.Rule{
		ID: "lint-ignore-in-template", Severity: rules.Error, Category: Category,
		Title: "the lint.karpenter-tf.io/ignore annotation is in spec.template.metadata",
		Behaviour: "Annotations under a NodePool's `spec.template.metadata` are copied onto every NodeClaim and Node the pool " +
			"launches, and Karpenter hashes the template into the `karpenter.sh/nodepool-hash` annotation: adding, changing " +
			"or removing the annotation there marks every node of the pool drifted and replaces them all. The linter reads " +
			"the annotation only from the NodePool's own `metadata.annotations`, which is not hashed; move it there.",
		Source: "kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go (NodePool.Hash over spec.template) and " +
			"pkg/controllers/nodeclaim/disruption/drift.go (static drift on the hash)",
		Bad:  ignoreExample(`"nodepool-taint-karpenter-owned: our node agent waits for it, removal tracked in PLAT-142"`, true),
		Good: ignoreExample(`"nodepool-taint-karpenter-owned: our node agent waits for it, removal tracked in PLAT-142"`, false),
	})
)

// ignore is a parsed lint.karpenter-tf.io/ignore annotation.
type ignore struct {
	rules  map[string]bool
	reason string
}

// suppress reads the object's ignore annotations. It returns the
// suppression to apply (nil when there is none, or when it is not valid:
// a bad annotation silences nothing) and the findings about the
// annotations themselves.
func suppress(obj map[string]any) (*ignore, []Finding) {
	var out []Finding
	meta, _ := obj["metadata"].(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	tmeta, _ := tmpl["metadata"].(map[string]any)
	if v, ok := annotation(tmeta); ok {
		out = append(out, Finding{Rule: ruleIgnoreInTemplate, Severity: ruleIgnoreInTemplate.Severity, Path: pathTemplateIgnore, Message: fmt.Sprintf(
			"%s: %q is under spec.template.metadata.annotations, where Karpenter copies it onto every node and hashes it into karpenter.sh/nodepool-hash: adding or editing it there replaces every node of the pool (drift), and the linter does not read it. Move it to the NodePool's own metadata.annotations.",
			IgnoreAnnotation, v)})
	}
	v, ok := annotation(meta)
	if !ok {
		return nil, out
	}
	ids, reason, hasColon := strings.Cut(v, ":")
	ig := &ignore{rules: map[string]bool{}, reason: strings.TrimSpace(reason)}
	var unknown, never []string
	for _, id := range strings.Split(ids, ",") {
		id = strings.TrimSpace(id)
		switch {
		case id == "":
		case rules.Lookup(id) == nil:
			unknown = append(unknown, id)
		case !Reports(id):
			never = append(never, id)
		default:
			ig.rules[id] = true
		}
	}
	if len(never) > 0 {
		// A warning: the rest of the annotation still applies, and the id
		// may be there for the Terraform resource's sake.
		out = append(out, Finding{Rule: ruleIgnoreInvalid, Severity: rules.Warning, Path: pathIgnore, Message: fmt.Sprintf(
			"%s: %q %s of the provider's resources only, which karpenter-lint and validate_manifest never report on a manifest, so naming %s here silences nothing. Remove %s from the annotation.",
			IgnoreAnnotation, strings.Join(never, `", "`), plural(len(never), "is a rule", "are rules"), plural(len(never), "it", "them"), plural(len(never), "it", "them"))})
	}
	const form = `"<rule>[,<rule>]: <reason>"`
	switch {
	case len(unknown) > 0:
		var hints []string
		for _, id := range unknown {
			hints = append(hints, fmt.Sprintf("%q%s", id, suggest.Hint(id, rules.IDs())))
		}
		out = append(out, Finding{Rule: ruleIgnoreInvalid, Severity: ruleIgnoreInvalid.Severity, Path: pathIgnore, Message: fmt.Sprintf(
			"%s: %s %s no rule of the catalogue, so the annotation silences nothing. Write the rule ids as the findings print them (karpenter-lint rules list), in the form %s.",
			IgnoreAnnotation, strings.Join(hints, ", "), plural(len(unknown), "names", "name"), form)})
		return nil, out
	case len(ig.rules) == 0:
		out = append(out, Finding{Rule: ruleIgnoreInvalid, Severity: ruleIgnoreInvalid.Severity, Path: pathIgnore, Message: fmt.Sprintf(
			"%s: %q names no rule, so it silences nothing. Write %s, e.g. \"nodepool-weight-out-of-range: <why it does not apply>\".",
			IgnoreAnnotation, v, form)})
		return nil, out
	case !hasColon || ig.reason == "":
		out = append(out, Finding{Rule: ruleIgnoreReason, Severity: ruleIgnoreReason.Severity, Path: pathIgnore, Message: fmt.Sprintf(
			"%s: %q gives no reason, so it silences nothing: a suppression must say why the rule does not apply. Write %q.",
			IgnoreAnnotation, v, strings.TrimSpace(ids)+": <reason>")})
		return nil, out
	}
	return ig, out
}

// applies reports whether the suppression silences f. Findings about the
// annotation itself, and a document that is not an object, cannot be
// silenced.
func (ig *ignore) applies(f Finding) bool {
	if ig == nil || f.Rule == ruleIgnoreReason || f.Rule == ruleIgnoreInvalid || f.Rule == ruleIgnoreInTemplate || f.Rule == ruleMalformed {
		return false
	}
	return ig.rules[f.Rule.ID]
}

func annotation(meta map[string]any) (string, bool) {
	a, _ := meta["annotations"].(map[string]any)
	v, ok := a[IgnoreAnnotation].(string)
	return v, ok
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
