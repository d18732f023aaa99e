package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/snapshot/snapshottest"
)

// disruptionPool is the snapshots' NodePool as configured.
const disruptionPool = snapshottest.PoolYAML

// disruptionFiles writes the pool and a snapshot of four nodes of it: one
// current, one on an old hash, one an r5 (outside the requirements), one
// on an old hash whose pod has do-not-disrupt. first is the snapshot's
// first line ("" for none).
func disruptionFiles(t *testing.T, first string) (pools, state string) {
	t.Helper()
	h := snapshottest.PoolHash(t)
	l := &snapshottest.List{}
	node := func(name, it, hash string) snapshottest.Node {
		return snapshottest.Node{Name: name, Pool: "general", Class: "default", InstanceType: it, Zone: "us-east-1a", CPU: "1930m", Memory: "7Gi", Pods: 29, PoolHash: hash}
	}
	l.Add(node("current", "m5.large", h)).Add(node("old-hash", "m5.large", "123")).Add(node("r5", "r5.large", h)).Add(node("dnd", "m5.large", "123"))
	l.AddPod(snapshottest.Pod{Namespace: "batch", Name: "job-1", Node: "dnd", CPU: "1", Memory: "1Gi", Annotations: map[string]string{"karpenter.sh/do-not-disrupt": "true"}})
	dir := t.TempDir()
	pools, state = filepath.Join(dir, "pools.yaml"), filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(pools, []byte(disruptionPool), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(state, []byte(first+l.YAML()), 0o600); err != nil {
		t.Fatal(err)
	}
	return pools, state
}

// TestAccDisruption: the drifted NodeClaims with their reasons and
// blockers, the pacing at a Saturday noon (budget 2: one round) and on a
// Monday morning (the scheduled budget of 0: none), totals, and at's
// default, the snapshot's time.
func TestAccDisruption(t *testing.T) {
	pools, state := disruptionFiles(t, snapshot.TakenPrefix+"2026-11-30T10:00:00Z\n")
	cfg := func(at string) string {
		return "provider \"karpenter\" {}\n\ndata \"karpenter_disruption\" \"x\" {\n  node_pools    = [file(\"" + pools + "\")]\n  cluster_state = file(\"" + state + "\")\n" + at + "}\n"
	}
	ds := "data.karpenter_disruption.x"
	pacing := func(allowed, rounds int64, budgets ...string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"nodes": knownvalue.Int64Exact(4), "disrupting": knownvalue.Int64Exact(0), "drifted": knownvalue.Int64Exact(3),
			"candidates": knownvalue.Int64Exact(2), "allowed": knownvalue.Int64Exact(allowed), "rounds": knownvalue.Int64Exact(rounds),
			"budgets": strList(budgets...),
		})
	}
	drifted := func(claim, node, reason string, detail *regexp.Regexp, blocked string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"node_claim": knownvalue.StringExact(claim), "node": knownvalue.StringExact(node), "node_pool": knownvalue.StringExact("general"),
			"reason": knownvalue.StringExact(reason), "detail": knownvalue.StringRegexp(detail), "blocked_by": knownvalue.StringExact(blocked),
		})
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      cfg("  at            = \"Monday 10:00\"\n"),
				ExpectError: regexp.MustCompile(`disruption-arguments-invalid(.|\n)*not an RFC 3339 time`),
			},
			{
				Config: cfg("  at            = \"2026-11-28T12:00:00Z\"\n"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("drifted"), knownvalue.ListExact([]knownvalue.Check{
						drifted("general-dnd", "dnd", "NodePoolDrifted", regexp.MustCompile(`nodepool-hash is 123`), "pod batch/job-1 has karpenter.sh/do-not-disrupt"),
						drifted("general-old-hash", "old-hash", "NodePoolDrifted", regexp.MustCompile(`nodepool-hash is 123`), ""),
						drifted("general-r5", "r5", "RequirementsDrifted", regexp.MustCompile(`instance-family`), ""),
					})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("pacing").AtMapKey("general"), pacing(2, 1, `nodes "2"`)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("totals"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"nodes": knownvalue.Int64Exact(4), "drifted": knownvalue.Int64Exact(3), "candidates": knownvalue.Int64Exact(2), "blocked": knownvalue.Int64Exact(1),
					})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("findings"), strList(
						"images were not compared (offline): AMIDrift needs the images the EC2NodeClasses resolve to now, read from AWS (default)",
						"consolidation is not decided: it needs the region's instance types and prices (configure the provider for AWS)")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("consolidation"), knownvalue.Null()),
				},
			},
			{
				// at defaults to the snapshot's time: Monday 10:00 UTC.
				Config: cfg(""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("at"), knownvalue.StringExact("2026-11-30T10:00:00Z")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("pacing").AtMapKey("general"), pacing(0, -1, `nodes "2"`, `nodes "0" at "0 9 * * mon-fri" for 8h0m0s`)),
				},
			},
		},
	})
}

