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
