package userdata

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/lint"
)

// The examples of the bootstrap block, decoded as the provider decodes the
// block (its arguments, and register_with_taints blocks in order) and
// rendered: Bad must trigger its rule, Good must render without it and
// without errors. A value taken from another resource
// (data.aws_eks_cluster.this.endpoint) is known only at apply; it stands
// for a valid one here.
func TestBootstrapDocsExamples(t *testing.T) {
	checked := 0
	for _, r := range rules.All() {
		if r.Category != lint.RuleFormatMismatch.Category {
			continue
		}
		bad, ok := decodeBootstrap(t, r.Bad)
		if !ok {
			continue
		}
		checked++
		t.Run(r.ID, func(t *testing.T) {
			if _, fs := RenderCustom(bad); len(fs.ByRule(r.ID)) == 0 {
				t.Errorf("Bad example does not trigger %s (got %v):\n%s", r.ID, fs, r.Bad)
			}
			if good, ok := decodeBootstrap(t, r.Good); ok {
				if _, fs := RenderCustom(good); len(fs.ByRule(r.ID)) > 0 || fs.HasErrors() {
					t.Errorf("Good example of %s has findings %v:\n%s", r.ID, fs, r.Good)
				}
			}
		})
	}
	if checked < 8 {
		t.Fatalf("only %d bootstrap examples checked", checked)
	}
}

// decodeBootstrap returns the bootstrap block of the example's
// karpenter_ec2nodeclass; ok is false when it has none.
func decodeBootstrap(t *testing.T, src string) (Bootstrap, bool) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "example.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %s\n%s", diags.Error(), src)
	}
	var blk *hclsyntax.Block
	for _, res := range f.Body.(*hclsyntax.Body).Blocks {
		if res.Type != "resource" || res.Labels[0] != "karpenter_ec2nodeclass" {
			continue
		}
		for _, b := range res.Body.Blocks {
			if b.Type == "bootstrap" {
				blk = b
			}
		}
	}
	if blk == nil {
		return Bootstrap{}, false
	}
	placeholders := map[string]string{
		"data.aws_eks_cluster.this.endpoint":                      "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com",
		"data.aws_eks_cluster.this.certificate_authority[0].data": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==",
	}
	value := func(e hclsyntax.Expression) cty.Value {
		if _, ref := e.(*hclsyntax.ScopeTraversalExpr); ref {
			rng := e.Range()
			p, ok := placeholders[string(rng.SliceBytes([]byte(src)))]
			if !ok {
				t.Fatalf("no placeholder for %s", rng.SliceBytes([]byte(src)))
			}
			return cty.StringVal(p)
		}
		v, d := e.Value(nil)
		if d.HasErrors() {
			t.Fatalf("%s", d.Error())
		}
		return v
	}
	var b Bootstrap
	strs := map[string]*string{
		"cluster_name": &b.ClusterName, "api_server_endpoint": &b.APIServerEndpoint, "certificate_authority": &b.CertificateAuthority,
		"service_cidr": &b.ServiceCIDR, "cluster_dns": &b.ClusterDNS,
		"pre_bootstrap_script": &b.PreBootstrapScript, "post_bootstrap_script": &b.PostBootstrapScript,
	}
	for name, a := range blk.Body.Attributes {
		v := value(a.Expr)
		if p, ok := strs[name]; ok {
			*p = v.AsString()
			continue
		}
		switch name {
		case "format":
			b.Format = BootstrapFormat(v.AsString())
		case "node_labels":
			b.NodeLabels = map[string]string{}
			for it := v.ElementIterator(); it.Next(); {
				k, e := it.Element()
				b.NodeLabels[k.AsString()] = e.AsString()
			}
		case "kubelet_extra_args":
			for it := v.ElementIterator(); it.Next(); {
				_, e := it.Element()
				b.KubeletExtraArgs = append(b.KubeletExtraArgs, e.AsString())
			}
		default:
			t.Fatalf("example uses bootstrap.%s, which the decoder does not know", name)
		}
	}
	for _, tb := range blk.Body.Blocks {
		if tb.Type != "register_with_taints" {
			t.Fatalf("example uses a %s block in bootstrap, which the decoder does not know", tb.Type)
		}
		var tt taints.Taint
		fields := map[string]*string{"key": &tt.Key, "value": &tt.Value, "effect": &tt.Effect}
		for name, a := range tb.Body.Attributes {
			p, ok := fields[name]
			if !ok {
				t.Fatalf("example uses register_with_taints.%s", name)
			}
			*p = value(a.Expr).AsString()
		}
		b.RegisterWithTaints = append(b.RegisterWithTaints, tt)
	}
	return b, true
}
