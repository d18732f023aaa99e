package crd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The validated CRDs must be the module's own files at the pinned version,
// never a copy: compare the embedded bytes with the module cache and the
// version constant with go.mod's requirement.
func TestCRDsAreTheModulesAtThePinnedVersion(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.Dir}}", "github.com/aws/karpenter-provider-aws").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	version, dir, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok || dir == "" {
		t.Skipf("module directory unknown: %q", out)
	}
	if version != KarpenterVersion {
		t.Errorf("go.mod pins karpenter-provider-aws %s but KarpenterVersion is %s", version, KarpenterVersion)
	}
	for file, k := range map[string]*Kind{
		"karpenter.k8s.aws_ec2nodeclasses.yaml": EC2NodeClass,
		"karpenter.sh_nodepools.yaml":           NodePool,
		"karpenter.sh_nodeoverlays.yaml":        NodeOverlay,
	} {
		want, err := os.ReadFile(filepath.Join(dir, "pkg", "apis", "crds", file))
		if err != nil {
			t.Skipf("module source unavailable: %v", err)
		}
		if !bytes.Equal(k.crd, want) {
			t.Errorf("%s: validated CRD differs from the module's %s", k.Name(), file)
		}
	}
}

func TestCompiledKinds(t *testing.T) {
	for _, tc := range []struct {
		k                 *Kind
		apiVersion, scope string
	}{{EC2NodeClass, "karpenter.k8s.aws/v1", "cluster"}, {NodePool, "karpenter.sh/v1", "cluster"}, {NodeOverlay, "karpenter.sh/v1alpha1", "cluster"}} {
		if err := tc.k.Prepare(); err != nil {
			t.Fatal(err)
		}
		if got := tc.k.c.apiVersion(); got != tc.apiVersion {
			t.Errorf("%s: apiVersion %s", tc.k.Name(), got)
		}
		if tc.k.c.namespaced || tc.k.c.cel == nil || !tc.k.c.hasStatus {
			t.Errorf("%s: namespaced=%v cel=%v status=%v", tc.k.Name(), tc.k.c.namespaced, tc.k.c.cel != nil, tc.k.c.hasStatus)
		}
	}
}
