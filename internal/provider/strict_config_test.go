package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Configuration objects are blocks so that Terraform itself rejects a key
// the object does not declare, at its line; nested-attribute objects drop
// such keys silently (hashicorp/terraform#33570). Every object of both
// resources and the data sources is tried with a misspelled key, a
// camelCase spelling (what YAML users write) and a key that belongs
// elsewhere.

// strictObject is one configuration object: where it sits and a valid
// instance of it, with %s where the mistaken line goes.
type strictObject struct {
	name     string // the object, as a path
	owner    string // "class", "pool", or the data source type
	template string // lines inside the resource or data block
	mistakes []strictMistake
}

type strictMistake struct {
	kind    string // misspelled, camelCase or misplaced
	key     string
	suggest string // the did-you-mean Terraform must print (it never suggests an argument the block already sets); empty: none asserted
}

func misspelled(key, suggest string) strictMistake { return strictMistake{"misspelled", key, suggest} }
func camelCase(key, suggest string) strictMistake  { return strictMistake{"camelCase", key, suggest} }
func misplaced(key string) strictMistake           { return strictMistake{"misplaced", key, ""} }

func strictObjects() []strictObject {
	taint := func(kind string) string {
		return "  " + kind + " {\n    key    = \"example.com/gpu\"\n    effect = \"NoSchedule\"\n    %s\n  }\n"
	}
	return []strictObject{
		{"ami_selector_terms", "class", "  ami_selector_terms {\n    alias = \"al2023@v20251209\"\n    %s\n  }\n",
			[]strictMistake{misspelled("owners", "owner"), camelCase("ssmParameter", "ssm_parameter"), misplaced("ami_family")}},
		// Subnet and security group terms have only one-word fields: the
		// camelCase keys are the EC2 API's names for them.
		{"subnet_selector_terms", "class", "  subnet_selector_terms {\n    tags = { \"karpenter.sh/discovery\" = \"demo\" }\n    %s\n  }\n",
			[]strictMistake{misspelled("idd", "id"), camelCase("subnetId", ""), misplaced("name")}},
		{"security_group_selector_terms", "class", "  security_group_selector_terms {\n    tags = { \"karpenter.sh/discovery\" = \"demo\" }\n    %s\n  }\n",
			[]strictMistake{misspelled("nmae", "name"), camelCase("groupId", ""), misplaced("owner")}},
		{"capacity_reservation_selector_terms", "class", "  capacity_reservation_selector_terms {\n    tags = { team = \"ml\" }\n    %s\n  }\n",
			[]strictMistake{misspelled("instance_match_criterion", "instance_match_criteria"), camelCase("ownerId", "owner_id"), misplaced("name")}},
		{"kubelet", "class", "  kubelet {\n    max_pods = 110\n    %s\n  }\n",
			[]strictMistake{misspelled("pods_per_cor", "pods_per_core"), camelCase("evictionHard", "eviction_hard"), misplaced("kubelet_extra_args")}},
		{"block_device_mappings", "class", "  block_device_mappings {\n    device_name = \"/dev/xvda\"\n    %s\n    ebs { volume_size = \"30Gi\" }\n  }\n",
			[]strictMistake{misspelled("root_volumes", "root_volume"), camelCase("rootVolume", "root_volume"), misplaced("volume_size")}},
		{"block_device_mappings.ebs", "class", "  block_device_mappings {\n    device_name = \"/dev/xvda\"\n    ebs {\n      volume_size = \"30Gi\"\n      %s\n    }\n  }\n",
			[]strictMistake{misspelled("volume_tpye", "volume_type"), camelCase("snapshotId", "snapshot_id"), misplaced("device_name")}},
		{"metadata_options", "class", "  metadata_options {\n    http_tokens = \"required\"\n    %s\n  }\n",
			[]strictMistake{misspelled("http_endpont", "http_endpoint"), camelCase("httpEndpoint", "http_endpoint"), misplaced("associate_public_ip_address")}},
		{"bootstrap", "class", "  bootstrap {\n    format = \"nodeadm\"\n    %s\n  }\n",
			[]strictMistake{misspelled("pre_bootstrap_scripts", "pre_bootstrap_script"), camelCase("nodeLabels", "node_labels"), misplaced("max_pods")}},
		// Taints have only one-word fields: the camelCase key is the field
		// of a Kubernetes Taint the provider does not take.
		{"bootstrap.register_with_taints", "class", "  bootstrap {\n    format = \"nodeadm\"\n    register_with_taints {\n      key    = \"example.com/gpu\"\n      effect = \"NoSchedule\"\n      %s\n    }\n  }\n",
			[]strictMistake{misspelled("vaule", "value"), camelCase("timeAdded", ""), misplaced("operator")}},
		{"network_interfaces", "class", "  network_interfaces {\n    network_card_index = 0\n    device_index       = 0\n    interface_type     = \"interface\"\n    %s\n  }\n",
			[]strictMistake{misspelled("device_indx", ""), camelCase("networkCardIndex", ""), misplaced("associate_public_ip_address")}},
		{"placement_group_selector", "class", "  placement_group_selector {\n    name = \"training\"\n    %s\n  }\n",
			[]strictMistake{misspelled("idd", "id"), camelCase("groupName", ""), misplaced("tags")}},
		{"connection_tracking", "class", "  connection_tracking {\n    udp_timeout = 30\n    %s\n  }\n",
			[]strictMistake{misspelled("udp_stream_timout", "udp_stream_timeout"), camelCase("tcpEstablishedTimeout", ""), misplaced("http_tokens")}},
		{"cpu_options", "class", "  cpu_options {\n    nested_virtualization = \"disabled\"\n    %s\n  }\n",
			[]strictMistake{misspelled("nested_virtualisation", ""), camelCase("nestedVirtualization", ""), misplaced("max_pods")}},
		// Kubernetes object metadata has only one-word fields here: the
		// camelCase key is an ObjectMeta field the provider does not take.
		{"metadata", "class", "  metadata {\n    labels = { team = \"ml\" }\n    %s\n  }\n",
			[]strictMistake{misspelled("annotation", "annotations"), camelCase("ownerReferences", ""), misplaced("name")}},
		{"metadata", "pool", "  metadata {\n    annotations = { \"kubernetes.io/description\" = \"general\" }\n    %s\n  }\n",
			[]strictMistake{misspelled("label", "labels"), camelCase("generateName", ""), misplaced("namespace")}},
		{"requirements", "pool", "  requirements {\n    key      = \"karpenter.k8s.aws/instance-family\"\n    operator = \"In\"\n    values   = [\"m5\"]\n    %s\n  }\n",
			[]strictMistake{misspelled("minvalues", "min_values"), camelCase("minValues", "min_values"), misplaced("effect")}},
		{"taints", "pool", taint("taints"),
			[]strictMistake{misspelled("vaule", "value"), camelCase("timeAdded", ""), misplaced("operator")}},
		{"startup_taints", "pool", taint("startup_taints"),
			[]strictMistake{misspelled("valeu", "value"), camelCase("timeAdded", ""), misplaced("values")}},
		{"disruption", "pool", "  disruption {\n    consolidate_after = \"1m\"\n    %s\n  }\n",
			[]strictMistake{misspelled("consolidation_polcy", "consolidation_policy"), camelCase("consolidationPolicy", "consolidation_policy"),
				misplaced("weight"), camelCase("expireAfter", "")}},
		// The v1beta1 kubelet tombstone (v1beta1-kubelet-on-nodepool) is a
		// block like the class's, so its keys are checked too.
		{"kubelet", "pool", "  kubelet {\n    max_pods = 110\n    %s\n  }\n",
			[]strictMistake{misspelled("pods_per_cor", "pods_per_core"), camelCase("evictionHard", "eviction_hard"), misplaced("expire_after")}},
		// Budgets have only one-word fields: the camelCase key is their
		// parent's, written one level too deep.
		{"disruption.budgets", "pool", "  disruption {\n    consolidate_after = \"1m\"\n    budgets {\n      nodes = \"10%%\"\n      %s\n    }\n  }\n",
			[]strictMistake{misspelled("reason", "reasons"), camelCase("consolidateAfter", ""), misplaced("consolidation_policy")}},
		{"requirements", "overlay", "  requirements {\n    key      = \"karpenter.k8s.aws/instance-family\"\n    operator = \"In\"\n    values   = [\"m5\"]\n    %s\n  }\n",
			[]strictMistake{misspelled("valeus", ""), camelCase("minValues", ""), misplaced("price")}},
		{"ami_selector_terms", "karpenter_amis", "  ami_selector_terms {\n    alias = \"al2023@v20251209\"\n    %s\n  }\n",
			[]strictMistake{misspelled("owners", "owner"), camelCase("ssmParameter", "ssm_parameter"), misplaced("kubernetes_version")}},
		{"ami_selector_terms", "karpenter_ami", "  ami_selector_terms {\n    tags = { \"karpenter.sh/discovery\" = \"demo\" }\n    %s\n  }\n",
			[]strictMistake{misspelled("aliass", "alias"), camelCase("ssmParameter", "ssm_parameter"), misplaced("instance_type")}},
		{"requirements", "karpenter_instance_types", "  requirements {\n    key      = \"karpenter.k8s.aws/instance-family\"\n    operator = \"In\"\n    values   = [\"m5\"]\n    %s\n  }\n",
			[]strictMistake{misspelled("min_value", "min_values"), camelCase("minValues", "min_values"), misplaced("instance_types")}},
	}
}

