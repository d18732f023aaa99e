package differential

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	awsssm "github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/patrickmn/go-cache"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/controllers/nodeclass"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	"github.com/aws/karpenter-provider-aws/pkg/providers/ssm"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// kubernetesVersion stands in for Karpenter's version provider (which asks
// the API server).
type kubernetesVersion string

func (v kubernetesVersion) Get(context.Context) string { return string(v) }

type amiCase struct {
	name       string
	kubernetes int // minor; 32 when 0
	terms      []ami.Term
}

// status.amis from Karpenter's AMI provider and its EC2NodeClass AMI
// reconciler, against the emulator, and the provider's resolution of the
// same selector terms: the same images, in the same order, with the same
// requirements.
func TestStatusAMIsMatchKarpenter(t *testing.T) {
	e := newEnv(t)
	cfg := awsemutest.Config(e.url) // the same emulator and clock for both
	clk := clocktesting.NewFakeClock(e.now)
	cases := []amiCase{
		{name: "al2 latest", terms: []ami.Term{{Alias: "al2@latest"}}},
		{name: "al2023 latest", terms: []ami.Term{{Alias: "al2023@latest"}}},
		{name: "al2023 pinned", terms: []ami.Term{{Alias: "al2023@v20251209"}}},
		{name: "al2023 on 1.31", kubernetes: 31, terms: []ami.Term{{Alias: "al2023@latest"}}},
		{name: "bottlerocket latest", terms: []ami.Term{{Alias: "bottlerocket@latest"}}},
		{name: "bottlerocket pinned", terms: []ami.Term{{Alias: "bottlerocket@1.49.0"}}},
		{name: "windows2019", terms: []ami.Term{{Alias: "windows2019@latest"}}},
		{name: "windows2022", terms: []ami.Term{{Alias: "windows2022@latest"}}},
		{name: "windows2025", kubernetes: 35, terms: []ami.Term{{Alias: "windows2025@latest"}}},
		{name: "id", terms: []ami.Term{{ID: "ami-0aaf333b614a08570"}}},
		{name: "tags", terms: []ami.Term{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}}},
		{name: "name and owner", terms: []ami.Term{{Name: "team-eks-node-al2023-*", Owner: "123456789012"}}},
		{name: "two terms", terms: []ami.Term{{Tags: map[string]string{"os": "bottlerocket"}}, {ID: "ami-0e934972f5b537e63"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			minor := c.kubernetes
			if minor == 0 {
				minor = 32
			}
			res, err := e.resolver.Resolve(context.Background(), ami.Request{Terms: c.terms, Kubernetes: versions.Kubernetes{Minor: minor}, Karpenter: karpenter114})
			if err != nil || res.Findings.HasErrors() {
				t.Fatalf("provider: %v %v", err, res.Findings)
			}
			got := statusAMIs(nodepool.ClassFacts{AMIs: res.AMIs})

			provider := amifamily.NewDefaultProvider(clk, kubernetesVersion(fmt.Sprintf("1.%d", minor)),
				ssm.NewDefaultProvider(awsssm.NewFromConfig(cfg), cache.New(time.Minute, time.Minute)),
				ec2.NewFromConfig(cfg), cache.New(time.Minute, time.Minute))
			nc := &awsv1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
			nc.Spec.AMISelectorTerms = karpenterTerms(c.terms)
			if _, err := nodeclass.NewAMIReconciler(clk, provider).Reconcile(context.Background(), nc); err != nil {
				t.Fatalf("Karpenter: %v", err)
			}
			if !reflect.DeepEqual(sameImageOrder(got), sameImageOrder(nc.Status.AMIs)) {
				t.Errorf("status.amis differ\nprovider:  %+v\nKarpenter: %+v", got, nc.Status.AMIs)
			}
			if len(got) == 0 {
				t.Error("no images")
			}
		})
	}
}

func karpenterTerms(ts []ami.Term) []awsv1.AMISelectorTerm {
	out := make([]awsv1.AMISelectorTerm, 0, len(ts))
	for _, t := range ts {
		out = append(out, awsv1.AMISelectorTerm{Alias: t.Alias, ID: t.ID, Name: t.Name, Owner: t.Owner, SSMParameter: t.SSMParameter, Tags: t.Tags})
	}
	return out
}

// sameImageOrder orders entries that share an image by their requirements:
// Karpenter's AMIs.Sort ties them (same creation date and name) and its
// sort is not stable, so their order is the one thing that varies.
func sameImageOrder(amis []awsv1.AMI) []awsv1.AMI {
	out := slices.Clone(amis)
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && out[j].ID == out[i].ID {
			j++
		}
		slices.SortFunc(out[i:j], func(a, b awsv1.AMI) int {
			return strings.Compare(fmt.Sprint(a.Requirements), fmt.Sprint(b.Requirements))
		})
		i = j
	}
	return out
}
