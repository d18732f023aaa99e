package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// 1,500 images match a name selector: DescribeImages answers 1,000 a page,
// and the data source sees all of them through the provider's paginated
// cache, picks the newest as Karpenter does, and reports the 1,499 others.
func TestAccAMIsPaginatesThroughTheProvider(t *testing.T) {
	f, err := awsemu.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 1500 {
		name := fmt.Sprintf("bulk-node-%04d", (i*7919)%1500) // not in creation order
		created := base.Add(time.Duration((i*7919)%1500) * time.Hour)
		f.AddImages(ec2types.Image{
			ImageId: aws.String(fmt.Sprintf("ami-0b%015d", i)), Name: aws.String(name), OwnerId: aws.String(awsemu.AccountID),
			Architecture: ec2types.ArchitectureValuesX8664, State: ec2types.ImageStateAvailable,
			CreationDate: aws.String(created.Format(time.RFC3339)),
		})
	}
	url, srv := awsemutest.StartWith(t, f)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	prov := emulatorProviderHCL(url, "")
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: prov + `
data "karpenter_amis" "bulk" {
  ami_family = "AL2023"
  ami_selector_terms {
    name  = "bulk-node-*"
    owner = "self"
  }
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.karpenter_amis.bulk", tfjsonpath.New("amis"), knownvalue.MapSizeExact(1)),
				statecheck.ExpectKnownValue("data.karpenter_amis.bulk", tfjsonpath.New("amis").AtMapKey("amd64").AtMapKey("name"), knownvalue.StringExact("bulk-node-1499")),
				statecheck.ExpectKnownValue("data.karpenter_amis.bulk", tfjsonpath.New("skipped"), knownvalue.MapSizeExact(1499)),
			},
		}},
	})
	// Each provider process asks one query (Karpenter's state filter is
	// applied to its answer), two pages.
	if n := srv.Stats()["ec2:DescribeImages"]; n == 0 || n%2 != 0 {
		t.Errorf("%d DescribeImages requests, want 2 per provider process", n)
	}
}
