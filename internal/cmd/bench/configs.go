package main

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/instancetype/realistic"
)

// Variant is a fleet shape.
type Variant string

const (
	// VariantA: every class on the same alias, one set of AWS questions.
	VariantA Variant = "A"
	// VariantB: every class on its own selector: even classes by image name
	// (one DescribeImages each), odd ones by SSM parameter (one
	// GetParameters and one DescribeImages each).
	VariantB Variant = "B"
	// VariantR: variant A's fleet against a region-sized instance-type
	// catalogue (../shared/data, about 1,360 types: 14 pages of
	// DescribeInstanceTypes), where the catalogue's reads show.
	VariantR Variant = "R"
)

// Stack is the Terraform configuration planned for a fleet.
type Stack string

const (
	// StackKarpenter: N karpenter_ec2nodeclass + N karpenter_nodepool.
	StackKarpenter Stack = "karpenter"
	// StackBaseline: 2N terraform_data, no provider plugin at all.
	StackBaseline Stack = "terraform_data"
	// StackConventional: what one writes without this provider, per class
	// a data "aws_ssm_parameter" (aliases, SSM selectors) and a data
	// "aws_ami", per pool a data "aws_ec2_instance_types" (the families
	// exist), and a terraform_data holding each rendered manifest.
	StackConventional Stack = "conventional"
	// StackCompare: StackKarpenter planned by the -compare binary (a
	// before/after in the same rounds).
	StackCompare Stack = "karpenter-compare"
	// StackTime: 2N hashicorp/time time_static, a framework provider with a
	// trivial schema: the floor of any plugin provider.
	StackTime Stack = "time_static"
)

// The alias of variant A and what it means for the demo cluster
// (Kubernetes 1.32): the parameter a conventional stack reads.
const (
	aliasA     = "al2023@v20251209"
	aliasParam = "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.32-v20251209/image_id"
	// poolFamilies are x86_64 families of the fixtures, so every pool
	// fits every class (no mixed-architecture warnings).
	poolFamilies = `["m5", "c5", "t3"]`
)

// benchImageName and benchParam name variant B's image and parameter i.
func benchImageName(i int) string { return fmt.Sprintf("bench-node-al2023-x86_64-%04d-20251201", i) }
func benchImageID(i int) string   { return fmt.Sprintf("ami-0be%014x", i) }
func benchParam(i int) string     { return fmt.Sprintf("/bench/ami/%04d", i) }

// BenchFixtures is the default fixture set plus n self-owned images, each
// also published under an SSM parameter, for variant B's distinct
// selectors. The default fixtures are not changed on disk.
func BenchFixtures(n int) (*awsemu.Fixtures, error) {
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		return nil, err
	}
	tmpl, ok := f.Image(awsemu.CustomTieWinnerID)
	if !ok {
		return nil, fmt.Errorf("default fixtures lack %s", awsemu.CustomTieWinnerID)
	}
	for i := range n {
		img := tmpl
		img.ImageId = aws.String(benchImageID(i))
		img.Name = aws.String(benchImageName(i))
		img.Description = aws.String("benchmark image " + benchImageName(i))
		img.ImageLocation = aws.String(awsemu.AccountID + "/" + benchImageName(i))
		img.CreationDate = aws.String("2025-12-01T00:00:00.000Z")
		img.Tags = []ec2types.Tag{{Key: aws.String("bench"), Value: aws.String(fmt.Sprint(i))}}
		// A 20 GiB root snapshot, so the AL2023 default volume fits.
		img.BlockDeviceMappings = append([]ec2types.BlockDeviceMapping(nil), tmpl.BlockDeviceMappings...)
		for j, bd := range img.BlockDeviceMappings {
			if bd.Ebs != nil {
				ebs := *bd.Ebs
				ebs.VolumeSize = aws.Int32(20)
				img.BlockDeviceMappings[j].Ebs = &ebs
			}
		}
		f.AddImages(img)
		f.AddParameters(ssmtypes.Parameter{
			Name:  aws.String(benchParam(i)),
			Type:  ssmtypes.ParameterTypeString,
			Value: aws.String(benchImageID(i)),
		})
	}
	return f, nil
}

