package amifamily

import "testing"

func TestBottlerocketSupportsDefaultBind(t *testing.T) {
	for v, want := range map[string]bool{
		"latest": true, "v1.46.0": true, "1.46.0": true, "v1.51.0": true, "v2.0.0": true,
		"v1.45.9": false, "v1.46": false, "": false, "vx.46.0": false, "v1.4*.0": false,
	} {
		if got := BottlerocketSupportsDefaultBind(v); got != want {
			t.Errorf("%q: %v", v, got)
		}
	}
}

func TestBottlerocketAMIVersion(t *testing.T) {
	for name, want := range map[string]string{
		"bottlerocket-aws-k8s-1.33-x86_64-v1.46.0-431fe75a":         "v1.46.0",
		"bottlerocket-aws-k8s-1.33-nvidia-aarch64-v1.51.0-47438798": "v1.51.0",
		"amazon-eks-node-1.32-v20251209":                            "",
		"vendor-image":                                              "",
	} {
		if got := BottlerocketAMIVersion(name); got != want {
			t.Errorf("%q: %q", name, got)
		}
	}
}