// A configuration the API server would refuse is an error at node_pools:
// nothing is decided for it.
func TestAccDisruptionUnreadablePool(t *testing.T) {
	_, state := disruptionFiles(t, "")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      "provider \"karpenter\" {}\n\ndata \"karpenter_disruption\" \"x\" {\n  node_pools    = [\"kind: ConfigMap\"]\n  cluster_state = file(\"" + state + "\")\n}\n",
			ExpectError: regexp.MustCompile(`holds no karpenter.sh/v1 NodePool`),
		}},
	})
}

// The documentation's example says what it outputs.
func TestAccDisruptionExample(t *testing.T) {
	src, err := os.ReadFile("../../examples/data-sources/karpenter_disruption/data-source.tf")
	if err != nil {
		t.Fatal(err)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: "provider \"karpenter\" {}\n\n" + string(src),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("drifted", knownvalue.MapExact(map[string]knownvalue.Check{"general-x7k2p": knownvalue.StringExact("RequirementsDrifted")})),
				statecheck.ExpectKnownOutputValue("general_rounds", knownvalue.Int64Exact(-1)),
			},
		}},
	})
}

// With the provider configured for AWS (the emulator) and the class in
// node_classes, a NodeClaim whose image is not the one the class resolves
// to for its instance type now is AMIDrift; the one on the current image
// is not drifted, and nothing says images were not compared.
func TestAccDisruptionImages(t *testing.T) {
	h := snapshottest.PoolHash(t)
	l := &snapshottest.List{}
	for name, image := range map[string]string{"current": "ami-00aaa5e6d9941b32c", "retired": "ami-0retired"} {
		l.Add(snapshottest.Node{Name: name, Pool: "general", Class: "default", InstanceType: "m5.large", Zone: "us-east-1a",
			CPU: "1930m", Memory: "7Gi", Pods: 29, PoolHash: h, ImageID: image})
	}
	dir := t.TempDir()
	files := map[string]string{"pools.yaml": disruptionPool, "classes.yaml": nodeClassYAML("al2023@v20251112", ""), "cluster.yaml": l.YAML()}
	for f, text := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := emulatorProvider(t, `cluster { name = "demo" }`) + `
data "karpenter_disruption" "x" {
  node_pools    = [file("` + filepath.Join(dir, "pools.yaml") + `")]
  node_classes  = [file("` + filepath.Join(dir, "classes.yaml") + `")]
  cluster_state = file("` + filepath.Join(dir, "cluster.yaml") + `")
  at            = "2026-11-28T12:00:00Z"
}
`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.karpenter_disruption.x", tfjsonpath.New("drifted"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"node_claim": knownvalue.StringExact("general-retired"), "reason": knownvalue.StringExact("AMIDrift"),
						"detail": knownvalue.StringExact("its image ami-0retired is not the one EC2NodeClass default resolves to for its instance type now"),
					}),
				})),
				statecheck.ExpectKnownValue("data.karpenter_disruption.x", tfjsonpath.New("findings"), knownvalue.ListExact(nil)),
				// Both nodes are empty: consolidation deletes them, as many at once as the budget of 2 allows.
				statecheck.ExpectKnownValue("data.karpenter_disruption.x", tfjsonpath.New("consolidation").AtSliceIndex(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"method": knownvalue.StringExact("empty"), "decision": knownvalue.StringExact("delete"),
					// Two equally empty nodes, whatever order the snapshot lists them in
					// (a map here): the command names them in name order.
					"nodes": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("current"), knownvalue.StringExact("retired")}),
				})),
			},
		}},
	})
}

