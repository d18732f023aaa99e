package rules

import (
	"embed"
	"strings"
)

// Fix is what a finding asks the user to write, said once for every front
// end, which renders it in the user's own language: the provider in
// attribute names with its acknowledgement list, the manifest checks in
// the manifest's field names with their ignore annotation. A check's
// Detail says what is wrong and why; the Fix is the sentence after it.
type Fix struct {
	// Field is where to write, from the object's root, in the naming of
	// Finding.Path (each front end converts it); empty: the finding's Path.
	Field Path
	// Value is the value meant, a literal both languages read alike (a
	// number, a double-quoted string, a list of those); "" when the
	// finding names the field only (the value is the user's).
	Value string
	// Acknowledge: the value as written may be deliberate (a near miss),
	// so the front end says how to keep it: a warning, or an error of an
	// Acknowledgeable rule.
	Acknowledge bool
	// Remove: the change deletes Field (Value is empty) instead of
	// writing it, e.g. a setting the object's kind ignores.
	Remove bool
	// And are further changes of the same fix, made with this one: the
	// other fields of a block to add, or the old field to remove when the
	// value moves. Their own Acknowledge and And are not read.
	And []Fix
	// Or are alternatives to the whole change, each one change, said after
	// it ("or write ..."); a front end leaves out one its language has no
	// field for (a provider-only attribute in a manifest).
	Or []Fix
	// Setting, when set, makes the change one to a setting of the check
	// rather than to the object (Field is not read): each front end names
	// its own way to set it (the provider's attribute, karpenter-lint's
	// flag). Value is the value meant, "" for the user's own.
	Setting Setting
}

// Setting is something every front end lets its user say about the
// cluster the objects are for, other than the objects themselves.
type Setting int

const (
	NoSetting Setting = iota
	// KarpenterVersionSetting is the Karpenter release the cluster runs,
	// which decides the CRDs and behaviour the checks apply.
	KarpenterVersionSetting
)

// KarpenterVersion is the fix that says the cluster runs Karpenter
// release v ("" for the user's own release).
func KarpenterVersion(v string) Fix {
	return Fix{Setting: KarpenterVersionSetting, Value: v}
}

// FixChanges are the changes of the finding's fix in order, each with its
// Field resolved (the first defaults to the finding's Path); none without
// a fix.
func (f Finding) FixChanges() []Fix {
	if f.Fix == nil {
		return nil
	}
	first := *f.Fix
	first.Field = f.FixField()
	return append([]Fix{first}, f.Fix.And...)
}

// Removal is the fix that removes each of fields (at least one).
func Removal(fields ...Path) Fix {
	fix := Fix{Field: fields[0], Remove: true}
	for _, f := range fields[1:] {
		fix.And = append(fix.And, Fix{Field: f, Remove: true})
	}
	return fix
}

// WithFix returns f carrying fix.
func (f Finding) WithFix(fix Fix) Finding {
	f.Fix = &fix
	return f
}

// FixField is where the fix writes: its Field, else the finding's Path.
func (f Finding) FixField() Path {
	if f.Fix == nil || f.Fix.Field.IsEmpty() {
		return f.Path
	}
	return f.Fix.Field
}

// Parent is p without its last step, and that step; ok is false for the
// empty path.
func (p Path) Parent() (parent Path, last Step, ok bool) {
	if len(p.steps) == 0 {
		return p, Step{}, false
	}
	return Path{steps: p.steps[: len(p.steps)-1 : len(p.steps)-1]}, p.steps[len(p.steps)-1], true
}

// manifestExamples holds the rules' manifest examples as files, one
// directory a rule: examples/<id>/bad.yaml and good.yaml, and an optional
// examples/<id>/args with the karpenter-lint flags they need, one a line
// (e.g. --region for a rule that reads the account's facts).
//
//go:embed examples
var manifestExamples embed.FS

// YAMLExamples are the rule's examples as manifests: BadYAML and GoodYAML,
// else the files under examples/<id>/, else the YAML of validate_manifest
// heredocs in Bad and Good; ok is false when the rule has none (its
// examples are the provider's only).
func (r *Rule) YAMLExamples() (bad, good string, ok bool) {
	if r.BadYAML != "" && r.GoodYAML != "" {
		return r.BadYAML, r.GoodYAML, true
	}
	b, errBad := manifestExamples.ReadFile("examples/" + r.ID + "/bad.yaml")
	g, errGood := manifestExamples.ReadFile("examples/" + r.ID + "/good.yaml")
	if errBad == nil && errGood == nil {
		return string(b), string(g), true
	}
	bad, okBad := heredocYAML(r.Bad)
	good, okGood := heredocYAML(r.Good)
	return bad, good, okBad && okGood
}

// heredocYAML is the body of the validate_manifest heredoc of an HCL
// example, unindented as Terraform does.
func heredocYAML(hcl string) (string, bool) {
	_, rest, ok := strings.Cut(hcl, "validate_manifest(<<-EOT\n")
	if !ok {
		return "", false
	}
	lines := strings.SplitAfter(rest, "\n")
	var body []string
	for _, l := range lines {
		if strings.TrimSpace(l) == "EOT" {
			break
		}
		body = append(body, l)
	}
	indent := -1
	for _, l := range body {
		if strings.TrimSpace(l) != "" {
			n := len(l) - len(strings.TrimLeft(l, " "))
			if indent < 0 || n < indent {
				indent = n
			}
		}
	}
	var b strings.Builder
	for _, l := range body {
		if len(l) >= indent && indent > 0 {
			l = l[min(indent, len(l)-len(strings.TrimLeft(l, " "))):]
		}
		b.WriteString(l)
	}
	return b.String(), b.Len() > 0
}

// NodePoolYAML is a NodePool manifest for a rule's YAML examples: spec
// holds lines of spec (indented two spaces), templateSpec lines of
// spec.template.spec (six spaces), either "" for none; its
// EC2NodeClass is "default".
func NodePoolYAML(spec, templateSpec string) string {
	return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n" + spec +
		"  template:\n    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default\n" +
		templateSpec
}

// LintArgs are the karpenter-lint flags the rule's manifest examples need
// (examples/<id>/args), none for most rules.
func (r *Rule) LintArgs() []string {
	return exampleArgs(r.ID, "args")
}

// GoodLintArgs are the flags of the passing example: examples/<id>/good.args
// when the fix is a flag rather than the manifest (a Karpenter release that
// has the fix, a supported Kubernetes version), else LintArgs.
func (r *Rule) GoodLintArgs() []string {
	if _, err := manifestExamples.ReadFile("examples/" + r.ID + "/good.args"); err == nil {
		return exampleArgs(r.ID, "good.args")
	}
	return r.LintArgs()
}

func exampleArgs(id, file string) []string {
	b, err := manifestExamples.ReadFile("examples/" + id + "/" + file)
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}