// strictConfig is a configuration holding object o with line in place of
// its %s, and the line number of that line. It starts with a terraform
// block so that plugin-testing writes it unchanged (it prepends its own
// otherwise) and the number is the one Terraform reports.
func strictConfig(o strictObject, line string) (string, int, string) {
	var header, fixed string
	switch o.owner {
	case "class":
		header = `resource "karpenter_ec2nodeclass" "x"`
		fixed = "  name = \"x\"\n  role = \"KarpenterNodeRole-demo\"\n"
		for _, def := range []struct{ name, hcl string }{
			{"ami_selector_terms", `  ami_selector_terms { alias = "al2023@v20251209" }`},
			{"subnet_selector_terms", `  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }`},
			{"security_group_selector_terms", `  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }`},
		} {
			if def.name != o.name {
				fixed += def.hcl + "\n"
			}
		}
	case "pool":
		header = `resource "karpenter_nodepool" "x"`
		fixed = "  name       = \"x\"\n  node_class = { name = \"shared\" }\n"
	case "overlay":
		header = `resource "karpenter_nodeoverlay" "x"`
		fixed = "  name = \"x\"\n"
	case "karpenter_ami":
		header = `data "karpenter_ami" "x"`
		fixed = "  instance_type = \"m5.large\"\n"
	default:
		header = `data "` + o.owner + `" "x"`
	}
	const marker = "\x00"
	body := fmt.Sprintf(o.template, marker)
	cfg := "terraform {}\n\nprovider \"karpenter\" {}\n\n" + header + " {\n" + fixed + body + "}\n"
	before, _, _ := strings.Cut(cfg, marker)
	return strings.Replace(cfg, marker, line, 1), strings.Count(before, "\n") + 1, header
}

