package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The EC2NodeClass fields Karpenter added after 1.0 render into the manifest,
// their invalid forms fail with the rules' messages, and an older
// karpenter_version is told which release introduced the field.
func TestAccEC2NodeClassPost10Fields(t *testing.T) {
	class := func(extra string) string {
		return `
resource "karpenter_ec2nodeclass" "efa" {
  name            = "efa"
  role            = "KarpenterNodeRole-demo"
  ip_prefix_count = 2
  context         = "arn:aws:outposts:us-east-1:111122223333:outpost/op-0123456789abcdef0"
  ami_selector_terms {
    alias = "al2023@v20251209"
  }
  subnet_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
  security_group_selector_terms {
    tags = { "karpenter.sh/discovery" = "demo" }
  }
  block_device_mappings {
    device_name = "/dev/xvda"
    root_volume = true
    ebs {
      volume_size                = "100Gi"
      snapshot_id                = "snap-0123456789abcdef0"
      volume_initialization_rate = 200
    }
  }
` + extra + `
}
`
	}
	fields := `
  network_interfaces {
    network_card_index = 0
    device_index       = 0
    interface_type     = "interface"
  }
  network_interfaces {
    network_card_index = 1
    device_index       = 0
    interface_type     = "efa-only"
  }
  placement_group_selector {
    name = "training"
  }
  connection_tracking {
    tcp_established_timeout = 3600
    udp_timeout             = 30
  }
  cpu_options {
    nested_virtualization = "enabled"
  }`
	prov := emulatorProvider(t, `cluster { name = "demo" }`)
	old := emulatorProvider(t, `cluster { name = "demo" }
  karpenter_version = "1.10"`)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: class(`  connection_tracking {
    udp_timeout = 90
  }`),
				PlanOnly: true, ExpectError: wrapped("connection-tracking-invalid", "90"),
			},
			{
				Config: class(`  network_interfaces {
    network_card_index = 0
    device_index       = 1
    interface_type     = "efa"
  }`),
				PlanOnly: true, ExpectError: wrapped("network-interfaces-invalid"),
			},
			{
				Config: class(`  placement_group_selector {
    name = "training"
    id   = "pg-0123456789abcdef0"
  }`),
				PlanOnly: true, ExpectError: wrapped("placement-group-selector-invalid"),
			},
			{
				Config: class(`  cpu_options {
    nested_virtualization = "on"
  }`),
				PlanOnly: true, ExpectError: wrapped("cpu-options-invalid", "on"),
			},
			{
				// Karpenter 1.10 has no networkInterfaces: the error names the release that has it.
				Config:   old + class(fields),
				PlanOnly: true, ExpectError: wrapped("network-interfaces-invalid", "1.11"),
			},
			{
				Config: prov + class(fields),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("karpenter_ec2nodeclass.efa", tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)`+
						`volumeInitializationRate: 200.*`+
						`connectionTracking:\n    tcpEstablishedTimeout: 3600\n    udpTimeout: 30\n.*`+
						`context: arn:aws:outposts:us-east-1:111122223333:outpost/op-0123456789abcdef0\n.*`+
						`cpuOptions:\n    nestedVirtualization: enabled\n.*`+
						`ipPrefixCount: 2\n.*`+
						`networkInterfaces:\n  - deviceIndex: 0\n    interfaceType: interface\n    networkCardIndex: 0\n  - deviceIndex: 0\n    interfaceType: efa-only\n    networkCardIndex: 1\n.*`+
						`placementGroupSelector:\n    name: training\n`))),
				}},
			},
		},
	})
}
