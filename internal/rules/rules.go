// Package rules is the catalogue of every check the provider makes and the
// finding type the checks return. Each rule has a stable kebab-case id, a
// severity, and the documentation that docs/guides/rules.md is generated from,
// so a rule cannot exist without its docs section (and the reverse).
package rules

import (
	"fmt"
	"regexp"
	"sort"
	"sync"
)

// Severity says whether a finding fails the plan.
type Severity int

const (
	// Error fails validate/plan.
	Error Severity = iota
	// Warning is printed and the plan goes on.
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Rule is one entry of the catalogue.
type Rule struct {
	// ID is stable and kebab-case; it prefixes every diagnostic summary.
	ID string
	// Severity is the default severity; a check may report a rule as a
	// warning in a weaker situation (e.g. offline facts), never stronger.
	Severity Severity
	// Title is the short statement used in summaries: "<ID>: <Title>".
	Title string
	// Category groups the docs page (e.g. "AMI selection", "userData").
	Category string
	// Behaviour says what Karpenter, EC2 or the kubelet does with the mistake.
	Behaviour string
	// Source is the upstream code path, CRD rule or issue the rule rests on.
	Source string
	// Bad and Good are HCL (or userData) snippets for the docs: the first
	// triggers the rule, the second is the fix.
	Bad, Good string
	// BadYAML and GoodYAML are the same examples as manifests, for the
	// front ends that read YAML (karpenter-lint rules show); a rule whose
	// HCL examples are validate_manifest heredocs has them already (see
	// YAMLExamples).
	BadYAML, GoodYAML string
	// Acknowledgeable marks an error about a value that is legal but almost
	// certainly a typo of a well-known one (a near miss that silently
	// changes what Karpenter does): listed in a resource's
	// acknowledged_warnings, it is reported as a warning instead.
	Acknowledgeable bool
}

var idRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

var (
	mu        sync.RWMutex
	catalogue = map[string]*Rule{}
)

// Register adds a rule to the catalogue; packages call it from package-level
// var initialisers. It panics on a malformed or duplicate id, or on missing
// documentation, because both are programming errors caught by any test.
func Register(r Rule) *Rule {
	if !idRE.MatchString(r.ID) {
		panic(fmt.Sprintf("rules: id %q is not kebab-case", r.ID))
	}
	if r.Title == "" || r.Category == "" || r.Behaviour == "" || r.Source == "" || r.Bad == "" || r.Good == "" {
		panic(fmt.Sprintf("rules: rule %q lacks documentation (title, category, behaviour, source, bad and good examples are required)", r.ID))
	}
	if r.Acknowledgeable && r.Severity != Error {
		panic(fmt.Sprintf("rules: rule %q is a warning; only errors are marked acknowledgeable (warnings always are)", r.ID))
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := catalogue[r.ID]; dup {
		panic(fmt.Sprintf("rules: duplicate rule id %q", r.ID))
	}
	rr := r
	catalogue[r.ID] = &rr
	return &rr
}

// Lookup returns the rule with that id, or nil.
func Lookup(id string) *Rule {
	mu.RLock()
	defer mu.RUnlock()
	return catalogue[id]
}

// All returns the catalogue sorted by category, then id.
func All() []*Rule {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Rule, 0, len(catalogue))
	for _, r := range catalogue {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Category != out[j].Category {
			return out[i].Category < out[j].Category
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// IDs returns every rule id, sorted: the candidates of a "did you mean"
// for a rule named in configuration or an annotation.
func IDs() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(catalogue))
	for id := range catalogue {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
