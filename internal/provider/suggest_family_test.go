package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/checks"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/cluster"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodeclass"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// At plan, a class without ami_family whose terms say nothing about the
// family (an id from another resource) gets the family of the images they
// select; offline, or with other errors, the finding stays as validate made it.
func TestSuggestFamilyFromTheSelectedImages(t *testing.T) {
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	pd := &ProviderData{
		AWS:       awsclient.NewCache(awsclient.NewClients(awsclient.Config{Region: "us-east-1", MaxRetries: 0, Endpoints: awsclient.Endpoints{EC2: url, SSM: url, EKS: url}})),
		Karpenter: versions.DefaultKarpenter,
		Cluster:   cluster.Settings{Name: "demo", Unknown: map[string]bool{}},
	}
	c := nodeclass.Class{Name: "x", Terms: []ami.Term{{ID: awsemu.CustomBottlerocketNvidiaArm64ID}}, Unknown: rules.Unknowns{}}
	c.Spec.Role = "KarpenterNodeRole-demo"
	c.Spec.SubnetSelectorTerms = []manifest.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}}
	c.Spec.SecurityGroupSelectorTerms = []manifest.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}}
	fs := nodeclass.Validate(c, versions.DefaultKarpenter)
	if len(fs) != 1 || len(fs.ByRule(ami.RuleFamilyRequired.ID)) != 1 {
		t.Fatalf("validate: %v", fs)
	}
	suggest := func(pd *ProviderData, c nodeclass.Class) rules.Findings {
		var d diag.Diagnostics
		return checks.EC2NodeClass(context.Background(), c, classFacts(pd, c, &d)).Own
	}
	got := suggest(pd, c).ByRule(ami.RuleFamilyRequired.ID)
	if len(got) != 1 || !strings.Contains(hclFix(got[0]), `Write ami_family = "Bottlerocket".`) {
		t.Errorf("at plan: %v", got)
	}

	offline := &ProviderData{AWS: awsclient.NewCache(awsclient.NewClients(awsclient.Config{})), Karpenter: versions.DefaultKarpenter}
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EC2"} {
		t.Setenv(k, "")
	}
	if got := suggest(offline, c); got[0].Detail != fs[0].Detail {
		t.Errorf("without AWS the finding must stay: %v", got)
	}
	other := c
	other.Spec.Role = "" // neither role nor instance profile: another error
	if got := suggest(pd, other).ByRule(ami.RuleFamilyRequired.ID); len(got) != 1 || got[0].Detail != fs[0].Detail {
		t.Errorf("with other errors the finding must stay: %v", got)
	}
}
