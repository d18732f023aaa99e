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
var terraformWords = regexp.MustCompile(`(?i)terraform|acknowledged_warnings|karpenter_(nodepool|ec2nodeclass|scheduling|node|amis?|instance_types)\b|\b[a-z]+(_[a-z0-9]+)+(\[[^\]]*\])* = |= \{ |\{ [a-z_]+ = `)

// TestDomainMessagesSayNoTerraformWord: outside the front ends, no string
// of a non-test Go file names a Terraform resource, attribute or the
// acknowledgement list: the advice is a rules.Fix, which the provider
// renders in HCL and karpenter-lint and validate_manifest in YAML. A rule's
// documentation is the provider's (its Bad and Good are HCL), so the rule
// literals are left out, and so are the declarations only they use (the
// example builders, docsOnly): a string a message can reach is held.
func TestDomainMessagesSayNoTerraformWord(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := parseDomain(root)
	if err != nil {
		t.Fatal(err)
	}
	docs := docsOnly(files)
	offenders := map[string][]string{}
	for _, df := range files {
		ast.Inspect(df.f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec:
				return false
			case *ast.FuncDecl:
				if docs[declID(df.dir, n)] {
					return false // an example builder of the documentation
				}
			case *ast.ValueSpec:
				if docs[df.dir+"."+n.Names[0].Name] {
					return false
				}
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
					offenders[df.rel] = append(offenders[df.rel], fmt.Sprintf("%d: %q", df.fset.Position(n.Pos()).Line, terraformWords.FindString(s)))
				}
			}
			return true
		})
	}
	names := make([]string, 0, len(offenders))
	for f := range offenders {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		t.Errorf("%s speaks Terraform to every user (write the advice as a rules.Fix):\n  %s", f, strings.Join(offenders[f], "\n  "))
	}
}

// TestDocsOnlyFindsTheExampleBuilders: the exemption is not vacuous, and a
// builder that a message also uses is not exempt.
func TestDocsOnlyFindsTheExampleBuilders(t *testing.T) {
	files, err := parseDomain(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	docs := docsOnly(files)
	for _, id := range []string{"internal/nodepool.exampleFull", "internal/nodepool.req", "internal/userdata/lint.onAL2023"} {
		if !docs[id] {
			t.Errorf("%s builds only rules' examples but is not found docs-only", id)
		}
	}
	for _, id := range []string{"internal/rules.New", "internal/rules.Block"} {
		if docs[id] {
			t.Errorf("%s is used outside the documentation but found docs-only", id)
		}
	}
}

const module = "github.com/karpenter-tf/terraform-provider-karpenter/"

// domainFile is a parsed non-test Go file of a domain package.
type domainFile struct {
	rel, dir string // slash paths from the module root
	fset     *token.FileSet
	f        *ast.File
}

// parseDomain parses every non-test Go file under internal/ outside the
// front ends and testdata.
func parseDomain(root string) ([]domainFile, error) {
	var out []domainFile
	fset := token.NewFileSet()
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
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		out = append(out, domainFile{rel: rel, dir: filepath.ToSlash(filepath.Dir(rel)), fset: fset, f: f})
		return nil
	})
	return out, err
}

// declID names a top-level function "dir.name"; a method is never docs-only
// (it is reached through its type), so it gets no id.
func declID(dir string, fd *ast.FuncDecl) string {
	if fd.Recv != nil {
		return ""
	}
	return dir + "." + fd.Name.Name
}

// docsOnly are the top-level functions, variables and constants of the
// domain ("dir.name") that only rule literals use, directly or through one
// another: the example builders of the provider's documentation. A use from
// anywhere else (a check, a method, init) makes a declaration, and what it
// uses, part of the messages.
func docsOnly(files []domainFile) map[string]bool {
	decls := map[string]bool{}
	for _, df := range files {
		for _, d := range df.f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if id := declID(df.dir, d); id != "" {
					decls[id] = true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					if vs, ok := sp.(*ast.ValueSpec); ok {
						for _, n := range vs.Names {
							decls[df.dir+"."+n.Name] = true
						}
					}
				}
			}
		}
	}
	// uses[used][user]: user is a declaration id, "rule" for a rule
	// literal, "" for anything else.
	uses := map[string]map[string]bool{}
	for _, df := range files {
		imports := map[string]string{} // local name -> dir
		for _, im := range df.f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			dir, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			name := dir[strings.LastIndex(dir, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = dir
		}
		var walk func(n ast.Node, user string)
		walk = func(n ast.Node, user string) {
			ast.Inspect(n, func(n ast.Node) bool {
				var used string
				switch n := n.(type) {
				case *ast.CompositeLit:
					if user != "rule" && isRuleLiteral(n.Type) {
						walk(n, "rule")
						return false
					}
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && imports[x.Name] != "" {
						used = imports[x.Name] + "." + n.Sel.Name
						if decls[used] {
							add(uses, used, user)
						}
						return false
					}
					walk(n.X, user) // n.Sel is a field or method, not a declaration
					return false
				case *ast.KeyValueExpr:
					if _, ok := n.Key.(*ast.Ident); ok { // a field name (a map keyed by a constant is rare)
						walk(n.Value, user)
						return false
					}
				case *ast.Ident:
					used = df.dir + "." + n.Name
					if decls[used] {
						add(uses, used, user)
					}
				}
				return true
			})
		}
		for _, d := range df.f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Body != nil {
					walk(d.Body, declID(df.dir, d))
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					if vs, ok := sp.(*ast.ValueSpec); ok {
						for _, v := range vs.Values {
							walk(v, df.dir+"."+vs.Names[0].Name)
						}
					}
				}
			}
		}
	}
	docs := map[string]bool{}
	for id := range uses {
		docs[id] = true
	}
	for changed := true; changed; {
		changed = false
		for id := range docs {
			for user := range uses[id] {
				if user != "rule" && (user == "" || !docs[user] || user == id && len(uses[id]) == 1) {
					delete(docs, id)
					changed = true
					break
				}
			}
		}
	}
	return docs
}

func add(uses map[string]map[string]bool, used, user string) {
	if uses[used] == nil {
		uses[used] = map[string]bool{}
	}
	uses[used][user] = true
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
