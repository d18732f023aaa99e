package main

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// guideURL is the rules guide; a rule's section is its id as anchor.
const guideURL = "https://registry.terraform.io/providers/karpenter-tf/karpenter/latest/docs/guides/rules"

// finding is one finding as every format prints it; its JSON is the json
// format's, documented in the CI guide.
type finding struct {
	// File is the file to open: the input, or the file a `# Source:`
	// comment names (under --source-root); Line and Column are in it.
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Object   string `json:"object"`
	Path     string `json:"path"`
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Input is the file or stream the document was read from, when File
	// is another (a `# Source:` comment).
	Input string `json:"input,omitempty"`
	// Reason is the ignore annotation's reason of a suppressed finding.
	Reason string `json:"reason,omitempty"`

	rule *rules.Rule
}

// where is "file:line:column".
func (f finding) where() string { return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column) }

// subject is the object and path a finding is about.
func (f finding) subject() string {
	return strings.TrimSpace(f.Object + " " + f.Path)
}

// text is the message after the subject, "NodePool/a spec.weight: ...".
func (f finding) text() string {
	if s := f.subject(); s != "" {
		return s + ": " + f.Message
	}
	return f.Message
}

// document is a document of the inputs, for the summary and JUnit.
type document struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Object string `json:"object"`
	Input  string `json:"input,omitempty"`

	checked, malformed, refused bool
}

// report is what a run produced, in the order the formats print it.
type report struct {
	// Findings are those reported: not suppressed, rule not disabled,
	// sorted by file, line and column.
	Findings   []finding
	Suppressed []finding
	Documents  []document
	Files      int
	// Skipped are the checks not made; Failures the AWS requests that
	// failed.
	Skipped, Failures []string
	Disabled          []string
	Karpenter         string
	// Offline is set without --region and --profile.
	Offline   bool
	FailLevel rules.Severity
	// Schedule is the decision of the schedule command; nil for lint.
	Schedule *decision
}

// newReport turns the engine's result into the report.
func newReport(res manifestcheck.Result, files int, o options, failLevel rules.Severity) report {
	r := report{Files: files, Skipped: res.Skipped, Disabled: o.Disable, FailLevel: failLevel, Karpenter: o.KarpenterVersion,
		Offline: o.Region == "" && o.Profile == ""}
	off := map[string]bool{}
	for _, id := range o.Disable {
		off[id] = true
	}
	file := func(input, source string) string {
		if source != "" {
			return path.Join(o.SourceRoot, source)
		}
		return input
	}
	for _, f := range res.Findings {
		if off[f.Rule.ID] {
			continue
		}
		name, line := f.Where()
		out := finding{File: file(f.Input, f.Source), Line: line, Column: f.Column, Object: f.Object, Path: f.Path, Rule: f.Rule.ID,
			Severity: f.Severity.String(), Message: f.Message, Reason: f.Suppressed, rule: f.Rule}
		if name != f.Input {
			out.Input = f.Input
		}
		if f.Suppressed != "" {
			r.Suppressed = append(r.Suppressed, out)
		} else {
			r.Findings = append(r.Findings, out)
		}
	}
	for _, fs := range [][]finding{r.Findings, r.Suppressed} {
		slices.SortStableFunc(fs, func(a, b finding) int {
			return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), cmp.Compare(a.Rule, b.Rule))
		})
	}
	for _, d := range res.Documents {
		doc := document{File: file(d.Input, d.Source), Line: d.Line, Object: d.Object(), checked: d.Checked, malformed: d.Malformed, refused: d.Refused}
		if d.Source != "" {
			doc.Input, doc.Line = d.Input, d.SourceLine
		}
		r.Documents = append(r.Documents, doc)
	}
	for _, err := range res.Failures {
		r.Failures = append(r.Failures, err.Error())
	}
	return r
}

// count returns the reported errors and warnings.
func (r report) count() (errs, warnings int) {
	for _, f := range r.Findings {
		if f.Severity == rules.Error.String() {
			errs++
		} else {
			warnings++
		}
	}
	return errs, warnings
}

// failing reports whether f is at or above the fail level.
func (r report) failing(f finding) bool {
	return f.Severity == rules.Error.String() || r.FailLevel == rules.Warning
}

// exitCode is 1 when AWS requests failed (the checks asked for were not
// made), 2 on findings at or above the fail level, else 0.
func (r report) exitCode() int {
	if len(r.Failures) > 0 {
		return exitCannot
	}
	for _, f := range r.Findings {
		if r.failing(f) {
			return exitFindings
		}
	}
	return exitOK
}

// summary is the few lines every format ends with or prints to stderr.
func (r report) summary() []string {
	var out []string
	if r.Schedule != nil {
		out = r.Schedule.summary(r.Files)
	} else {
		out = r.documentsSummary()
	}
	errs, warnings := r.count()
	line := fmt.Sprintf("%s, %s", plural(errs, "error"), plural(warnings, "warning"))
	if len(r.Suppressed) > 0 {
		line += fmt.Sprintf("; %d suppressed by %s annotations", len(r.Suppressed), manifestcheck.IgnoreAnnotation)
	}
	if len(r.Disabled) > 0 {
		line += "; rules disabled: " + strings.Join(r.Disabled, ", ")
	}
	out = append(out, line)
	for _, s := range r.Skipped {
		out = append(out, "Not made: "+s+".")
	}
	if r.Offline {
		out = append(out, "Give --region or --profile (and --kubernetes-version or --cluster for AMI aliases) to make the checks that need AWS.")
	}
	for _, f := range r.Failures {
		out = append(out, "AWS request failed, its checks were not made: "+f)
	}
	return out
}

// documentsSummary says what lint read: the documents checked, by kind,
// and those it does not check.
func (r report) documentsSummary() []string {
	kinds := map[string]int{}
	var notChecked []string
	malformed, refused, checked := 0, 0, 0
	for _, d := range r.Documents {
		switch {
		case d.checked:
			checked++
			kind, _, _ := strings.Cut(d.Object, "/")
			kinds[kind]++
		case d.malformed:
			malformed++
		case d.refused:
			refused++
		default:
			obj := d.Object
			if obj == "" {
				obj = "a document without kind"
			}
			obj += fmt.Sprintf(" (%s:%d)", d.File, d.Line)
			notChecked = append(notChecked, obj)
		}
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		parts = append(parts, fmt.Sprintf("%d %s", kinds[k], k))
	}
	line := fmt.Sprintf("%s, %s: %d checked", plural(r.Files, "file"), plural(len(r.Documents), "document"), checked)
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	if refused > 0 {
		line += fmt.Sprintf(", %d of a removed API version or a misspelled kind", refused)
	}
	if malformed > 0 {
		line += fmt.Sprintf(", %d not YAML objects", malformed)
	}
	out := []string{line}
	if n := len(notChecked); n > 0 {
		const show = 10
		more := ""
		if n > show {
			more = fmt.Sprintf(" and %d more", n-show)
			notChecked = notChecked[:show]
		}
		out = append(out, fmt.Sprintf("Not checked, of kinds karpenter-lint does not check (%d): %s%s", n, strings.Join(notChecked, ", "), more))
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun) // EC2NodeClasses
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
