package provider

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
)

// TestAccSchedulingClusterState: with cluster_state the pods that fit on
// the snapshot's node go there (existing_nodes) and make no NodeClaim.
// (The cluster-state-incomplete warning is tested in internal/scheduling
// and karpenter-lint: Terraform's test harness does not read warnings.)
func TestAccSchedulingClusterState(t *testing.T) {
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	l := &snapshottest.List{}
	l.Add(snapshottest.Node{Name: "ip-10-0-1-1", Pool: "default", Class: "default", InstanceType: "m5.xlarge", Zone: "us-east-1a", CPU: "3920m", Memory: "14Gi", Pods: 58})
	dir := t.TempDir()
	state := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(state, []byte(l.YAML()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := func(file string) string {
		c, _ := schedData("x", []string{schedPool("default", "", "")}, []string{schedDeployment("web", 3, "1", "")}, "  cluster_state = file(\""+file+"\")\n")
		return prov + c
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg(state),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", tfjsonpath.New("existing_nodes").AtMapKey("ip-10-0-1-1"),
						strList("default/Deployment/web/0", "default/Deployment/web/1", "default/Deployment/web/2")),
					statecheck.ExpectKnownValue("data.karpenter_scheduling.x", tfjsonpath.New("node_claims"), knownvalue.ListExact(nil)),
				},
			},
		},
	})
}
