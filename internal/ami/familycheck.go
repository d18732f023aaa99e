package ami

import (
	"fmt"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// ValidateFamily applies the CRD rules on amiFamily (enum, required without
// an alias, agreement with the alias). family is "" when unset; familyKnown
// is false when its value is unknown. requireFamily is false for the data
// sources, which render no userData and so do not need one.
func ValidateFamily(family string, familyKnown bool, terms []Term, kv versions.Karpenter, requireFamily bool) rules.Findings {
	if !familyKnown {
		return nil
	}
	var fs rules.Findings
	aliasIdx, hasAlias := AliasTerm(terms)
	if family == "" {
		if requireFamily && !hasAlias && termsDecided(terms) {
			fs = append(fs, rules.New(RuleFamilyRequired, FamilyPath,
				"no amiFamily and no alias: the API server rejects it with \"must specify amiFamily if amiSelectorTerms does not contain an alias\". Set amiFamily to the family of the images the terms select (AL2023, Bottlerocket, AL2, Windows2022, ..., or Custom with your own userData)."))
		}
		return fs
	}
	f, ok := amifamily.Parse(family)
	if !ok || !f.AvailableIn(kv) {
		var valid []string
		for _, f := range amifamily.Families {
			if f.AvailableIn(kv) {
				valid = append(valid, string(f))
			}
		}
		detail := fmt.Sprintf("%q is not an amiFamily of Karpenter %s; the API server accepts only %s.", family, kv, strings.Join(valid, ", "))
		if family == "Ubuntu" {
			detail += " Ubuntu was removed in Karpenter 1.0: use Custom with your own userData, or AL2023."
		} else if ok {
			detail += " " + f.Model().Unavailable(kv) + "."
		} else {
			for _, f := range amifamily.Families {
				if strings.EqualFold(string(f), family) {
					detail += fmt.Sprintf(" The enum is case-sensitive: write %q.", f)
				}
			}
		}
		return append(fs, rules.New(RuleFamilyUnsupported, FamilyPath, "%s", detail))
	}
	if hasAlias && terms[aliasIdx].known(FieldAlias) {
		a, afs := ParseAlias(terms[aliasIdx].Alias, kv, rules.Path{})
		// Custom (Karpenter adds no bootstrap) goes with any alias.
		if !afs.HasErrors() && f.Model().KarpenterBootstraps() && f != a.Family {
			fs = append(fs, rules.New(RuleFamilyAliasMismatch, FamilyPath,
				"amiFamily %q with alias %q: the API server rejects it (\"if set, amiFamily must be '%s' or 'Custom' when using an %s alias\"). Remove amiFamily (it follows the alias), or set it to %q, or to \"Custom\" to supply your own userData.",
				family, terms[aliasIdx].Alias, a.Family, a.Family, a.Family))
		}
	}
	return fs
}

// termsDecided reports whether it is known that no term is an alias.
func termsDecided(terms []Term) bool {
	for _, t := range terms {
		if !t.known(FieldAlias) {
			return false
		}
	}
	return true
}

// ResolvedFamily is amiFamily if set, otherwise the alias family
// (EC2NodeClass.AMIFamily()).
func ResolvedFamily(family string, terms []Term, kv versions.Karpenter) (amifamily.Family, bool) {
	if f, ok := amifamily.Parse(family); ok {
		return f, true
	}
	if i, ok := AliasTerm(terms); ok {
		if a, fs := ParseAlias(terms[i].Alias, kv, rules.Path{}); !fs.HasErrors() {
			return a.Family, true
		}
	}
	return "", false
}

// The rules the checks of this file emit.
var (
	RuleFamilyUnsupported = rules.Register(rules.Rule{
		ID: "ami-family-unsupported", Severity: rules.Error, Category: category,
		Title:     "amiFamily is not in the CRD enum",
		Behaviour: "The CRD enum is AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022 and (from 1.9.0) Windows2025; Ubuntu was dropped at v1.0.0. The API server rejects any other value.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (amiFamily enum)",
		Bad:       "ami_family = \"Ubuntu\"",
		Good:      "ami_family = \"AL2023\"",
	})
	RuleFamilyRequired = rules.Register(rules.Rule{
		ID: "ami-family-required", Severity: rules.Error, Category: category,
		Title:     "amiFamily is required without an alias",
		Behaviour: "CRD rule: \"must specify amiFamily if amiSelectorTerms does not contain an alias\". amiFamily decides the userData format; Karpenter cannot infer it from an image.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL on spec)",
		Bad:       term(`name = "team-eks-node-al2023-*"`),
		Good:      rules.Body(`ami_family = "AL2023"`, term(`name = "team-eks-node-al2023-*"`)),
	})
	RuleFamilyAliasMismatch = rules.Register(rules.Rule{
		ID: "ami-family-alias-mismatch", Severity: rules.Error, Category: category,
		Title:     "amiFamily must match the alias family or be Custom",
		Behaviour: "CRD rules: \"if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias\" (one per family).",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL on spec)",
		Bad:       rules.Body(`ami_family = "AL2"`, term(`alias = "al2023@latest"`)),
		Good:      rules.Body("# ami_family follows the alias", term(`alias = "al2023@latest"`)),
	})
)
