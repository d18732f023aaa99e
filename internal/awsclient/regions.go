package awsclient

import (
	"regexp"
	"slices"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
)

// partitionRegions are the regions of every AWS partition as the pinned
// aws-sdk-go-v2 (v1.47.7) knows them: internal/endpoints/awsrulesfn/
// partitions.json, which the SDK does not export. TestKnownRegionsAreTheSDKs
// holds the table equal to that file of the module in go.mod. AWS adds
// regions between SDK releases, so a region outside it is only suspect.
var partitionRegions = []string{
	"af-south-1", "ap-east-1", "ap-east-2", "ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ap-south-1", "ap-south-2",
	"ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4", "ap-southeast-5", "ap-southeast-6", "ap-southeast-7",
	"ca-central-1", "ca-west-1", "eu-central-1", "eu-central-2", "eu-north-1", "eu-south-1", "eu-south-2", "eu-west-1",
	"eu-west-2", "eu-west-3", "il-central-1", "me-central-1", "me-south-1", "mx-central-1", "sa-east-1", "us-east-1",
	"us-east-2", "us-west-1", "us-west-2",
	"cn-north-1", "cn-northwest-1",
	"eusc-de-east-1",
	"us-iso-east-1", "us-iso-west-1",
	"us-isob-east-1", "us-isob-west-1",
	"eu-isoe-west-1",
	"us-isof-east-1", "us-isof-south-1",
	"us-gov-east-1", "us-gov-west-1",
}

// regionShape is the union of the partitions' regionRegex: a name of this
// shape may be a region AWS added after the SDK release.
var regionShape = regexp.MustCompile(`^(us|eu|ap|sa|ca|me|af|il|mx|cn|eusc-de|us-iso|us-isob|eu-isoe|us-isof|us-gov)-\w+-\d+$`)

// KnownRegion says whether region is a region of an AWS partition as the
// SDK knows them; when it is not, closest is the known region one typo
// away ("us-east1" -> "us-east-1"), and shaped says whether the name has
// the form of a region, so that it may be one AWS opened since.
func KnownRegion(region string) (known bool, closest string, shaped bool) {
	if slices.Contains(partitionRegions, region) {
		return true, "", true
	}
	return false, suggest.Closest(region, partitionRegions), regionShape.MatchString(region)
}
