package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// formats are the output formats by name.
var formats = map[string]func(w io.Writer, r report) error{
	"text":    writeText,
	"compact": writeCompact,
	"json":    writeJSON,
	"sarif":   writeSARIF,
	"junit":   writeJUnit,
	"github":  writeGitHub,
}

// writeText groups the findings by file, one block per finding with its
// message on the lines below, and ends with the summary.
func writeText(w io.Writer, r report) error {
	var b strings.Builder
	if r.Schedule != nil {
		r.Schedule.writeText(&b)
		b.WriteString("\n")
	}
	file := ""
	for _, f := range r.Findings {
		if f.File != file {
			if file != "" {
				b.WriteString("\n")
			}
			file = f.File
			b.WriteString(file + "\n")
		}
		fmt.Fprintf(&b, "  %d:%d  %s  %s\n", f.Line, f.Column, f.Severity, strings.TrimSpace(f.Rule+"  "+f.subject()))
		for _, l := range strings.Split(f.Message, "\n") {
			fmt.Fprintf(&b, "      %s\n", l)
		}
	}
	if len(r.Findings) > 0 {
		b.WriteString("\n")
	}
	for _, l := range r.summary() {
		b.WriteString(l + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCompact writes one line per finding, file:line:col: severity rule:
// object path: message, as compilers do (editors and errorformat read it).
func writeCompact(w io.Writer, r report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s: %s %s: %s\n", f.where(), f.Severity, f.Rule, oneLine(f.text()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// jsonReport is the json format; its fields are documented in the CI
// guide and only ever added to (version says which).
type jsonReport struct {
	Version    int         `json:"version"`
	Tool       jsonTool    `json:"tool"`
	Findings   []finding   `json:"findings"`
	Suppressed []finding   `json:"suppressed"`
	Summary    jsonSummary `json:"summary"`
}

type jsonTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type jsonSummary struct {
	Files             int        `json:"files"`
	Documents         int        `json:"documents"`
	Checked           []document `json:"checked"`
	NotChecked        []document `json:"not_checked"`
	Refused           []document `json:"refused"`
	Malformed         []document `json:"malformed"`
	Errors            int        `json:"errors"`
	Warnings          int        `json:"warnings"`
	Suppressed        int        `json:"suppressed"`
	FailLevel         string     `json:"fail_level"`
	KarpenterVersion  string     `json:"karpenter_version"`
	DisabledRules     []string   `json:"disabled_rules"`
	SkippedChecks     []string   `json:"skipped_checks"`
	FailedAWSRequests []string   `json:"failed_aws_requests"`
}

func writeJSON(w io.Writer, r report) error {
	if r.Schedule != nil {
		return r.Schedule.writeJSON(w, r)
	}
	errs, warnings := r.count()
	s := jsonSummary{Files: r.Files, Documents: len(r.Documents), Errors: errs, Warnings: warnings, Suppressed: len(r.Suppressed),
		FailLevel: r.FailLevel.String(), KarpenterVersion: r.Karpenter,
		DisabledRules: nonNil(r.Disabled), SkippedChecks: nonNil(r.Skipped), FailedAWSRequests: nonNil(r.Failures),
		Checked: []document{}, NotChecked: []document{}, Refused: []document{}, Malformed: []document{}}
	for _, d := range r.Documents {
		switch {
		case d.checked:
			s.Checked = append(s.Checked, d)
		case d.malformed:
			s.Malformed = append(s.Malformed, d)
		case d.refused:
			s.Refused = append(s.Refused, d)
		default:
			s.NotChecked = append(s.NotChecked, d)
		}
	}
	out := jsonReport{Version: 1, Tool: jsonTool{Name: "karpenter-lint", Version: toolVersion()},
		Findings: nonNil(r.Findings), Suppressed: nonNil(r.Suppressed), Summary: s}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// writeGitHub writes GitHub Actions workflow commands, which the runner
// shows as annotations on the file and line:
// ::error file=F,line=L,col=C,title=T::message.
func writeGitHub(w io.Writer, r report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		level := "warning"
		if f.Severity == "error" {
			level = "error"
		}
		title := f.Rule + ": " + f.rule.Title
		fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", level, ghProperty(f.File), f.Line, f.Column, ghProperty(title),
			ghData(f.text()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ghData escapes a workflow command's message as the Actions runner
// unescapes it (actions/toolkit core/src/command.ts escapeData).
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a property value (escapeProperty): also ':' and ','.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
