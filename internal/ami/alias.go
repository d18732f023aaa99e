package ami

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Alias is a parsed `family@version` alias.
type Alias struct {
	Family  amifamily.Family
	Version string
}

// LatestVersion selects the recommended/latest SSM parameter.
const LatestVersion = amifamily.LatestVersion

func (a Alias) String() string { return a.Family.AliasName() + "@" + a.Version }

// Latest reports whether the alias follows new releases.
func (a Alias) Latest() bool { return a.Version == LatestVersion }

// maxAliasLength is the CRD's maxLength on amiSelectorTerms[].alias.
const maxAliasLength = 30

var (
	// The CRD pattern, unanchored on the right like CEL's matches().
	aliasCRDPattern = regexp.MustCompile(`^[a-zA-Z0-9]+@.+$`)
)

// ParseAlias validates an alias the way the CRD and the controller do, for
// the Karpenter release kv. Errors are findings at path p; warnings (a
// version shape SSM never publishes) come back with a usable alias.
func ParseAlias(s string, kv versions.Karpenter, p rules.Path) (Alias, rules.Findings) {
	var fs rules.Findings
	if len(s) > maxAliasLength {
		return Alias{}, append(fs, rules.New(RuleAliasFormat, p,
			"%q is %d characters long; the CRD allows at most %d (maxLength). Write `family@version`, e.g. \"al2023@v20251209\".", s, len(s), maxAliasLength))
	}
	if !aliasCRDPattern.MatchString(s) {
		return Alias{}, append(fs, rules.New(RuleAliasFormat, p,
			"%q does not match `family@version`: the API server rejects it with \"'alias' is improperly formatted, must match the format 'family@version'\". Write e.g. \"al2023@latest\" or \"bottlerocket@1.51.0\".", s))
	}
	parts := strings.Split(s, "@")
	if len(parts) != 2 {
		return Alias{}, append(fs, rules.New(RuleAliasMultipleAt, p,
			"%q contains %d `@`. The CRD pattern accepts it, but Karpenter's amiFamilyFromAlias calls log.Fatalf(\"failed to parse AMI alias %q, invalid format\") and the controller process exits. Keep exactly one `@`, e.g. %q.",
			s, len(parts)-1, s, parts[0]+"@"+parts[1]))
	}
	familyName, version := parts[0], parts[1]
	family, ok := amifamily.FromAlias(familyName, kv)
	if !ok {
		return Alias{}, append(fs, rules.New(RuleAliasFamily, p, "%s", familyError(familyName, kv)))
	}
	a := Alias{Family: family, Version: version}
	m := family.Model()
	if !m.Pinnable() && version != LatestVersion {
		return Alias{}, append(fs, rules.New(RuleAliasWindowsVersion, p,
			"%q pins a version, but the API server rejects Windows aliases with any version other than `latest` (\"windows families may only specify version 'latest'\"): Karpenter reads only the ami-windows-latest SSM parameter. Write %q.",
			s, family.AliasName()+"@latest"))
	}
	if !a.Latest() {
		if problem := m.ReleaseShapeProblem(s, version); problem != "" {
			fs = append(fs, rules.New(RuleAliasVersionShape, p, "%s", problem))
		}
	}
	return a, fs
}

func familyError(name string, kv versions.Karpenter) string {
	var valid []string
	for _, f := range amifamily.AliasFamilies() {
		if f.AvailableIn(kv) {
			valid = append(valid, "'"+f.AliasName()+"'")
		}
	}
	msg := fmt.Sprintf("alias family %q: the API server rejects it with \"family is not supported, must be one of the following: %s\".", name, strings.Join(valid, ", "))
	lower := strings.ToLower(name)
	for _, f := range amifamily.AliasFamilies() {
		if f.AliasName() != lower {
			continue
		}
		if why := f.Model().Unavailable(kv); why != "" {
			return msg + fmt.Sprintf(" %q: %s (the checks run against Karpenter %s).", lower, why, kv)
		}
		return msg + fmt.Sprintf(" The family is case-sensitive: write %q.", lower)
	}
	return msg
}

// The rules the checks of this file emit.
var (
	RuleAliasFormat = rules.Register(rules.Rule{
		ID: "alias-format", Severity: rules.Error, Category: category,
		Title:     "an alias must be family@version",
		Behaviour: "CRD rules: `maxLength: 30` and \"'alias' is improperly formatted, must match the format 'family@version'\" (`^[a-zA-Z0-9]+@.+$`).",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go AMISelectorTerm.Alias",
		Bad:       term(`alias = "al2023-latest"`),
		Good:      term(`alias = "al2023@latest"`),
	})
	RuleAliasMultipleAt = rules.Register(rules.Rule{
		ID: "alias-multiple-at", Severity: rules.Error, Category: category,
		Title:     "an alias with more than one `@` crashes Karpenter",
		Behaviour: "`al2023@v1@x` passes the CRD pattern, but amiFamilyFromAlias/amiVersionFromAlias call log.Fatalf when the alias does not split into exactly two parts: the Karpenter controller process exits and restarts in a loop.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go amiFamilyFromAlias, amiVersionFromAlias",
		Bad:       term(`alias = "al2023@v20251209@x"`),
		Good:      term(`alias = "al2023@v20251209"`),
	})
	RuleAliasFamily = rules.Register(rules.Rule{
		ID: "alias-family-unsupported", Severity: rules.Error, Category: category,
		Title:     "the alias family is not one Karpenter knows",
		Behaviour: "CRD rule: \"family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'\". The check is case-sensitive, and `windows2025` exists only from Karpenter 1.9.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL); A PR #8842 (windows2025, v1.9.0)",
		Bad:       term(`alias = "AL2023@latest"`),
		Good:      term(`alias = "al2023@latest"`),
	})
	RuleAliasWindowsVersion = rules.Register(rules.Rule{
		ID: "alias-windows-version", Severity: rules.Error, Category: category,
		Title:     "Windows aliases only take `latest`",
		Behaviour: "CRD rule: \"windows families may only specify version 'latest'\"; Karpenter reads only the ami-windows-latest SSM parameters.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go (CEL), A:pkg/providers/amifamily/windows.go",
		Bad:       term(`alias = "windows2022@2025.11.12"`),
		Good:      term(`alias = "windows2022@latest"`),
	})
	RuleAliasVersionShape = rules.Register(rules.Rule{
		ID: "alias-version-shape", Severity: rules.Warning, Category: category,
		Title:     "the pinned alias version has a shape SSM never publishes",
		Behaviour: "The version is spliced verbatim into the SSM parameter name: AL2/AL2023 releases are `vYYYYMMDD` (with the `v`), Bottlerocket releases `x.y.z` or `x.y.z-<commit>` (a leading `v` is trimmed). Any other shape resolves nothing and the EC2NodeClass never becomes ready.",
		Source:    "A:pkg/providers/amifamily/{al2,al2023,bottlerocket}.go DescribeImageQuery",
		Bad:       term(`alias = "al2023@20251209"`),
		Good:      term(`alias = "al2023@v20251209"`),
	})
)
