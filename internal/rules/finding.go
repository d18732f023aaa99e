package rules

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Finding is one result of a check: which rule, where, and what to do.
type Finding struct {
	Rule     *Rule
	Severity Severity
	// Path is the attribute the finding is about, in Terraform attribute
	// names; empty means the whole object.
	Path Path
	// Detail names the offending value, says what Karpenter/EC2/the kubelet
	// does with it and what to write instead.
	Detail string
	// Fix, when set, is the change to write, rendered after Detail by the
	// front end in the user's language (see Fix).
	Fix *Fix
}

// New makes a finding of rule r at path p with its default severity.
func New(r *Rule, p Path, format string, args ...any) Finding {
	return Finding{Rule: r, Severity: r.Severity, Path: p, Detail: fmt.Sprintf(format, args...)}
}

// AsWarning returns the finding downgraded to a warning.
func (f Finding) AsWarning() Finding {
	f.Severity = Warning
	return f
}

// Summary is the diagnostic summary, "<rule-id>: <title>".
func (f Finding) Summary() string { return f.Rule.ID + ": " + f.Rule.Title }

// Object names a Kubernetes object the way summaries write it:
// `NodePool "general"`.
func Object(kind, name string) string { return kind + " " + strconv.Quote(name) }

// SummaryAbout is a "<rule-id>: <title>" summary naming the object the
// diagnostic is about: "<rule-id>: <object>: <title>". Terraform prints one
// of the warnings that share a summary and folds the others into "(and N
// more similar warnings elsewhere)", so a warning that several resources can
// give names its object, and each resource's warning is printed. A summary
// without a rule id is returned unchanged.
func SummaryAbout(summary, object string) string {
	id, obj, title, ok := ParseSummary(summary)
	if !ok || obj != "" || object == "" {
		return summary
	}
	return id + ": " + object + ": " + title
}

var summaryRE = regexp.MustCompile(`^([a-z0-9]+(?:-[a-z0-9]+)*): (?:([A-Z][A-Za-z0-9]* "(?:[^"\\]|\\.)*"): )?(.+)$`)

// ParseSummary splits a diagnostic summary into its rule id, the object it
// names ("" when it names none, see SummaryAbout) and the title; ok is false
// when the summary does not start with a rule id.
func ParseSummary(s string) (id, object, title string, ok bool) {
	m := summaryRE.FindStringSubmatch(s)
	if m == nil {
		return "", "", "", false
	}
	return m[1], m[2], m[3], true
}

func (f Finding) String() string {
	loc := f.Path.String()
	if loc != "" {
		loc = " at " + loc
	}
	return fmt.Sprintf("%s %s%s: %s", f.Severity, f.Summary(), loc, f.Detail)
}

// Findings is a list of findings with helpers for the common questions.
type Findings []Finding

// HasErrors reports whether any finding fails the plan.
func (fs Findings) HasErrors() bool {
	for _, f := range fs {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

// HasBlockingErrors reports whether an error makes the values unusable
// for the checks that build on them: every error but an acknowledgeable
// one, which is about a legal value (a likely typo) that Karpenter would
// take as written, so the checks that follow still apply to it.
func (fs Findings) HasBlockingErrors() bool {
	for _, f := range fs {
		if f.Severity == Error && !f.Rule.Acknowledgeable {
			return true
		}
	}
	return false
}

// ByRule returns the findings of one rule.
func (fs Findings) ByRule(id string) Findings {
	var out Findings
	for _, f := range fs {
		if f.Rule.ID == id {
			out = append(out, f)
		}
	}
	return out
}

// Under prefixes every finding's path with p, for checks written against a
// nested object.
func (fs Findings) Under(p Path) Findings {
	out := make(Findings, len(fs))
	for i, f := range fs {
		f.Path = p.Join(f.Path)
		out[i] = f
	}
	return out
}

// StepKind tells what a path step addresses.
type StepKind int

const (
	// AttrStep is a named attribute.
	AttrStep StepKind = iota
	// IndexStep is a list element.
	IndexStep
	// KeyStep is a map element.
	KeyStep
)

// Step is one element of a Path.
type Step struct {
	Kind  StepKind
	Name  string // attribute name or map key
	Index int
}

// Path addresses an attribute in Terraform's naming. It is immutable: every
// builder returns a new Path.
type Path struct{ steps []Step }

// Root starts a path at a top-level attribute.
func Root(name string) Path { return Path{steps: []Step{{Kind: AttrStep, Name: name}}} }

func (p Path) with(s Step) Path {
	steps := make([]Step, len(p.steps), len(p.steps)+1)
	copy(steps, p.steps)
	return Path{steps: append(steps, s)}
}

// Attr appends an attribute name.
func (p Path) Attr(name string) Path { return p.with(Step{Kind: AttrStep, Name: name}) }

// Index appends a list index.
func (p Path) Index(i int) Path { return p.with(Step{Kind: IndexStep, Index: i}) }

// Key appends a map key.
func (p Path) Key(k string) Path { return p.with(Step{Kind: KeyStep, Name: k}) }

// Contains reports whether q is p or lies below it.
func (p Path) Contains(q Path) bool {
	if len(q.steps) < len(p.steps) {
		return false
	}
	for i, s := range p.steps {
		if q.steps[i] != s {
			return false
		}
	}
	return true
}

// Join appends q to p.
func (p Path) Join(q Path) Path {
	steps := make([]Step, 0, len(p.steps)+len(q.steps))
	return Path{steps: append(append(steps, p.steps...), q.steps...)}
}

// Steps returns the steps, for adapters that build their own path type.
func (p Path) Steps() []Step { return append([]Step(nil), p.steps...) }

// IsEmpty reports whether the path addresses the whole object.
func (p Path) IsEmpty() bool { return len(p.steps) == 0 }

func (p Path) String() string {
	var b strings.Builder
	for i, s := range p.steps {
		switch s.Kind {
		case AttrStep:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		case IndexStep:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case KeyStep:
			b.WriteString("[" + strconv.Quote(s.Name) + "]")
		}
	}
	return b.String()
}
