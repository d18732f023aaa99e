package ami

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Term is one amiSelectorTerm. Unknown names the fields whose value is not
// known yet (Terraform plan); checks that need them are skipped.
type Term struct {
	Alias        string
	ID           string
	Name         string
	Owner        string
	SSMParameter string
	Tags         map[string]string
	Unknown      map[string]bool
}

// Field names, as Terraform attributes.
const (
	FieldAlias        = "alias"
	FieldID           = "id"
	FieldName         = "name"
	FieldOwner        = "owner"
	FieldSSMParameter = "ssm_parameter"
	FieldTags         = "tags"
)

// has reports whether the field is known to be set. An unknown value may
// turn out null, so it never counts: checks skip it and run again at plan.
func (t Term) has(field string) bool {
	if t.Unknown[field] {
		return false
	}
	switch field {
	case FieldAlias:
		return t.Alias != ""
	case FieldID:
		return t.ID != ""
	case FieldName:
		return t.Name != ""
	case FieldOwner:
		return t.Owner != ""
	case FieldSSMParameter:
		return t.SSMParameter != ""
	case FieldTags:
		return len(t.Tags) > 0
	}
	return false
}

func (t Term) known(field string) bool { return !t.Unknown[field] }

// AliasTerm returns the first term with an alias, as EC2NodeClass.Alias()
// does: when any term has an alias, every other term is ignored.
func AliasTerm(terms []Term) (int, bool) {
	for i, t := range terms {
		if t.Alias != "" {
			return i, true
		}
	}
	return -1, false
}

// MaxTerms is the CRD's maxItems on amiSelectorTerms.
const MaxTerms = 30

// maxSelectorTags is the CRD's maxProperties on selector tags.
const maxSelectorTags = 20

var amiIDPattern = regexp.MustCompile(`^ami-[0-9a-z]+$`)

// TermsPath is where the terms live in both the data sources and the
// EC2NodeClass resource.
var TermsPath = rules.Root("ami_selector_terms")

