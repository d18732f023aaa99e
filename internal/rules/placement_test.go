package rules_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// registeredElsewhere are the rules registered in a package that does not
// emit them, and why they cannot move: userdata renders the bootstrap
// block with four userdata/lint rules, and lint cannot import userdata
// (userdata imports it), while manifestcheck refers to them as lint.Rule*.
var registeredElsewhere = map[string]string{
	"RuleCIDRMissing":       "emitted by package userdata (render.go)",
	"RuleExtraArgInvalid":   "emitted by package userdata (custom.go)",
	"RuleScriptUnsafe":      "emitted by package userdata (custom.go)",
	"RuleScriptUnsupported": "emitted by package userdata (custom.go)",
	// The karpenter_scheduling data source's; manifestcheck names it to
	// keep it out of the CLI's rules and cannot import the provider.
	"RuleNeedsAWS": "emitted by package provider (scheduling_schema.go)",
}

// TestRulesRegisteredNextToTheirCheck: a rule is registered (a package-level
// var = rules.Register(...)) in the file whose check emits it, so a check
// and its rule are read, moved and deleted together. A use other than the
// declaration and an alias (`RuleX = ruleX`) counts as emitting.
func TestRulesRegisteredNextToTheirCheck(t *testing.T) {
	type reg struct{ file, name string }
	byDir := map[string][]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			byDir[filepath.Dir(path)] = append(byDir[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, files := range byDir {
		fset := token.NewFileSet()
		parsed := map[string]*ast.File{}
		var regs []reg
		for _, path := range files {
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			parsed[path] = f
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					if len(vs.Names) == 1 && len(vs.Values) == 1 && isRegister(vs.Values[0]) {
						regs = append(regs, reg{path, vs.Names[0].Name})
					}
				}
			}
		}
		for _, r := range regs {
			checked++
			var emitters []string
			for path, f := range parsed {
				if uses(f, r.name) {
					emitters = append(emitters, filepath.Base(path))
				}
			}
			sort.Strings(emitters)
			switch {
			case len(emitters) == 0 && registeredElsewhere[r.name] != "":
			case len(emitters) == 0:
				t.Errorf("%s: %s is registered here and emitted by no file of its package: register it in the package whose check emits it", r.file, r.name)
			case !strings.Contains(" "+strings.Join(emitters, " ")+" ", " "+filepath.Base(r.file)+" "):
				t.Errorf("%s: %s is registered here but emitted in %v: move the registration next to its check", r.file, r.name, emitters)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("found %d registrations: the walk missed the rule packages", checked)
	}
}

func isRegister(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Register" {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == "rules"
}

// uses reports whether f refers to name other than by declaring it or
// aliasing it (a var whose value is the identifier alone).
func uses(f *ast.File, name string) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			if len(n.Values) == 1 {
				if id, ok := n.Values[0].(*ast.Ident); ok && id.Name == name {
					return false // an alias
				}
			}
			for _, v := range n.Values {
				ast.Inspect(v, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok && id.Name == name {
						found = true
					}
					return !found
				})
			}
			return false // the names declared are not uses
		case *ast.SelectorExpr:
			// pkg.Name is another package's rule of the same name.
			ast.Inspect(n.X, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && id.Name == name {
					found = true
				}
				return !found
			})
			return false
		case *ast.Ident:
			if n.Name == name {
				found = true
			}
		}
		return !found
	})
	return found
}
