package nodeclass

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
)

// imageFamily infers which AMI family an image belongs to from what EC2
// says about it (see amifamily.FromImage).
func imageFamily(img awsclient.Image) (amifamily.ImageGuess, bool) {
	return amifamily.FromImage(img.Platform, img.Name, img.Description)
}
