package amifamily

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testSupport are the packages outside the provider that may name families:
// differential compares with Karpenter's own code (test files only), awsemu
// emulates AWS (its fixtures are AWS's image names and SSM paths), and the
// test-support packages build fixtures.
var testSupport = []string{
	"internal/amifamily/",
	"internal/differential/",
	"internal/awsemu/",
	"internal/instancetype/realistic/",
	"internal/rules/rulestest/",
	"internal/reliability/",
}

// allowed are files that may name a family, and why. The provider schema
// describes ami_family's values in its Description (a longer string) and
// validates them through amifamily.ParseError, so no file is needed here
// today; an enum validator listing the values would be the one entry.
var allowed = map[string]string{}

// TestNoFamilyDecisionsOutsideTheModel: outside this package and test
// support, no non-test Go file under internal/ holds a string literal that
// is a family name (outside rules' Bad/Good configuration examples) (either spelling: the enum's or the alias's) or refers
// to one of this package's family constants. Whatever depends on the
// family is asked of its Model, so a new switch on the family fails here.
func TestNoFamilyDecisionsOutsideTheModel(t *testing.T) {
	names := map[string]bool{}
	constants := map[string]bool{}
	for _, f := range Families {
		names[string(f)] = true
		names[strings.ToLower(string(f))] = true
		constants[string(f)] = true
	}
	root := filepath.Join("..", "..")
	var files int
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, p := range testSupport {
				if rel+"/" == p || d.Name() == "testdata" {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed[rel] != "" {
			return nil
		}
		files++
		for _, problem := range familyReferences(t, path, names, constants) {
			t.Errorf("%s:%s: decide this in package amifamily (a Model method), not by naming the family", rel, problem)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d files read: the walk missed internal/", files)
	}
}

// familyReferences lists the family-name literals and family-constant
// references in one file.
func familyReferences(t *testing.T, path string, names, constants map[string]bool) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); strings.HasSuffix(p, "/internal/amifamily") {
			local = "amifamily"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			// A rule's Bad and Good examples are configuration written by
			// a user, whatever helper builds them.
			if k, ok := n.Key.(*ast.Ident); ok && (k.Name == "Bad" || k.Name == "Good") {
				return false
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if s, err := strconv.Unquote(n.Value); err == nil && names[s] {
					out = append(out, strconv.Itoa(fset.Position(n.Pos()).Line)+": string "+n.Value)
				}
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && local != "" && x.Name == local && constants[n.Sel.Name] {
				out = append(out, strconv.Itoa(fset.Position(n.Pos()).Line)+": "+local+"."+n.Sel.Name)
			}
		}
		return true
	})
	return out
}
