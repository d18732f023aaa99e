package userdata

import (
	"strconv"
	"strings"
)

// BottlerocketAMIVersion is the Bottlerocket release in an image name
// (Karpenter's extractVersionFromName: the first "-"-separated part that
// starts with "v" and contains a dot), "" when there is none.
func BottlerocketAMIVersion(name string) string {
	for part := range strings.SplitSeq(name, "-") {
		if strings.HasPrefix(part, "v") && strings.Contains(part, ".") {
			return part
		}
	}
	return ""
}

// SupportsDefaultBind is Karpenter's version.SupportsDefaultBind: from
// Bottlerocket 1.46.0 (and for "latest") RAID0 binds the default
// directories; before, it lists them.
func SupportsDefaultBind(version string) bool {
	if version == "latest" {
		return true
	}
	parts := strings.Split(strings.TrimLeft(version, "v"), ".")
	if len(parts) < 3 {
		return false
	}
	major, err := strconv.Atoi(parts[0])
	if err != nil {
		return false
	}
	minor, err := strconv.Atoi(parts[1])
	if err != nil {
		return false
	}
	return major > 1 || (major == 1 && minor >= 46)
}
