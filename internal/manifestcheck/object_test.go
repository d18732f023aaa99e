package manifestcheck

import (
	"strings"
	"testing"
)

func TestDecodeOne(t *testing.T) {
	pool := nodePool("      requirements: []\n" + nodeClassRef)
	m, fs, err := DecodeNodePool(pool)
	if err != nil || len(fs) > 0 || m.Metadata.Name != "default" || m.Spec.Template.Spec.NodeClassRef.Name != "default" {
		t.Fatalf("%+v %v %v", m, fs, err)
	}
	if _, fs, err := DecodeEC2NodeClass(pool); err == nil || len(fs) > 0 || !strings.Contains(err.Error(), "is a NodePool, not an EC2NodeClass") {
		t.Errorf("wrong kind: %v %v", fs, err)
	}
	if _, _, err := DecodeNodePool(pool + "---\n" + pool); err == nil || !strings.Contains(err.Error(), "2 documents") {
		t.Errorf("two documents: %v", err)
	}
	if _, _, err := DecodeNodePool("apiVersion: v1\nkind: ConfigMap\n"); err == nil || !strings.Contains(err.Error(), `"ConfigMap"`) {
		t.Errorf("foreign kind: %v", err)
	}
	if _, fs, _ := DecodeNodePool("kind: [\n"); len(fs) != 1 || fs[0].Rule.ID != "manifest-malformed" {
		t.Errorf("malformed: %v", fs)
	}
	if _, fs, _ := DecodeNodePool(strings.Replace(pool, "karpenter.sh/v1", "karpenter.sh/v1beta1", 1)); len(fs) != 1 || fs[0].Rule.ID != "manifest-api-version-unsupported" {
		t.Errorf("v1beta1: %v", fs)
	}
	if _, _, err := DecodeNodePool(strings.Replace(pool, "requirements: []", "requirements: 3", 1)); err == nil {
		t.Error("a field of the wrong type decoded")
	}
}
