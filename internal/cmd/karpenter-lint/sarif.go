package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// informationURI is the project's home, SARIF's tool.driver.informationUri.
const informationURI = "https://github.com/karpenter-tf/terraform-provider-karpenter"

// writeSARIF writes a SARIF 2.1.0 log as GitHub code scanning reads it:
// one run, the rules the results refer to (title, behaviour, the rules
// guide's section as help), a result per finding with its file relative
// to the working directory (the repository root in CI), line and column,
// and the object as a logical location. Suppressed findings are results
// with an inSource suppression carrying the annotation's reason, which
// code scanning shows as dismissed.
func writeSARIF(w io.Writer, r report) error {
	run := sarif.NewRunWithInformationURI("karpenter-lint", informationURI)
	run.Tool.Driver.WithVersion(toolVersion()).WithSemanticVersion(toolVersion())
	run.WithColumnKind("unicodeCodePoints")
	for _, fs := range [][]finding{r.Findings, r.Suppressed} {
		for _, f := range fs {
			addRule(run, f.rule)
			res := run.CreateResultForRule(f.Rule).
				WithLevel(sarifLevel(f.Severity)).
				WithMessage(sarif.NewTextMessage(f.text())).
				WithPartialFingerprints(map[string]string{"karpenterLintFinding/v1": fingerprint(f)}).
				AddLocation(sarif.NewLocationWithPhysicalLocation(
					sarif.NewPhysicalLocation().
						WithArtifactLocation(sarif.NewSimpleArtifactLocation(sarifURI(f.File))).
						WithRegion(sarif.NewRegion().WithStartLine(f.Line).WithStartColumn(f.Column)),
				).AddLogicalLocation(sarif.NewLogicalLocation().WithFullyQualifiedName(f.subject()).WithName(f.Object).WithKind("object")))
			if f.Reason != "" {
				res.AddSuppression(sarif.NewSuppression().WithKind("inSource").WithJustification(f.Reason))
			}
		}
	}
	inv := sarif.NewInvocation().WithExecutionSuccessful(len(r.Failures) == 0)
	for _, s := range r.Skipped {
		inv.AddToolExecutionNotification(sarif.NewNotification().WithLevel(sarif.LevelNote).WithMessage(sarif.NewTextMessage("Not made: " + s)))
	}
	for _, s := range r.Failures {
		inv.AddToolExecutionNotification(sarif.NewNotification().WithLevel(sarif.LevelError).WithMessage(sarif.NewTextMessage("AWS request failed: " + s)))
	}
	run.AddInvocation(inv)
	log := sarif.NewReport()
	log.AddRun(run)
	return log.PrettyWrite(w)
}

// addRule adds r to the run's rules once.
func addRule(run *sarif.Run, r *rules.Rule) {
	if run.GetRuleIndex(r.ID) >= 0 {
		return
	}
	run.AddRule(r.ID).
		WithName(ruleName(r.ID)).
		WithShortDescription(sarif.NewMultiformatMessageString().WithText(r.Title)).
		WithFullDescription(sarif.NewMultiformatMessageString().WithText(r.Behaviour)).
		WithHelpURI(guideURL + "#" + r.ID).
		WithHelp(sarif.NewMultiformatMessageString().
			WithText(r.Behaviour + "\n\nSource: " + r.Source + "\n\n" + guideURL + "#" + r.ID).
			WithMarkdown("**" + r.Title + "** (" + r.Severity.String() + ")\n\n" + r.Behaviour + "\n\nSource: " + r.Source +
				"\n\n[Rules guide](" + guideURL + "#" + r.ID + ")")).
		WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(r.Severity.String()))).
		WithProperties(sarif.NewPropertyBag().WithTags([]string{"karpenter", r.Category}))
}

// ruleName is the id in PascalCase, SARIF's rule name convention.
func ruleName(id string) string {
	var b strings.Builder
	for _, w := range strings.Split(id, "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

func sarifLevel(severity string) string {
	if severity == rules.Error.String() {
		return sarif.LevelError
	}
	return sarif.LevelWarning
}

// sarifURI is a file as code scanning locates it: relative to the
// repository root (the working directory) with forward slashes, escaped
// as a URI reference; a file outside it stays absolute (file://).
func sarifURI(file string) string {
	p := filepath.FromSlash(file)
	if filepath.IsAbs(p) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
		}
	}
	if filepath.IsAbs(p) {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
	}
	return (&url.URL{Path: filepath.ToSlash(p)}).String()
}

// fingerprint identifies a finding across runs whatever lines move: the
// file, the object, the field and the rule.
func fingerprint(f finding) string {
	sum := sha256.Sum256([]byte(f.File + "\x00" + f.Object + "\x00" + f.Path + "\x00" + f.Rule))
	return hex.EncodeToString(sum[:16])
}