// Inputs not known yet leave every output unknown, with no diagnostic;
// the warnings of a partial snapshot name cluster_state.
func TestDisruptionReadUnknownAndIncomplete(t *testing.T) {
	ctx := context.Background()
	read := func(cfg map[string]any) (diag.Diagnostics, disruptionModel) {
		ds := NewDisruptionDataSource().(*disruptionDataSource)
		var sresp datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &sresp)
		typ := sresp.Schema.Type().TerraformType(ctx)
		ds.Configure(ctx, datasource.ConfigureRequest{ProviderData: offlineData()}, &datasource.ConfigureResponse{})
		rresp := datasource.ReadResponse{State: tfsdk.State{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, nil)}}
		ds.Read(ctx, datasource.ReadRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tfValue(t, typ, cfg)}}, &rresp)
		var m disruptionModel
		rresp.Diagnostics.Append(rresp.State.Get(ctx, &m)...)
		return rresp.Diagnostics, m
	}
	diags, m := read(map[string]any{"node_pools": unknown, "cluster_state": "apiVersion: v1\nkind: List\nitems: []\n"})
	if len(diags) > 0 || !m.Drifted.IsUnknown() || !m.Pacing.IsUnknown() || !m.Totals.IsUnknown() || !m.Findings.IsUnknown() || !m.At.IsUnknown() {
		t.Errorf("unknown node_pools: %v %+v", diags, m)
	}
	pools, state := disruptionFiles(t, "")
	p, _ := os.ReadFile(pools)
	s, _ := os.ReadFile(state)
	partial := string(s) + "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: no-allocatable\n"
	diags, m = read(map[string]any{"node_pools": []any{string(p)}, "cluster_state": partial, "at": "2026-11-28T12:00:00Z"})
	if diags.HasError() || diags.WarningsCount() != 1 || !strings.Contains(diags[0].Summary(), "cluster-state-incomplete") ||
		!strings.Contains(diags[0].Detail(), "Node no-allocatable") || m.Totals.IsUnknown() {
		t.Errorf("partial snapshot: %v", diags)
	}
	if d, ok := diags[0].(diag.DiagnosticWithPath); !ok || !d.Path().Equal(path.Root("cluster_state")) {
		t.Errorf("the warning is not at cluster_state: %v", diags[0])
	}
}

// The provider's cluster_state: unknown or unset is no snapshot (the
// warnings compare with the state only); given, it is parsed once.
func TestProviderClusterState(t *testing.T) {
	for name, v := range map[string]any{"unset": nil, "unknown": unknown} {
		data, diags := configureProvider(t, map[string]any{"cluster_state": v})
		if diags.HasError() || data.ClusterState.snapshot() != nil {
			t.Errorf("%s: %v %v", name, diags, data.ClusterState)
		}
	}
	_, state := disruptionFiles(t, "")
	b, _ := os.ReadFile(state)
	data, diags := configureProvider(t, map[string]any{"cluster_state": string(b)})
	if diags.HasError() {
		t.Fatal(diags)
	}
	first := data.ClusterState.snapshot()
	if first == nil || len(first.NodeClaims) != 4 || data.ClusterState.snapshot() != first {
		t.Errorf("given: %+v", first)
	}
}