// Config renders the main.tf of a stack for n classes and n pools. url is
// the emulator's.
func Config(stack Stack, v Variant, n int, url string) string {
	var b strings.Builder
	switch stack {
	case StackKarpenter, StackCompare:
		fmt.Fprintf(&b, `terraform {
  required_providers {
    karpenter = { source = "karpenter-tf/karpenter" }
  }
}

provider "karpenter" {
  region = "us-east-1"
  cluster { name = "demo" }
%s}
`, endpointsHCL(url))
		for i := range n {
			fmt.Fprintf(&b, `
resource "karpenter_ec2nodeclass" "c%[1]d" {
  name = "class-%[1]d"
  role = "KarpenterNodeRole-demo"
%[2]s  subnet_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
  security_group_selector_terms { tags = { "karpenter.sh/discovery" = "demo" } }
}

resource "karpenter_nodepool" "p%[1]d" {
  name       = "pool-%[1]d"
  node_class = karpenter_ec2nodeclass.c%[1]d.node_class
  requirements {
    key      = "karpenter.k8s.aws/instance-family"
    operator = "In"
    values   = %[3]s
  }
}
`, i, karpenterTerms(v, i), poolFamilies)
		}
	case StackTime:
		b.WriteString(`terraform {
  required_providers {
    time = { source = "hashicorp/time" }
  }
}
`)
		for i := range n {
			fmt.Fprintf(&b, `
resource "time_static" "c%[1]d" {
  triggers = { name = "class-%[1]d", selector = %[2]q }
}

resource "time_static" "p%[1]d" {
  triggers = { name = "pool-%[1]d", node_class = time_static.c%[1]d.triggers.name }
}
`, i, baselineSelector(v, i))
		}
	case StackBaseline:
		for i := range n {
			fmt.Fprintf(&b, `
resource "terraform_data" "c%[1]d" {
  input = { kind = "EC2NodeClass", name = "class-%[1]d", role = "KarpenterNodeRole-demo", selector = %[2]q }
}

resource "terraform_data" "p%[1]d" {
  input = { kind = "NodePool", name = "pool-%[1]d", node_class = terraform_data.c%[1]d.input.name, families = %[3]s }
}
`, i, baselineSelector(v, i), poolFamilies)
		}
	case StackConventional:
		fmt.Fprintf(&b, `terraform {
  required_providers {
    aws = { source = "hashicorp/aws" }
  }
}

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "bench"
  secret_key                  = "bench"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
%s}
`, endpointsHCL(url))
		for i := range n {
			b.WriteString(conventionalClass(v, i))
			fmt.Fprintf(&b, `
data "aws_ec2_instance_types" "p%[1]d" {
  filter {
    name   = "instance-type"
    values = [for f in %[2]s : "${f}.*"]
  }
}

resource "terraform_data" "p%[1]d" {
  input = yamlencode({
    apiVersion = "karpenter.sh/v1"
    kind       = "NodePool"
    metadata   = { name = "pool-%[1]d" }
    spec = { template = { spec = {
      nodeClassRef = { group = "karpenter.k8s.aws", kind = "EC2NodeClass", name = "class-%[1]d" }
      requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = data.aws_ec2_instance_types.p%[1]d.instance_types }]
    } } }
  })
}
`, i, poolFamilies)
		}
	}
	return b.String()
}

// endpointsHCL is the endpoints block both providers take.
func endpointsHCL(url string) string {
	return fmt.Sprintf("  endpoints {\n    ec2 = %[1]q\n    ssm = %[1]q\n    eks = %[1]q\n    sts = %[1]q\n  }\n", url)
}

func karpenterTerms(v Variant, i int) string {
	switch {
	case v != VariantB:
		return fmt.Sprintf("  ami_selector_terms { alias = %q }\n", aliasA)
	case i%2 == 0:
		return fmt.Sprintf("  ami_family = \"AL2023\"\n  ami_selector_terms {\n    name  = %q\n    owner = \"self\"\n  }\n", benchImageName(i))
	default:
		return fmt.Sprintf("  ami_family = \"AL2023\"\n  ami_selector_terms { ssm_parameter = %q }\n", benchParam(i))
	}
}

func baselineSelector(v Variant, i int) string {
	switch {
	case v != VariantB:
		return "alias=" + aliasA
	case i%2 == 0:
		return "name=" + benchImageName(i)
	default:
		return "ssm=" + benchParam(i)
	}
}

// conventionalClass is one class of the conventional stack: the image looked
// up by SSM parameter (aliases, SSM selectors) or by name, and the manifest
// rendered by hand.
func conventionalClass(v Variant, i int) string {
	var lookup, image string
	switch {
	case v != VariantB || i%2 == 1:
		param := aliasParam
		if v == VariantB {
			param = benchParam(i)
		}
		lookup = fmt.Sprintf(`
data "aws_ssm_parameter" "c%[1]d" {
  name = %[2]q
}

data "aws_ami" "c%[1]d" {
  owners = ["amazon", "self"]
  filter {
    name   = "image-id"
    values = [data.aws_ssm_parameter.c%[1]d.insecure_value]
  }
}
`, i, param)
		image = fmt.Sprintf("{ id = data.aws_ami.c%d.id }", i)
	default:
		lookup = fmt.Sprintf(`
data "aws_ami" "c%[1]d" {
  owners      = ["self"]
  most_recent = true
  filter {
    name   = "name"
    values = [%[2]q]
  }
}
`, i, benchImageName(i))
		image = fmt.Sprintf("{ id = data.aws_ami.c%d.id }", i)
	}
	return lookup + fmt.Sprintf(`
resource "terraform_data" "c%[1]d" {
  input = yamlencode({
    apiVersion = "karpenter.k8s.aws/v1"
    kind       = "EC2NodeClass"
    metadata   = { name = "class-%[1]d" }
    spec = {
      amiFamily                  = "AL2023"
      amiSelectorTerms           = [%[2]s]
      role                       = "KarpenterNodeRole-demo"
      subnetSelectorTerms        = [{ tags = { "karpenter.sh/discovery" = "demo" } }]
      securityGroupSelectorTerms = [{ tags = { "karpenter.sh/discovery" = "demo" } }]
    }
  })
}
`, i, image)
}

// realisticFixtures are BenchFixtures(n) with the region-sized catalogue of
// the research data beside the project in place of the fixtures' types.
func realisticFixtures(n int) (*awsemu.Fixtures, error) {
	dir, err := realistic.Dir()
	if err != nil {
		return nil, err
	}
	its, err := realistic.InstanceTypes(dir)
	if err != nil {
		return nil, err
	}
	f, err := BenchFixtures(n)
	if err != nil {
		return nil, err
	}
	f.InstanceTypes = nil
	f.AddInstanceTypes(its...)
	return f, nil
}