// ValidateTerms applies every rule decidable from the terms alone (CRD CEL
// rules on amiSelectorTerms in aws/karpenter-provider-aws
// pkg/apis/v1/ec2nodeclass.go, the gaps those rules leave that
// DescribeImageQueries then ignores, alias syntax) for Karpenter release kv.
func ValidateTerms(terms []Term, kv versions.Karpenter) rules.Findings {
	var fs rules.Findings
	if len(terms) == 0 || len(terms) > MaxTerms {
		f := rules.New(RuleTermsCount, TermsPath,
			"%d terms given; the EC2NodeClass CRD requires 1 to %d (minItems/maxItems). Select images with an alias (e.g. al2023@latest) or with id/name/tags/ssmParameter terms.", len(terms), MaxTerms)
		if len(terms) == 0 {
			f = f.WithFix(rules.Fix{Field: TermsPath.Index(0).Attr(FieldAlias), Value: `"al2023@latest"`})
		}
		fs = append(fs, f)
	}
	aliasIdx, hasAlias := AliasTerm(terms)
	for i, t := range terms {
		p := TermsPath.Index(i)
		present := presentFields(t)
		if len(t.Unknown) == 0 && !t.has(FieldAlias) && !t.has(FieldID) && !t.has(FieldName) && !t.has(FieldTags) && !t.has(FieldSSMParameter) {
			detail := "the term sets none of alias, id, name, tags or ssmParameter"
			if t.Owner != "" {
				detail = fmt.Sprintf("the term sets only owner %q", t.Owner)
			}
			fs = append(fs, rules.New(RuleTermEmpty, p,
				"%s; the API server rejects it with \"expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']\". Add a name or tags next to the owner.", detail).
				WithFix(rules.Fix{Field: p.Attr(FieldName), Value: `"<image name pattern>"`}))
		}
		if t.has(FieldID) {
			if others := without(present, FieldID); len(others) > 0 {
				fs = append(fs, rules.New(RuleTermIDExclusive, p,
					"the term sets id together with %s. The API server rejects id with alias/name/tags/owner (\"'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms\"), and with ssmParameter Karpenter silently uses the id and ignores the parameter. Put each selector in its own term.",
					fieldNames(others)).WithFix(rules.Fix{Field: TermsPath.Index(len(terms)).Attr(FieldID), Value: strconv.Quote(t.ID),
					And: []rules.Fix{{Field: p.Attr(FieldID), Remove: true}}}))
			}
			if t.known(FieldID) && !amiIDPattern.MatchString(t.ID) {
				fs = append(fs, rules.New(RuleTermIDPattern, p.Attr(FieldID),
					"%q is not an AMI id. The CRD's unanchored pattern `ami-[0-9a-z]+` may accept it, but EC2 matches no image and the EC2NodeClass never becomes ready. Write the whole id, e.g. \"ami-0123456789abcdef0\" (lowercase hex, no spaces).", t.ID))
			}
		}
		if t.has(FieldAlias) {
			if others := without(present, FieldAlias); len(others) > 0 {
				fs = append(fs, rules.New(RuleTermAliasExclusive, p,
					"the term sets alias together with %s. The API server rejects that (\"'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms\"; for ssmParameter Karpenter ignores it). An alias selects its images on its own: keep alias %q alone in its term.",
					fieldNames(others), t.Alias).WithFix(rules.Removal(fieldsOf(p, others)...)))
			}
			if t.known(FieldAlias) {
				_, afs := ParseAlias(t.Alias, kv, p.Attr(FieldAlias))
				fs = append(fs, afs...)
			}
		}
		if !t.has(FieldID) && !t.has(FieldAlias) && t.has(FieldSSMParameter) {
			if others := without(present, FieldSSMParameter); len(others) > 0 {
				fs = append(fs, rules.New(RuleTermSSMIgnoredFields, p,
					"the term sets ssmParameter %q together with %s. Karpenter resolves the parameter and never looks at the other fields of the term, so they filter nothing. Remove them, or put them in a term of their own.",
					t.SSMParameter, fieldNames(others)))
			}
		}
		if t.has(FieldSSMParameter) && !kv.AtLeast(4, 0) {
			fs = append(fs, rules.New(RuleSSMParameterVersion, p.Attr(FieldSSMParameter),
				"ssmParameter needs Karpenter 1.4.0 or later (PR #7341) and the checks run against Karpenter %s: the older CRD prunes the field, which leaves an empty term the API server rejects. Upgrade Karpenter, or resolve the parameter yourself and select the image by its id.", kv).
				WithFix(rules.KarpenterVersion(`"1.4"`)))
		}
		if t.known(FieldTags) {
			fs = append(fs, validateSelectorTags(t.Tags, p.Attr(FieldTags))...)
		}
		if t.known(FieldOwner) && strings.Contains(t.Owner, ",") {
			var split []string
			for _, o := range strings.Split(t.Owner, ",") {
				split = append(split, fmt.Sprintf("{ ..., owner = %q }", strings.TrimSpace(o)))
			}
			fs = append(fs, rules.New(RuleOwnerComma, p.Attr(FieldOwner),
				"owner %q: Karpenter sends it as one element of DescribeImages Owners and never splits on commas, so EC2 looks for an owner literally named %q. Write one term per owner: %s.",
				t.Owner, t.Owner, strings.Join(split, ", ")))
		}
	}
	if hasAlias && len(terms) != 1 {
		fs = append(fs, rules.New(RuleTermAliasExclusive, TermsPath,
			"term %d is an alias and there are %d terms. The API server rejects that (\"'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms\"), and Karpenter would ignore every other term. Keep only the alias term (%q), or drop the alias and select images by id/name/tags.",
			aliasIdx, len(terms), terms[aliasIdx].Alias))
	}
	return fs
}

