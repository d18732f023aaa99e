package differential

import (
	"testing"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily/bootstrap"
	ourfamily "github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
)

// The Bottlerocket release the preview reads from the selector terms and
// images decides RAID0's bind command exactly as Karpenter's does.
func TestBottlerocketBindMatchesKarpenter(t *testing.T) {
	old := ami.AMI{ID: "ami-old", Name: "bottlerocket-aws-k8s-1.32-x86_64-v1.40.0-aaaa"}
	recent := ami.AMI{ID: "ami-new", Name: "bottlerocket-aws-k8s-1.32-x86_64-v1.51.0-bbbb"}
	custom := ami.AMI{ID: "ami-custom", Name: "team-node-v2.0.0"}
	unnamed := ami.AMI{ID: "ami-unnamed"}
	cases := []struct {
		name  string
		terms []ami.Term
		amis  []ami.AMI
	}{
		{"alias latest", []ami.Term{{Alias: "bottlerocket@latest"}}, []ami.AMI{old}},
		{"alias pinned old", []ami.Term{{Alias: "bottlerocket@v1.40.0"}}, []ami.AMI{recent}},
		{"alias pinned without v", []ami.Term{{Alias: "bottlerocket@1.51.0"}}, []ami.AMI{old}},
		{"name with version", []ami.Term{{Name: "bottlerocket-aws-k8s-1.32-x86_64-v1.45.0-*"}}, []ami.AMI{recent}},
		{"name with wildcard version", []ami.Term{{Name: "bottlerocket-aws-k8s-1.32-x86_64-v1.5*"}}, []ami.AMI{recent}},
		{"name without version", []ami.Term{{Name: "bottlerocket-aws-k8s-*"}}, []ami.AMI{old, recent}},
		{"id of an old image", []ami.Term{{ID: "ami-old"}}, []ami.AMI{recent, old}},
		{"id of a custom image", []ami.Term{{ID: "ami-custom"}}, []ami.AMI{custom, recent}},
		{"id not resolved", []ami.Term{{ID: "ami-gone"}}, []ami.AMI{old}},
		{"tags", []ami.Term{{Tags: map[string]string{"os": "bottlerocket"}}}, []ami.AMI{unnamed, recent, old}},
		{"tags, images without versions", []ami.Term{{Tags: map[string]string{"os": "bottlerocket"}}}, []ami.AMI{custom, unnamed}},
		{"two ids", []ami.Term{{ID: "ami-custom"}, {ID: "ami-old"}}, []ami.AMI{recent, custom, old}},
		{"no terms", nil, nil},
	}
	binds := map[bool]int{}
	for _, c := range cases {
		statusAMIs := statusAMIs(nodepool.ClassFacts{AMIs: c.amis})
		family := amifamily.GetAMIFamily(awsv1.AMIFamilyBottlerocket, &amifamily.Options{AMISelectorTerms: karpenterTerms(c.terms), AMIs: statusAMIs})
		br, ok := family.UserData(nil, nil, nil, nil, nil, nil, nil).(bootstrap.Bottlerocket)
		if !ok {
			t.Fatalf("%s: Karpenter's Bottlerocket bootstrapper has another type", c.name)
		}
		v := nodepool.AMIVersion(c.terms, c.amis)
		if got := ourfamily.BottlerocketSupportsDefaultBind(v); got != br.EnableDefaultMountPaths {
			t.Errorf("%s: version %q binds the default paths: %v, Karpenter %v", c.name, v, got, br.EnableDefaultMountPaths)
		}
		binds[br.EnableDefaultMountPaths]++
	}
	if binds[true] == 0 || binds[false] == 0 {
		t.Errorf("the table must exercise both commands: %v", binds)
	}
}
