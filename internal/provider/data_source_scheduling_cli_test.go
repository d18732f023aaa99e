package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/scheduling/schedulingtest"
)

// captured holds, after a step, the root module's outputs and the
// attributes of data.karpenter_scheduling.prod, as JSON.
type captured map[string]json.RawMessage

func (c captured) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("no state")
		return
	}
	values := map[string]any{}
	for name, out := range req.State.Values.Outputs {
		values[name] = out.Value
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address == "data.karpenter_scheduling.prod" {
			values["pods"], values["node_claims"] = r.AttributeValues["pods"], r.AttributeValues["node_claims"]
		}
	}
	for name, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			resp.Error = err
			return
		}
		c[name] = b
	}
}

// normal decodes JSON into plain values, so that the data source's numbers
// and the command's compare equal.
func normal(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

// karpenterLint builds the karpenter-lint command and returns a function
// that runs it in the test's environment, returning its exit status and
// outputs.
func karpenterLint(t *testing.T) func(args ...string) (code int, stdout []byte, stderr string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds karpenter-lint")
	}
	bin := filepath.Join(t.TempDir(), "karpenter-lint")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/karpenter-lint").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return func(args ...string) (int, []byte, string) {
		cmd := exec.Command(bin, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Fatalf("karpenter-lint %s: %v", strings.Join(args, " "), err)
		}
		return code, out, stderr.String()
	}
}

// TestAccSchedulingExampleIsTheCommands: `karpenter-lint schedule` makes
// the data source's decision. The documentation's example is applied
// against the emulator; the manifests of its pools and class are given to
// the command as --pools, its workloads as --workloads, and the command's
// JSON pods and node_claims are the data source's.
func TestAccSchedulingExampleIsTheCommands(t *testing.T) {
	src, err := os.ReadFile("../../examples/data-sources/karpenter_scheduling/data-source.tf")
	if err != nil {
		t.Fatal(err)
	}
	workloads, _ := schedulingtest.ExampleWorkloads(t, "../..")
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	lint := karpenterLint(t)
	config := emulatorProviderHCL(url, `cluster { name = "demo" }`) + inDemoAccount(string(src)) + `
output "pools" {
  value = join("---\n", [karpenter_nodepool.general.manifest, karpenter_nodepool.gpu.manifest, karpenter_ec2nodeclass.default.manifest])
}
`
	got := captured{}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: config, ConfigStateChecks: []statecheck.StateCheck{got}}},
	})
	if t.Failed() {
		return
	}
	var pools string
	if err := json.Unmarshal(got["pools"], &pools); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"karpenter.yaml": pools, "workloads.yaml": workloads} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"schedule", "--pools", filepath.Join(dir, "karpenter.yaml"), "--workloads", filepath.Join(dir, "workloads.yaml"),
		"--region", "us-east-1", "--cluster", "demo", "--format", "json"}
	// Karpenter breaks a tie between the zones of a topology spread in Go
	// map order (TopologyGroup.nextDomainTopologySpread in
	// sigs.k8s.io/karpenter); where the zones differ (this region's
	// offerings do), the StatefulSet's pods join the web replica of one
	// zone or of another from one run to the next, in Karpenter, in the
	// data source and in the command. The data source's decision must be
	// one the command makes: it is, on about one run in three.
	var claims []string
	for range 20 {
		code, out, stderr := lint(args...)
		var r struct {
			Pods       json.RawMessage `json:"pods"`
			NodeClaims json.RawMessage `json:"node_claims"`
			Skipped    []string        `json:"skipped"`
			Findings   []any           `json:"findings"`
		}
		if err := json.Unmarshal(out, &r); err != nil || code != 0 {
			t.Fatalf("exit %d, %v:\n%s%s", code, err, out, stderr)
		}
		if a, b := normal(t, r.Pods), normal(t, got["pods"]); !reflect.DeepEqual(a, b) {
			t.Fatalf("pods:\nschedule    %s\ndata source %s", r.Pods, got["pods"])
		}
		if len(r.Findings) != 0 || len(r.Skipped) != 0 {
			t.Fatalf("findings %v, skipped %q", r.Findings, r.Skipped)
		}
		if reflect.DeepEqual(normal(t, r.NodeClaims), normal(t, got["node_claims"])) {
			return
		}
		claims = append(claims, string(r.NodeClaims))
	}
	t.Errorf("node_claims: the data source's\n%s\nis none of the command's:\n%s", got["node_claims"], strings.Join(claims, "\n"))
}