func validateSelectorTags(tags map[string]string, p rules.Path) rules.Findings {
	var fs rules.Findings
	if len(tags) > maxSelectorTags {
		fs = append(fs, rules.New(RuleTermTagsEmpty, p,
			"%d tags; the CRD allows at most %d per selector term (maxProperties). Split the selector into several terms.", len(tags), maxSelectorTags))
	}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" {
			fs = append(fs, rules.New(RuleTermTagsEmpty, p,
				"a tag has an empty key; the API server rejects it (\"empty tag keys or values aren't supported\")."))
		} else if tags[k] == "" {
			fs = append(fs, rules.New(RuleTermTagsEmpty, p.Key(k),
				"tag %q has an empty value; the API server rejects it (\"empty tag keys or values aren't supported\"). To match any value of the tag write %q = \"*\" (Karpenter turns it into a tag-key filter).", k, k))
		}
	}
	return fs
}

func presentFields(t Term) []string {
	var out []string
	for _, f := range []string{FieldAlias, FieldID, FieldName, FieldOwner, FieldSSMParameter, FieldTags} {
		if t.has(f) {
			out = append(out, f)
		}
	}
	return out
}

func without(fields []string, drop string) []string {
	var out []string
	for _, f := range fields {
		if f != drop {
			out = append(out, f)
		}
	}
	return out
}

// fieldNames are fields of a term as the manifest names them (the
// attribute paths' names differ for ssmParameter only), comma-separated.
func fieldNames(fields []string) string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f
		if f == FieldSSMParameter {
			out[i] = "ssmParameter"
		}
	}
	return strings.Join(out, ", ")
}

// fieldsOf are the paths of fields of the term at p.
func fieldsOf(p rules.Path, fields []string) []rules.Path {
	out := make([]rules.Path, len(fields))
	for i, f := range fields {
		out[i] = p.Attr(f)
	}
	return out
}

