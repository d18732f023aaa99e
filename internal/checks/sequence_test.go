package checks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// sequenceSteps are the steps of the check sequences and the class reader:
// a front end calls NodePool, EC2NodeClass, NodeOverlay, ReadClass and ClassStatus, never a step, so a
// new plan-time NodePool check (a stage of the sequence, as the zone check
// was) is written once, in nodepool.go here (or, a rule of the pool alone,
// in package nodepool's Validate or Check), and runs in karpenter_nodepool,
// validate_manifest and karpenter-lint alike.
var sequenceSteps = map[string][]string{
	"nodepool":    {"Check", "CrossChecksApply", "ZonePool"},
	"readiness":   {"CheckPool", "Evaluate", "Lookup"},
	"nodeoverlay": {"RuntimeFindings", "GateOff"},
	// The class's: its images, what builds on them and the cluster check
	// (EC2NodeClass); a front end only resolves the images it is asked for.
	"nodeclass": {"Plan", "PlanChecks", "BootstrapClusterFindings", "FamilyRequired", "BootstrapNeeds"},
	// The readiness reads (any receiver): only ReadClass asks them.
	"": {"SelectSecurityGroups", "SelectCapacityReservations", "GetRole", "GetInstanceProfile"},
}

// TestFrontEndsRunTheSequence: the provider, manifestcheck and the CLI do
// not run a step of a sequence themselves.
func TestFrontEndsRunTheSequence(t *testing.T) {
	fset := token.NewFileSet()
	for _, dir := range []string{"../provider", "../manifestcheck", "../cmd"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg := ""
				if id, ok := sel.X.(*ast.Ident); ok {
					pkg = id.Name
				}
				for _, p := range []string{pkg, ""} {
					for _, step := range sequenceSteps[p] {
						if sel.Sel.Name == step && (p == "" || p == pkg) {
							t.Errorf("%s: calls %s.%s, a step of a check sequence: call the sequence in internal/checks (NodePool, EC2NodeClass, NodeOverlay, ReadClass, ClassStatus) and add the step there",
								fset.Position(call.Pos()), pkg, step)
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
