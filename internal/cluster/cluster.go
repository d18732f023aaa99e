// Package cluster merges the cluster facts given in the provider
// configuration with those discovered through eks:DescribeCluster, asking AWS
// only for what a caller needs and was not given.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
)

// Field names, as in the provider's cluster block.
const (
	FieldName                 = "name"
	FieldKubernetesVersion    = "kubernetes_version"
	FieldEndpoint             = "endpoint"
	FieldCertificateAuthority = "certificate_authority"
	FieldServiceCIDR          = "service_cidr"
	FieldClusterDNS           = "cluster_dns"
)

// Settings are the configured facts. Unknown holds fields whose value was
// not known at plan time (a cluster created in the same run).
type Settings struct {
	Name                 string
	KubernetesVersion    string
	Endpoint             string
	CertificateAuthority string
	ServiceCIDR          string
	ClusterDNS           string
	Unknown              map[string]bool
}

// Facts are the resolved cluster facts.
type Facts struct {
	Name                 string
	KubernetesVersion    string
	Endpoint             string
	CertificateAuthority string
	ServiceCIDR          string
	ClusterDNS           string
	// Discovered lists the fields that came from eks:DescribeCluster.
	Discovered []string
}

// Describer is the AWS call this package needs.
type Describer interface {
	DescribeCluster(ctx context.Context, name string) (awsclient.Cluster, error)
}

// ErrUnknown means a needed fact is unknown until apply; callers defer the
// check rather than fail.
var ErrUnknown = errors.New("cluster facts are not known until apply")

// MissingError names the facts that are neither configured nor discoverable.
// Advice is how the caller's user gives them (a front end's words: the
// provider's cluster block, a command's flags); empty, the error says only
// what is missing.
type MissingError struct {
	Fields []string
	Why    string
	Advice string
}

func (e *MissingError) Error() string {
	msg := fmt.Sprintf("%s needs the cluster's %s", e.Why, strings.Join(e.Fields, ", "))
	if e.Advice != "" {
		msg += ": " + e.Advice
	}
	return msg
}

// Resolve returns the facts listed in need. Configured values win; the rest
// come from eks:DescribeCluster when a cluster name is set. why says who
// needs them, for the error message.
func Resolve(ctx context.Context, s Settings, need []string, d Describer, why string) (Facts, error) {
	f := Facts{
		Name: s.Name, KubernetesVersion: s.KubernetesVersion, Endpoint: s.Endpoint,
		CertificateAuthority: s.CertificateAuthority, ServiceCIDR: s.ServiceCIDR, ClusterDNS: s.ClusterDNS,
	}
	var missing []string
	for _, n := range need {
		if s.Unknown[n] {
			return Facts{}, fmt.Errorf("%w: cluster.%s", ErrUnknown, n)
		}
		if n == FieldClusterDNS && f.ClusterDNS == "" {
			// Derived from the service CIDR when not given.
			if s.Unknown[FieldServiceCIDR] {
				return Facts{}, fmt.Errorf("%w: cluster.%s", ErrUnknown, FieldServiceCIDR)
			}
			// Named once when the CIDR is needed too.
			if f.ServiceCIDR == "" && !slices.Contains(need, FieldServiceCIDR) {
				missing = append(missing, FieldServiceCIDR)
			}
			continue
		}
		if f.get(n) == "" {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		if s.Unknown[FieldName] {
			return Facts{}, fmt.Errorf("%w: cluster.%s", ErrUnknown, FieldName)
		}
		if s.Name == "" || d == nil {
			return Facts{}, &MissingError{Fields: missing, Why: why}
		}
		cl, err := d.DescribeCluster(ctx, s.Name)
		if err != nil {
			return Facts{}, err
		}
		for _, n := range missing {
			if v := discovered(cl, n); v != "" {
				f.set(n, v)
				f.Discovered = append(f.Discovered, n)
			}
		}
		var still []string
		for _, n := range missing {
			if f.get(n) == "" {
				still = append(still, n)
			}
		}
		if len(still) > 0 {
			return Facts{}, &MissingError{Fields: still, Why: why + fmt.Sprintf(" (eks:DescribeCluster %q did not return them)", s.Name)}
		}
	}
	for _, n := range need {
		if n == FieldClusterDNS && f.ClusterDNS == "" {
			dns, err := DefaultDNS(f.ServiceCIDR)
			if err != nil {
				return Facts{}, err
			}
			f.ClusterDNS = dns
		}
	}
	return f, nil
}

func discovered(cl awsclient.Cluster, field string) string {
	switch field {
	case FieldKubernetesVersion:
		return cl.Version
	case FieldEndpoint:
		return cl.Endpoint
	case FieldCertificateAuthority:
		return cl.CertificateAuthority
	case FieldServiceCIDR:
		// Karpenter's ResolveClusterCIDR: IPv4 first, else IPv6.
		if cl.ServiceIPv4CIDR != "" {
			return cl.ServiceIPv4CIDR
		}
		return cl.ServiceIPv6CIDR
	case FieldName:
		return cl.Name
	}
	return ""
}

func (f *Facts) get(n string) string {
	switch n {
	case FieldName:
		return f.Name
	case FieldKubernetesVersion:
		return f.KubernetesVersion
	case FieldEndpoint:
		return f.Endpoint
	case FieldCertificateAuthority:
		return f.CertificateAuthority
	case FieldServiceCIDR:
		return f.ServiceCIDR
	case FieldClusterDNS:
		return f.ClusterDNS
	}
	return ""
}

func (f *Facts) set(n, v string) {
	switch n {
	case FieldName:
		f.Name = v
	case FieldKubernetesVersion:
		f.KubernetesVersion = v
	case FieldEndpoint:
		f.Endpoint = v
	case FieldCertificateAuthority:
		f.CertificateAuthority = v
	case FieldServiceCIDR:
		f.ServiceCIDR = v
	case FieldClusterDNS:
		f.ClusterDNS = v
	}
}

// DefaultDNS is the kube-dns address EKS assigns: the 10th address of the
// service CIDR (x.x.x.10 for IPv4, prefix::a for IPv6).
func DefaultDNS(serviceCIDR string) (string, error) {
	p, err := netip.ParsePrefix(serviceCIDR)
	if err != nil {
		return "", fmt.Errorf("service_cidr %q is not a CIDR (e.g. \"172.20.0.0/16\"): %w", serviceCIDR, err)
	}
	a := p.Masked().Addr()
	for i := 0; i < 10; i++ {
		a = a.Next()
	}
	if !p.Contains(a) {
		return "", fmt.Errorf("service_cidr %q is too small to hold the cluster DNS address", serviceCIDR)
	}
	return a.String(), nil
}
