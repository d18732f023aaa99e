package rules_test

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules/rulestest"
)

func TestBlockIsTerraformFmtLayout(t *testing.T) {
	req := rules.Block("requirements", `key = "karpenter.k8s.aws/instance-family"`, `operator = "In"`, `values = ["m5"]`, `min_values = 1`)
	cases := map[string]struct{ got, want string }{
		"one argument on one line": {rules.Block("ebs", `volume_size = "30Gi"`), `ebs { volume_size = "30Gi" }`},
		"empty":                    {rules.Block(`provider "karpenter"`), `provider "karpenter" {}`},
		"arguments aligned": {req, `requirements {
  key        = "karpenter.k8s.aws/instance-family"
  operator   = "In"
  values     = ["m5"]
  min_values = 1
}`},
		"blank line between arguments and blocks, comments kept with their item": {
			rules.Block(`resource "karpenter_nodepool" "x"`, `name = "x"`, `node_class = { name = "x" }`, "# first", req,
				rules.Block("disruption", `consolidate_after = "1m"`, rules.Block("budgets", `nodes = "10%"`)), `weight = 10`),
			`resource "karpenter_nodepool" "x" {
  name       = "x"
  node_class = { name = "x" }

  # first
  requirements {
    key        = "karpenter.k8s.aws/instance-family"
    operator   = "In"
    values     = ["m5"]
    min_values = 1
  }
  disruption {
    consolidate_after = "1m"

    budgets { nodes = "10%" }
  }

  weight = 10
}`},
		"heredoc opening aligned, multi-line map not": {
			rules.Body(`ami_family = "AL2023"`, "user_data = <<-EOT\n  #!/bin/bash\nEOT", `role = "r"`, "tags = {\n  a = \"b\"\n}", `name = "n"`),
			"ami_family = \"AL2023\"\nuser_data  = <<-EOT\n  #!/bin/bash\nEOT\nrole       = \"r\"\ntags = {\n  a = \"b\"\n}\nname = \"n\"",
		},
	}
	for name, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", name, c.got, c.want)
		}
		if p := rulestest.Problems(c.got); len(p) > 0 {
			t.Errorf("%s: %v", name, p)
		}
	}
}

func TestProblemsFindsAttributeSyntaxAndLayout(t *testing.T) {
	for src, want := range map[string]int{
		`requirements = [{ key = "k", operator = "Exists" }]`:            1,
		"ami_selector_terms { alias = \"al2023@latest\" }\nrole = \"r\"": 0,
		"name = \"x\"\nrole_name = \"r\"":                                1, // not aligned
		"x = ":                                                           1, // not HCL
	} {
		if got := rulestest.Problems(src); len(got) != want {
			t.Errorf("%q: %d problems %v, want %d", src, len(got), got, want)
		}
	}
}
