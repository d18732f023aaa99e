package ami

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Alias is a parsed `family@version` alias.
type Alias struct {
	Family  Family
	Version string
}

// LatestVersion selects the recommended/latest SSM parameter.
const LatestVersion = "latest"

func (a Alias) String() string { return a.Family.AliasName() + "@" + a.Version }

// Latest reports whether the alias follows new releases.
func (a Alias) Latest() bool { return a.Version == LatestVersion }

// maxAliasLength is the CRD's maxLength on amiSelectorTerms[].alias.
const maxAliasLength = 30

var (
	// The CRD pattern, unanchored on the right like CEL's matches().
	aliasCRDPattern = regexp.MustCompile(`^[a-zA-Z0-9]+@.+$`)
	// Release shapes that exist in the SSM trees Karpenter reads
	// (pkg/providers/amifamily/{al2,al2023,bottlerocket}.go).
	eksReleaseShape          = regexp.MustCompile(`^v\d{8}$`)
	bottlerocketReleaseShape = regexp.MustCompile(`^v?\d+\.\d+\.\d+(-[0-9a-f]{8})?$`)
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
	var family Family
	for _, f := range AliasFamilies {
		if f.AliasName() == familyName && f.AvailableIn(kv) {
			family = f
		}
	}
	if family == "" {
		return Alias{}, append(fs, rules.New(RuleAliasFamily, p, "%s", familyError(familyName, kv)))
	}
	a := Alias{Family: family, Version: version}
	if family.IsWindows() && version != LatestVersion {
		return Alias{}, append(fs, rules.New(RuleAliasWindowsVersion, p,
			"%q pins a version, but the API server rejects Windows aliases with any version other than `latest` (\"windows families may only specify version 'latest'\"): Karpenter reads only the ami-windows-latest SSM parameter. Write %q.",
			s, family.AliasName()+"@latest"))
	}
	if !a.Latest() {
		switch family {
		case AL2, AL2023:
			if !eksReleaseShape.MatchString(version) {
				hint := "e.g. \"v20251209\""
				if regexp.MustCompile(`^\d{8}$`).MatchString(version) {
					hint = fmt.Sprintf("%q (with the leading v)", "v"+version)
				}
				fs = append(fs, rules.New(RuleAliasVersionShape, p,
					"%q: EKS AMI releases are named `vYYYYMMDD` and the version is spliced verbatim into the SSM parameter name, so %q resolves nothing. Write %s.", s, version, hint))
			}
		case Bottlerocket:
			if !bottlerocketReleaseShape.MatchString(version) {
				fs = append(fs, rules.New(RuleAliasVersionShape, p,
					"%q: Bottlerocket releases are `x.y.z` or `x.y.z-<8 hex commit>` (a leading v is trimmed), so %q resolves nothing. Write e.g. \"bottlerocket@1.51.0\".", s, version))
			}
		}
	}
	return a, fs
}

func familyError(name string, kv versions.Karpenter) string {
	var valid []string
	for _, f := range AliasFamilies {
		if f.AvailableIn(kv) {
			valid = append(valid, "'"+f.AliasName()+"'")
		}
	}
	msg := fmt.Sprintf("alias family %q: the API server rejects it with \"family is not supported, must be one of the following: %s\".", name, strings.Join(valid, ", "))
	lower := strings.ToLower(name)
	for _, f := range AliasFamilies {
		if f.AliasName() != lower {
			continue
		}
		if !f.AvailableIn(kv) {
			return msg + fmt.Sprintf(" %q needs Karpenter 1.9 or later (karpenter_version is %s).", lower, kv)
		}
		return msg + fmt.Sprintf(" The family is case-sensitive: write %q.", lower)
	}
	return msg
}