// strictBatch puts the resource or data source of each configuration
// (strictConfig's, renamed m0, m1, ... so they stand side by side) into one
// configuration under one provider block, and returns it with the line in
// main.tf (after writeMain's preamble) of each one's line l[i] (a line of
// its own configuration) and of its first line. One terraform validate
// then reports every decoding error at once: one terraform run instead of
// one per case.
func strictBatch(cfgs []string, l []int, headers []string) (config string, lines, starts []int) {
	var b strings.Builder
	b.WriteString("provider \"karpenter\" {}\n")
	lines, starts = make([]int, len(cfgs)), make([]int, len(cfgs))
	n := strings.Count(mainPreamble, "\n") + 2 // lines written so far
	for i, cfg := range cfgs {
		at := strings.Index(cfg, headers[i])
		block := strings.Replace(cfg[at:], headers[i], strings.TrimSuffix(headers[i], `"x"`)+fmt.Sprintf(`"m%d"`, i), 1)
		b.WriteString("\n")
		starts[i] = n + 1
		lines[i] = n + l[i] - strings.Count(cfg[:at], "\n")
		b.WriteString(block)
		n += 1 + strings.Count(block, "\n")
	}
	return b.String(), lines, starts
}

func TestAccStrictConfigurationObjects(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	withoutAWS(t)
	seen := map[string]bool{}
	var cfgs, headers, names []string
	var at []int
	var mistakes []strictMistake
	for _, o := range strictObjects() {
		seen[o.owner+"."+o.name] = true
		for _, m := range o.mistakes {
			cfg, line, header := strictConfig(o, m.key+" = \"x\"")
			cfgs, at, headers = append(cfgs, cfg), append(at, line), append(headers, header)
			names, mistakes = append(names, o.owner+"/"+o.name+"/"+m.kind+"/"+m.key), append(mistakes, m)
		}
	}
	config, lines, _ := strictBatch(cfgs, at, headers)
	diags := terraformDiagnostics(t, config, "validate", "-json")
	for i, m := range mistakes {
		t.Run(names[i], func(t *testing.T) {
			want := fmt.Sprintf("An argument named %q is not expected here.", m.key)
			if m.suggest != "" {
				want += fmt.Sprintf(" Did you mean %q?", m.suggest)
			}
			for _, d := range diags {
				if d.Summary == "Unsupported argument" && d.Range != nil && d.Range.Start.Line == lines[i] {
					if got := strings.Join(strings.Fields(d.Detail), " "); !strings.Contains(got, want) {
						t.Errorf("line %d: %q, want %q", lines[i], got, want)
					}
					return
				}
			}
			t.Errorf("no Unsupported argument error at line %d (%s) among:\n%s", lines[i], m.key, formatDiags(diags))
		})
	}
	// Every block of every schema is tried: a new block needs its cases.
	for owner, blocks := range schemaBlocks(t) {
		for _, b := range blocks {
			if !seen[owner+"."+b] {
				t.Errorf("no strict-configuration cases for %s block %s", owner, b)
			}
		}
	}
}

