package manifestcheck

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// A fix in the manifest's field names, with the ignore annotation, never
// the provider's attributes: a change the manifest has no field for (a
// provider-only attribute) is left out, and an alternative then stands
// alone.
func TestFixInYAML(t *testing.T) {
	r := &rules.Rule{ID: "x-rule", Severity: rules.Error, Title: "t"}
	ann := rules.Root("annotations")
	terms := rules.Root("ami_selector_terms").Index(0)
	for _, c := range []struct {
		kind *crd.Kind
		fix  rules.Fix
		want string
	}{
		{crd.NodePool, rules.Fix{Field: ann.Key("karpenter.sh/do-not-disrupt"), Value: `"true"`, And: []rules.Fix{{Field: ann.Key("karpenter.sh/do-not-evict"), Remove: true}}},
			" Write `karpenter.sh/do-not-disrupt: \"true\"` under spec.template.metadata.annotations. Remove `karpenter.sh/do-not-evict` from spec.template.metadata.annotations."},
		{crd.EC2NodeClass, rules.Fix{Field: terms.Attr("alias"), Value: `"al2023@v20251209"`, Acknowledge: true, Or: []rules.Fix{{Field: rules.Root("pin_amis"), Value: "true"}}},
			" Write `alias: \"al2023@v20251209\"` under spec.amiSelectorTerms[0]. If the value as written is meant, say why in the object's lint.karpenter-tf.io/ignore annotation: \"x-rule: <why>\"."},
		{crd.EC2NodeClass, rules.Fix{Field: rules.Root("bootstrap").Attr("format"), Value: `"nodeadm"`, Or: []rules.Fix{{Field: rules.Root("ami_family"), Value: `"AL2023"`}}},
			" Write `amiFamily: \"AL2023\"` under spec."},
		{crd.EC2NodeClass, rules.Fix{Field: rules.Root("connection_tracking"), Remove: true},
			" Remove `connectionTracking` from spec."},
		// A setting of the check, not of the object: karpenter-lint's flag.
		{crd.NodePool, rules.KarpenterVersion(`"1.8"`), " Pass --karpenter-version 1.8 once the cluster runs it."},
		{crd.NodePool, rules.Fix{Field: rules.Root("replicas"), Remove: true, Or: []rules.Fix{rules.KarpenterVersion("")}},
			" Remove `replicas` from spec. Or pass --karpenter-version with the release the cluster runs."},
	} {
		f := rules.Finding{Rule: r, Severity: rules.Error, Path: rules.Root("name"), Fix: &c.fix}
		if got := yamlFix(c.kind, f); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
