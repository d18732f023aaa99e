package provider

import "testing"

// The warnings of the resources and data sources, each seen in a real
// terraform plan (plugin-testing cannot check warnings).
func TestPlanWarnings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	al2023 := classHCL("al2023", `  ami_selector_terms { alias = "al2023@latest" }`)
	custom := classHCL("custom", customAL2023Class)
	diags := planDiagnostics(t, prov+al2023+custom+
		// Seed 004: arm64-only and amd64-only families without an arch requirement, on a single-arch class.
		poolHCL("mixed", "karpenter_ec2nodeclass.custom.node_class", reqHCL("karpenter.k8s.aws/instance-family", "In", "m5", "m6g"))+
		// GPU families on images chosen by architecture only.
		poolHCL("gpu", "karpenter_ec2nodeclass.custom.node_class", reqHCL("karpenter.k8s.aws/instance-family", "In", "g5"))+
		// AMD GPU families on an alias.
		poolHCL("amd", "karpenter_ec2nodeclass.al2023.node_class", reqHCL("karpenter.k8s.aws/instance-family", "In", "g4ad"))+
		// A class managed elsewhere.
		poolHCL("elsewhere", `{ name = "shared" }`, "")+
		// Karpenter-owned taint.
		poolHCL("owned", "karpenter_ec2nodeclass.al2023.node_class", taintHCL("taints", "karpenter.sh/disrupted", "", "NoSchedule"))+
		`data "karpenter_ami" "g5_custom" {
  ami_family    = "AL2023"
  instance_type = "g5.xlarge"
  ami_selector_terms { id = "ami-0aaf333b614a08570" }
}
data "karpenter_amis" "old_kubernetes" {
  ami_family         = "AL2023"
  kubernetes_version = "1.25"
  ami_selector_terms { name = "team-eks-node-al2023-x86_64-*" }
  ami_selector_terms { name = "shared-eks-node-*" }
}`)
	expectDiagnostic(t, diags, "warning", "nodepool-mixed-architectures", "m6g")
	expectDiagnostic(t, diags, "warning", "ami-non-alias-gpu-instance", "g5 → ")
	// The data source's own: about the instance type it was asked about.
	expectDiagnostic(t, diags, "warning", "ami-non-alias-gpu-instance", "g5.xlarge", "gets ami-0aaf333b614a08570")
	expectDiagnostic(t, diags, "warning", "amd-gpu-nvidia-image", "g4ad")
	expectDiagnostic(t, diags, "warning", "nodepool-node-class-facts-unknown")
	expectDiagnostic(t, diags, "warning", "nodepool-taint-karpenter-owned", "karpenter.sh/disrupted")
	expectDiagnostic(t, diags, "warning", "alias-latest-drift", "al2023@latest")
	expectDiagnostic(t, diags, "warning", "kubernetes-version-unsupported", "1.25")
	expectDiagnostic(t, diags, "warning", "ami-term-name-default-owners", "shared-eks-node-*")
	for _, d := range diags {
		if d.Severity == "error" {
			t.Errorf("unexpected error: %s: %s", d.Summary, d.Detail)
		}
	}
}

// A Custom class whose userData registers karpenter.sh/unregistered but not
// the pool's startup taint.
func TestPlanWarnsWhenCustomClassMissesStartupTaint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	class := classHCL("custom", `  ami_family = "Custom"
  ami_selector_terms { alias = "al2023@latest" }
  bootstrap { format = "nodeadm" }`)
	diags := planDiagnostics(t, prov+class+poolHCL("cilium", "karpenter_ec2nodeclass.custom.node_class",
		reqHCL("karpenter.k8s.aws/instance-family", "In", "m5")+taintHCL("startup_taints", "node.cilium.io/agent-not-ready", "true", "NoExecute")))
	expectDiagnostic(t, diags, "warning", "nodepool-startup-taints-not-registered", "node.cilium.io/agent-not-ready")
}
