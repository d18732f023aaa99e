package awsclient

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Filter is an EC2 filter: values are ORed, filters are ANDed.
type Filter struct {
	Name   string
	Values []string
}

// ImageQuery is one DescribeImages request, the unit of caching.
type ImageQuery struct {
	Owners            []string
	Filters           []Filter
	IncludeDeprecated bool
	IncludeDisabled   bool
}

// Key is a canonical form of the query: two queries with the same key ask EC2
// the same question (owner and value order do not matter to EC2). Every
// name and value is quoted, so an owner "amazon,self" is not the owners
// [amazon, self].
func (q ImageQuery) Key() string {
	var b strings.Builder
	owners := append([]string(nil), q.Owners...)
	sort.Strings(owners)
	fmt.Fprintf(&b, "owners=%q", owners)
	fs := append([]Filter(nil), q.Filters...)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
	for _, f := range fs {
		vs := append([]string(nil), f.Values...)
		sort.Strings(vs)
		fmt.Fprintf(&b, ";%q=%q", f.Name, vs)
	}
	if q.IncludeDeprecated {
		b.WriteString(";deprecated")
	}
	if q.IncludeDisabled {
		b.WriteString(";disabled")
	}
	return b.String()
}

// Image is the part of an EC2 image the provider reasons about.
type Image struct {
	ID              string
	Name            string
	Description     string
	OwnerID         string
	OwnerAlias      string
	Architecture    string // EC2's value: x86_64, arm64, i386, x86_64_mac, arm64_mac
	State           string
	CreationDate    string // RFC 3339, as EC2 returns it
	DeprecationTime string // RFC 3339 or empty
	Platform        string // "windows" or empty
	RootDeviceName  string
	Tags            map[string]string
	BlockDevices    []BlockDevice
}

// BlockDevice is one block device mapping of an image.
type BlockDevice struct {
	DeviceName    string
	SnapshotID    string
	VolumeSizeGiB int32
	VolumeType    string
}

// Deprecated reports whether the image is deprecated at now, as Karpenter
// decides it: DeprecationTime <= now (pkg/providers/amifamily/ami.go).
func (i Image) Deprecated(now time.Time) bool {
	if i.DeprecationTime == "" {
		return false
	}
	t, err := time.Parse(time.RFC3339, i.DeprecationTime)
	if err != nil {
		return false
	}
	return !t.After(now)
}

// Parameter is the outcome of an SSM lookup: Found is false when SSM answered
// that the parameter does not exist.
type Parameter struct {
	Name  string
	Value string
	Found bool
}

// Cluster is the part of eks:DescribeCluster the provider needs.
type Cluster struct {
	Name                 string
	Version              string
	Endpoint             string
	CertificateAuthority string // base64 PEM, as EKS returns it
	ServiceIPv4CIDR      string
	ServiceIPv6CIDR      string
	IPFamily             string
}
