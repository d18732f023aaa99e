package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
)

const rulesUsage = `Usage: karpenter-lint rules list [--format text|json]
       karpenter-lint rules show ID

The rules karpenter-lint reports, from the catalogue the provider's rules guide is generated from
(` + guideURL + `).
`

func runRules(e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		_, _ = io.WriteString(e.stderr, rulesUsage) // help text
		if len(args) == 0 {
			return exitCannot
		}
		return exitOK
	}
	switch args[0] {
	case "list":
		fs := flag.NewFlagSet("rules list", flag.ContinueOnError)
		fs.SetOutput(e.stderr)
		format := fs.String("format", "text", "text or json")
		if err := fs.Parse(args[1:]); err != nil {
			return exitCannot
		}
		if fs.NArg() > 0 {
			return e.errorf("rules list takes no arguments")
		}
		return listRules(e, *format)
	case "show":
		if len(args) != 2 {
			return e.errorf("rules show takes one rule id")
		}
		r := rules.Lookup(args[1])
		if r == nil {
			return e.errorf("no rule %q%s (karpenter-lint rules list)", args[1], suggest.Hint(args[1], rules.IDs()))
		}
		// nodes-will-drift is the provider's, and lint's with --cluster-state.
		if !manifestcheck.Reports(r.ID) && r.ID != drift.RuleNodesWillDrift.ID {
			return e.errorf("%s is a rule of the Terraform provider's resources only: karpenter-lint never reports it on a manifest (%s#%s)", r.ID, guideURL, r.ID)
		}
		return showRule(e, r)
	}
	return e.errorf("unknown rules command %q: list or show", args[0])
}

// jsonRule is a rule in `rules list --format json`.
type jsonRule struct {
	ID        string `json:"id"`
	Severity  string `json:"severity"`
	Category  string `json:"category"`
	Title     string `json:"title"`
	Behaviour string `json:"behaviour"`
	Source    string `json:"source"`
	HelpURI   string `json:"help_uri"`
}

// linterRules are the rules the linter lists: the catalogue less the
// provider's own rules (manifestcheck.Reports), among them the plan-time
// drift warning (nodes-will-drift), which lint reports only with
// --cluster-state (its rules guide section is the provider's).
func linterRules() []*rules.Rule {
	var out []*rules.Rule
	for _, r := range rules.All() {
		if manifestcheck.Reports(r.ID) {
			out = append(out, r)
		}
	}
	return out
}

func listRules(e *env, format string) int {
	all := linterRules()
	switch format {
	case "json":
		out := []jsonRule{}
		for _, r := range all {
			out = append(out, jsonRule{ID: r.ID, Severity: r.Severity.String(), Category: r.Category, Title: r.Title,
				Behaviour: r.Behaviour, Source: r.Source, HelpURI: guideURL + "#" + r.ID})
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return e.errorf("%v", err)
		}
	case "text":
		var b strings.Builder
		w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		// The tabwriter reports its errors at Flush.
		_, _ = fmt.Fprintln(w, "RULE\tSEVERITY\tCATEGORY\tTITLE")
		for _, r := range all {
			_, _ = fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Category, r.Title)
		}
		if err := w.Flush(); err != nil {
			return e.errorf("%v", err)
		}
		if _, err := io.WriteString(e.stdout, b.String()); err != nil {
			return e.errorf("%v", err)
		}
	default:
		return e.errorf("rules list: format %q: want text or json", format)
	}
	return exitOK
}

func showRule(e *env, r *rules.Rule) int {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (%s, %s)\n\n", r.ID, r.Title, r.Severity, r.Category)
	fmt.Fprintf(&b, "What happens: %s\n\nSource: %s\n\n", r.Behaviour, r.Source)
	// Manifests, as the linter reads them; a rule documented only with the
	// provider's HCL says so rather than showing HCL as if it were YAML.
	if bad, good, ok := r.YAMLExamples(); ok {
		fmt.Fprintf(&b, "Fails%s:\n%s\n\nPasses%s:\n%s\n\n", withArgs(r.LintArgs()), indentLines(bad), withArgs(r.GoodLintArgs()), indentLines(good))
	} else {
		b.WriteString("No manifest example yet: the rules guide shows it in the Terraform provider's terms.\n\n")
	}
	fmt.Fprintf(&b, "More: %s#%s\n", guideURL, r.ID)
	if _, err := io.WriteString(e.stdout, b.String()); err != nil {
		return e.errorf("%v", err)
	}
	return exitOK
}

// withArgs says which flags an example is linted with (the account's
// facts, a Karpenter release), "" for none.
func withArgs(args []string) string {
	if len(args) == 0 {
		return ""
	}
	if args[0] == "schedule" {
		return " (karpenter-lint " + strings.Join(args, " ") + ")"
	}
	return " (karpenter-lint lint " + strings.Join(args, " ") + ")"
}

func indentLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "\n")
}
