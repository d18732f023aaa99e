package rules_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// frontEnds are the packages that speak to users in their own language
// (the provider in HCL, the commands in YAML and flags) and the test
// support that builds their fixtures; every other package under internal/
// is a domain package, whose messages reach both kinds of users.
var frontEnds = []string{
	"internal/provider/",
	"internal/cmd/",
	"internal/differential/",
	"internal/reliability/",
	"internal/awsemu/",
	"internal/rules/rulestest/",
	"internal/instancetype/realistic/",
	"internal/scheduling/schedulingtest/",
}

// terraformWords are what only a Terraform user can act on: the
// provider's resource and attribute names, its acknowledgement list, an
// HCL assignment of a snake_case attribute or an HCL object.
var terraformWords = regexp.MustCompile(`(?i)terraform|acknowledged_warnings|karpenter_(nodepool|ec2nodeclass|scheduling|node|amis?|instance_types)\b|\b[a-z]+(_[a-z0-9]+)+ = |= \{ `)

// notYetInTheirLanguage are the files that still hold HCL in strings: some
// write HCL advice into messages, which is to move into a rules.Fix (the
// front ends render it); some build the provider's documentation examples
// outside the rule literal (nodepool/examples.go; rules/markdown.go writes
// the provider's rules guide), which is to move into the literal or its
// manifest examples. Each leaves this list when it is done. The test fails for any other file, and for a file here
// that no longer needs its entry.
var notYetInTheirLanguage = map[string]bool{
	"internal/ami/rules.go":              true,
	"internal/capacity/capacity.go":      true,
	"internal/drift/rules.go":            true,
	"internal/instancetype/rules.go":     true,
	"internal/migration/migration.go":    true,
	"internal/node/manifests.go":         true,
	"internal/node/node.go":              true,
	"internal/node/rules.go":             true,
	"internal/nodeclass/blockdevices.go": true,
	"internal/nodeclass/kubelet.go":      true,
	"internal/nodeclass/plan.go":         true,
	"internal/nodeclass/rules.go":        true,
	"internal/nodeclass/rules_fields.go": true,
	"internal/nodeclass/validate.go":     true,
	"internal/nodepool/check.go":         true,
	"internal/nodepool/disruption.go":    true,
	"internal/nodepool/examples.go":      true,
	"internal/nodepool/object.go":        true,
	"internal/nodepool/sizing.go":        true,
	"internal/readiness/checks.go":       true,
	"internal/readiness/readiness.go":    true,
	"internal/readiness/rules.go":        true,
	"internal/requirements/rules.go":     true,
	"internal/rules/markdown.go":         true,
	"internal/scheduling/rules.go":       true,
	"internal/scheduling/workloads.go":   true,
	"internal/userdata/lint/rules.go":    true,
}

// TestDomainMessagesSayNoTerraformWord: outside the front ends, no string
// of a non-test Go file (other than a rule's documentation, whose examples
// are the provider's) names a Terraform resource, attribute or the
// acknowledgement list: the advice is a rules.Fix, which the provider
// renders in HCL and karpenter-lint and validate_manifest in YAML.
func TestDomainMessagesSayNoTerraformWord(t *testing.T) {
	root := filepath.Join("..", "..")
	offenders := map[string][]string{}
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, p := range frontEnds {
				if rel+"/" == p || d.Name() == "testdata" {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec:
				return false
			case *ast.CompositeLit:
				if isRuleLiteral(n.Type) {
					return false // documentation: the rules guide is the provider's
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(n.Value)
				s = strings.ReplaceAll(s, "terraform-provider-karpenter", "") // the project's name
				if err == nil && terraformWords.MatchString(s) {
					offenders[rel] = append(offenders[rel], fmt.Sprintf("%d: %q", fset.Position(n.Pos()).Line, terraformWords.FindString(s)))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files := make([]string, 0, len(offenders))
	for f := range offenders {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		if !notYetInTheirLanguage[f] {
			t.Errorf("%s speaks Terraform to every user (write the advice as a rules.Fix):\n  %s", f, strings.Join(offenders[f], "\n  "))
		}
	}
	for f := range notYetInTheirLanguage {
		if offenders[f] == nil {
			t.Errorf("%s says no Terraform word any more: remove it from notYetInTheirLanguage", f)
		}
	}
}

// isRuleLiteral reports whether t is rules.Rule (or Rule inside package
// rules).
func isRuleLiteral(t ast.Expr) bool {
	switch t := t.(type) {
	case *ast.SelectorExpr:
		x, ok := t.X.(*ast.Ident)
		return ok && x.Name == "rules" && t.Sel.Name == "Rule"
	case *ast.Ident:
		return t.Name == "Rule"
	}
	return false
}
