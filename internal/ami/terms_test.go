package ami

import (
	"strings"
	"testing"
)

func TestValidateTerms(t *testing.T) {
	many := make([]Term, 31)
	for i := range many {
		many[i] = Term{Name: "x"}
	}
	cases := []struct {
		name  string
		terms []Term
		karp  string
		rule  string
		path  string
		want  string
	}{
		{"empty list", nil, "1.14", RuleTermsCount.ID, "ami_selector_terms", "0 terms"},
		{"31 terms", many, "1.14", RuleTermsCount.ID, "ami_selector_terms", "31 terms"},
		{"owner only", []Term{{Owner: "self"}}, "1.14", RuleTermEmpty.ID, "ami_selector_terms[0]", `only owner "self"`},
		{"id with name", []Term{{ID: "ami-0123", Name: "x"}}, "1.14", RuleTermIDExclusive.ID, "ami_selector_terms[0]", "id together with name"},
		{"id with ssm (CEL gap)", []Term{{ID: "ami-0123", SSMParameter: "/p"}}, "1.14", RuleTermIDExclusive.ID, "ami_selector_terms[0]", "id together with ssmParameter"},
		{"id exists in any term", []Term{{ID: "ami-0123"}, {ID: "ami-0456", Owner: "self"}}, "1.14", RuleTermIDExclusive.ID, "ami_selector_terms[1]", "owner"},
		{"id pattern", []Term{{ID: "xami-1y"}}, "1.14", RuleTermIDPattern.ID, "ami_selector_terms[0].id", `"xami-1y"`},
		{"alias with ssm (CEL gap)", []Term{{Alias: "al2023@latest", SSMParameter: "/p"}}, "1.14", RuleTermAliasExclusive.ID, "ami_selector_terms[0]", "alias together with ssmParameter"},
		{"alias not alone", []Term{{Alias: "al2023@latest"}, {Name: "x"}}, "1.14", RuleTermAliasExclusive.ID, "ami_selector_terms", "2 terms"},
		{"ssm with owner", []Term{{SSMParameter: "/p", Owner: "self"}}, "1.14", RuleTermSSMIgnoredFields.ID, "ami_selector_terms[0]", "owner"},
		{"ssm before 1.4", []Term{{SSMParameter: "/p"}}, "1.3", RuleSSMParameterVersion.ID, "ami_selector_terms[0].ssm_parameter", "1.4.0"},
		{"empty tag value", []Term{{Tags: map[string]string{"team": ""}}}, "1.14", RuleTermTagsEmpty.ID, `ami_selector_terms[0].tags["team"]`, `"team" = "*"`},
		{"owner comma", []Term{{Name: "x", Owner: "self,amazon"}}, "1.14", RuleOwnerComma.ID, "ami_selector_terms[0].owner", `owner = "amazon"`},
		{"bad alias", []Term{{Alias: "al2023@a@b"}}, "1.14", RuleAliasMultipleAt.ID, "ami_selector_terms[0].alias", "log.Fatalf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := ValidateTerms(c.terms, kv(c.karp)).ByRule(c.rule)
			if len(fs) != 1 {
				t.Fatalf("want one %s, got %v", c.rule, ValidateTerms(c.terms, kv(c.karp)))
			}
			if fs[0].Path.String() != c.path || !strings.Contains(fs[0].Detail, c.want) {
				t.Fatalf("got %s at %s: %s", fs[0].Rule.ID, fs[0].Path, fs[0].Detail)
			}
		})
	}
}

func TestValidateTermsValidAndUnknown(t *testing.T) {
	for _, terms := range [][]Term{
		{{Alias: "al2023@latest"}},
		{{ID: "ami-0123456789abcdef0"}, {Name: "team-*", Owner: "self"}, {Tags: map[string]string{"team": "*"}}},
		{{SSMParameter: "/platform/ami"}},
		// Unknown values never produce findings that depend on them.
		{{Unknown: map[string]bool{FieldAlias: true}}},
		{{Owner: "self", Unknown: map[string]bool{FieldName: true}}},
		{{ID: "ami-0123", Unknown: map[string]bool{FieldTags: true}}},
	} {
		fs := ValidateTerms(terms, kv("1.14"))
		if len(fs) > 0 {
			t.Errorf("%+v: unexpected %v", terms, fs)
		}
	}
}

func TestValidateFamily(t *testing.T) {
	alias := []Term{{Alias: "al2023@latest"}}
	named := []Term{{Name: "team-*"}}
	cases := []struct {
		family  string
		terms   []Term
		karp    string
		require bool
		rule    string
		want    string
	}{
		{"", named, "1.14", true, RuleFamilyRequired.ID, "must specify amiFamily"},
		{"", named, "1.14", false, "", ""},
		{"", alias, "1.14", true, "", ""},
		{"AL2", alias, "1.14", true, RuleFamilyAliasMismatch.ID, "'AL2023' or 'Custom'"},
		{"Custom", alias, "1.14", true, "", ""},
		{"AL2023", alias, "1.14", true, "", ""},
		{"Ubuntu", named, "1.14", true, RuleFamilyUnsupported.ID, "removed in Karpenter 1.0"},
		{"al2023", named, "1.14", true, RuleFamilyUnsupported.ID, `write "AL2023"`},
		{"Windows2025", named, "1.8", true, RuleFamilyUnsupported.ID, "1.9"},
	}
	for _, c := range cases {
		fs := ValidateFamily(c.family, true, c.terms, kv(c.karp), c.require)
		if c.rule == "" {
			if len(fs) > 0 {
				t.Errorf("%q %+v: unexpected %v", c.family, c.terms, fs)
			}
			continue
		}
		got := fs.ByRule(c.rule)
		if len(got) != 1 || !strings.Contains(got[0].Detail, c.want) || got[0].Path.String() != "ami_family" {
			t.Errorf("%q %+v: want %s containing %q, got %v", c.family, c.terms, c.rule, c.want, fs)
		}
	}
	if fs := ValidateFamily("AL2", false, alias, kv("1.14"), true); len(fs) > 0 {
		t.Errorf("unknown family must not be judged: %v", fs)
	}
	if fs := ValidateFamily("", true, []Term{{Unknown: map[string]bool{FieldAlias: true}}}, kv("1.14"), true); len(fs) > 0 {
		t.Errorf("an unknown alias may exist: %v", fs)
	}
}