// schemaBlocks lists the blocks of every resource and data source, nested
// ones as parent.child, by the owner names of strictObjects.
func schemaBlocks(t *testing.T) map[string][]string {
	t.Helper()
	resp, err := providerserver.NewProtocol6(New("test")())().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	var walk func(owner, prefix string, b *tfprotov6.SchemaBlock)
	walk = func(owner, prefix string, b *tfprotov6.SchemaBlock) {
		for _, nb := range b.BlockTypes {
			out[owner] = append(out[owner], prefix+nb.TypeName)
			walk(owner, prefix+nb.TypeName+".", nb.Block)
		}
	}
	owners := map[string]string{"karpenter_ec2nodeclass": "class", "karpenter_nodepool": "pool", "karpenter_nodeoverlay": "overlay"}
	for name, s := range resp.ResourceSchemas {
		walk(owners[name], "", s.Block)
	}
	for name, s := range resp.DataSourceSchemas {
		walk(name, "", s.Block)
	}
	if len(out["class"]) == 0 || len(out["pool"]) == 0 {
		t.Fatalf("no blocks found: %v", out)
	}
	return out
}

// The valid template of every object passes validation, so the failures
// above come from the mistaken key alone.
func TestAccStrictConfigurationTemplatesAreValid(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	withoutAWS(t)
	var cfgs, headers []string
	var at []int
	objects := strictObjects()
	for _, o := range objects {
		cfg, line, header := strictConfig(o, "")
		cfgs, at, headers = append(cfgs, cfg), append(at, line), append(headers, header)
	}
	config, _, starts := strictBatch(cfgs, at, headers)
	for _, d := range terraformDiagnostics(t, config, "validate", "-json") {
		if strings.HasPrefix(d.Summary, "Unsupported") || strings.HasPrefix(d.Summary, "Missing") {
			where := "the provider block"
			for i, o := range objects {
				if d.Range != nil && starts[i] <= d.Range.Start.Line {
					where = o.owner + "/" + o.name
				}
			}
			t.Errorf("%s: %s: %s", where, d.Summary, d.Detail)
		}
	}
}

// A module builds requirements from a variable with a dynamic block: the
// manifest is the one the literal blocks render.
func TestAccDynamicRequirementsRenderAsLiteralBlocks(t *testing.T) {
	withoutAWS(t)
	cfg := `
provider "karpenter" {}

variable "requirements" {
  type = list(object({
    key        = string
    operator   = string
    values     = optional(list(string))
    min_values = optional(number)
  }))
  default = [
    { key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["m5", "c5", "r5"], min_values = 2 },
    { key = "karpenter.sh/capacity-type", operator = "In", values = ["spot", "on-demand"] },
    { key = "karpenter.k8s.aws/instance-gpu-count", operator = "DoesNotExist" },
  ]
}

resource "karpenter_nodepool" "dynamic" {
  name       = "general"
  node_class = { name = "shared" }
  dynamic "requirements" {
    for_each = var.requirements
    content {
      key        = requirements.value.key
      operator   = requirements.value.operator
      values     = requirements.value.values
      min_values = requirements.value.min_values
    }
  }
}

resource "karpenter_nodepool" "literal" {
  name       = "general"
  node_class = { name = "shared" }
  requirements {
    key        = "karpenter.k8s.aws/instance-family"
    operator   = "In"
    values     = ["m5", "c5", "r5"]
    min_values = 2
  }
  requirements {
    key      = "karpenter.sh/capacity-type"
    operator = "In"
    values   = ["spot", "on-demand"]
  }
  requirements {
    key      = "karpenter.k8s.aws/instance-gpu-count"
    operator = "DoesNotExist"
  }
}
`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.CompareValuePairs("karpenter_nodepool.dynamic", tfjsonpath.New("manifest"), "karpenter_nodepool.literal", tfjsonpath.New("manifest"), compare.ValuesSame()),
				statecheck.ExpectKnownValue("karpenter_nodepool.dynamic", tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(
					`(?s)requirements:\n.*key: karpenter.k8s.aws/instance-family\n *minValues: 2\n.*key: karpenter.sh/capacity-type\n.*key: karpenter.k8s.aws/instance-gpu-count\n *operator: DoesNotExist\n`))),
			},
		}},
	})
}
