package nodeclass

import (
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
)

// imageFamily infers which AMI family an image belongs to from what EC2
// says about it. sure is true for EKS-optimized naming and platform fields,
// false for a family word found somewhere in a custom name.
func imageFamily(img awsclient.Image) (f ami.Family, sure bool) {
	name, desc := img.Name, strings.ToLower(img.Description)
	switch {
	case strings.EqualFold(img.Platform, "windows") || strings.HasPrefix(name, "Windows_Server-"):
		return familyWindows, true
	case strings.HasPrefix(name, "bottlerocket-") || strings.HasPrefix(desc, "bottlerocket"):
		return ami.Bottlerocket, true
	case strings.HasPrefix(name, "amazon-eks-node-al2023-") || strings.Contains(desc, "amazon linux 2023"):
		return ami.AL2023, true
	case strings.HasPrefix(name, "amazon-eks-node-") || strings.HasPrefix(name, "amazon-eks-gpu-node-") ||
		strings.HasPrefix(name, "amazon-eks-arm64-node-") || strings.Contains(desc, "amazonlinux2 image"):
		return ami.AL2, true
	}
	lower := strings.ToLower(name)
	switch {
	case strings.Contains(lower, "bottlerocket"):
		return ami.Bottlerocket, false
	case strings.Contains(lower, "al2023"):
		return ami.AL2023, false
	case strings.Contains(lower, "windows"):
		return familyWindows, false
	}
	return "", false
}

// familyWindows stands for any Windows family: images do not say which
// Windows family a class should use beyond the server year, and any of them
// takes PowerShell userData.
const familyWindows ami.Family = "Windows"

func sameFamily(class ami.Family, image ami.Family) bool {
	if image == familyWindows {
		return class.IsWindows()
	}
	return class == image
}