// The rules the checks of this file emit.
var (
	RuleTermsCount = rules.Register(rules.Rule{
		ID: "ami-terms-count", Severity: rules.Error, Category: category,
		Title:     "amiSelectorTerms must have 1 to 30 terms",
		Behaviour: "The EC2NodeClass CRD declares `minItems: 1` and `maxItems: 30` on `spec.amiSelectorTerms`; the API server rejects the object.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (amiSelectorTerms)",
		Bad:       nodeClass(),
		Good:      nodeClass(term(`alias = "al2023@v20251209"`)),
	})
	RuleTermEmpty = rules.Register(rules.Rule{
		ID: "ami-term-empty", Severity: rules.Error, Category: category,
		Title:     "an AMI selector term selects nothing",
		Behaviour: "CRD rule: \"expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']\". A term with only `owner` (or nothing) is rejected by the API server.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go AMISelectorTerm (x-kubernetes-validations)",
		Bad:       custom(term(`owner = "self"`)),
		Good:      custom(term(`owner = "self"`, `name = "team-eks-node-*"`)),
	})
	RuleTermIDExclusive = rules.Register(rules.Rule{
		ID: "ami-term-id-exclusive", Severity: rules.Error, Category: category,
		Title:     "`id` cannot be combined with other fields of its term",
		Behaviour: "CRD rule: \"'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms\". The CEL rule forgets `ssmParameter`; Karpenter's DescribeImageQueries then uses `id` and silently ignores `ssmParameter`, so this provider rejects that pair too.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL), A:pkg/providers/amifamily/ami.go DescribeImageQueries (switch: id > ssmParameter > name/tags)",
		Bad:       custom(term(`id = "ami-0123456789abcdef0"`, `name = "team-*"`)),
		Good:      custom(term(`id = "ami-0123456789abcdef0"`), term(`name = "team-*"`)),
	})
	RuleTermAliasExclusive = rules.Register(rules.Rule{
		ID: "ami-term-alias-exclusive", Severity: rules.Error, Category: category,
		Title:     "an alias must be the only field and the only term",
		Behaviour: "CRD rules: \"'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms\" and \"... with a combination of other amiSelectorTerms\". `ssmParameter` next to an alias passes CEL but is ignored, so it is rejected here as well.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL), EC2NodeClass.Alias()",
		Bad:       rules.Body(term(`alias = "al2023@latest"`), term(`name = "team-*"`)),
		Good:      term(`alias = "al2023@latest"`),
	})
	RuleTermSSMIgnoredFields = rules.Register(rules.Rule{
		ID: "ami-term-ssm-parameter-exclusive", Severity: rules.Error, Category: category,
		Title:     "`ssm_parameter` ignores the other fields of its term",
		Behaviour: "DescribeImageQueries resolves a term with `ssmParameter` to that parameter's image and never looks at its `name`, `tags` or `owner`; the CRD does not forbid the combination, so the fields are silently ignored.",
		Source:    "A:pkg/providers/amifamily/ami.go DescribeImageQueries",
		Bad:       custom(term(`ssm_parameter = "/platform/ami/al2023"`, `owner = "self"`)),
		Good:      custom(term(`ssm_parameter = "/platform/ami/al2023"`)),
	})
	RuleTermTagsEmpty = rules.Register(rules.Rule{
		ID: "ami-term-tags-invalid", Severity: rules.Error, Category: category,
		Title:     "selector tags must have non-empty keys and values, at most 20",
		Behaviour: "CRD rule: \"empty tag keys or values aren't supported\" and `maxProperties: 20` on selector tags.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (amiSelectorTerms[].tags)",
		Bad:       custom(term(`tags = { team = "" }`)),
		Good:      custom(term(`tags = { team = "*" }`)),
	})
	RuleTermIDPattern = rules.Register(rules.Rule{
		ID: "ami-term-id-invalid", Severity: rules.Error, Category: category,
		Title:     "an AMI id must look like ami-0123456789abcdef0",
		Behaviour: "The CRD pattern `ami-[0-9a-z]+` is unanchored, so `xami-1y` passes the API server and then matches no image (\"AMISelector did not match any AMIs\"). This provider checks the whole value.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (amiSelectorTerms[].id pattern)",
		Bad:       custom(term(`id = "ami-0123 "`)),
		Good:      custom(term(`id = "ami-0123456789abcdef0"`)),
	})
	RuleOwnerComma = rules.Register(rules.Rule{
		ID: "ami-term-owner-single", Severity: rules.Warning, Category: category,
		Title:     "`owner` is one owner, not a list",
		Behaviour: "Karpenter passes `owner` as a single element of DescribeImages `Owners`; it never splits on commas, so `\"self,amazon\"` asks EC2 for an owner literally named that and matches nothing.",
		Source:    "A:pkg/providers/amifamily/ami.go DescribeImageQueries",
		Bad:       custom(term(`name = "team-*"`, `owner = "self,123456789012"`)),
		Good:      custom(term(`name = "team-*"`, `owner = "self"`), term(`name = "team-*"`, `owner = "123456789012"`)),
	})
	RuleSSMParameterVersion = rules.Register(rules.Rule{
		ID: "ami-term-ssm-parameter-unsupported", Severity: rules.Error, Category: category,
		Title:     "`ssm_parameter` needs Karpenter 1.4",
		Behaviour: "`ssmParameter` was added in Karpenter 1.4.0 (PR #7341). Older CRDs prune the unknown field, which leaves an empty term that the API server rejects.",
		Source:    "A PR #7341 (v1.4.0)",
		Bad:       rules.WithProvider(custom(term(`ssm_parameter = "/platform/ami/al2023"`)), `karpenter_version = "1.3"`),
		Good:      rules.WithProvider(custom(term(`ssm_parameter = "/platform/ami/al2023"`)), `karpenter_version = "1.4"`),
	})
)
