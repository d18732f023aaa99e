package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsclient"
)

type fakeEKS struct {
	calls int
	cl    awsclient.Cluster
	err   error
}

func (f *fakeEKS) DescribeCluster(_ context.Context, name string) (awsclient.Cluster, error) {
	f.calls++
	return f.cl, f.err
}

func TestDefaultDNS(t *testing.T) {
	for cidr, want := range map[string]string{
		"172.20.0.0/16":    "172.20.0.10",
		"10.100.0.0/16":    "10.100.0.10",
		"fd00:10:96::/112": "fd00:10:96::a",
		"10.0.0.5/24":      "10.0.0.10", // host bits are masked first
	} {
		got, err := DefaultDNS(cidr)
		if err != nil || got != want {
			t.Errorf("DefaultDNS(%s) = %s, %v; want %s", cidr, got, err, want)
		}
	}
	if _, err := DefaultDNS("10.0.0.0/30"); err == nil {
		t.Error("a /30 cannot hold .10")
	}
	if _, err := DefaultDNS("nope"); err == nil {
		t.Error("malformed CIDR must fail")
	}
}

func TestResolveUsesConfigFirstAndDiscoversOnlyWhatIsMissing(t *testing.T) {
	d := &fakeEKS{cl: awsclient.Cluster{Name: "demo", Version: "1.32", Endpoint: "https://x", CertificateAuthority: "Q0E=", ServiceIPv4CIDR: "172.20.0.0/16"}}
	s := Settings{Name: "demo", KubernetesVersion: "1.31"}
	f, err := Resolve(context.Background(), s, []string{FieldKubernetesVersion}, d, "test")
	if err != nil || f.KubernetesVersion != "1.31" || d.calls != 0 {
		t.Fatalf("configured version must win without a call: %+v %v calls=%d", f, err, d.calls)
	}
	f, err = Resolve(context.Background(), s, []string{FieldEndpoint, FieldClusterDNS}, d, "test")
	if err != nil || f.Endpoint != "https://x" || f.ClusterDNS != "172.20.0.10" || d.calls != 1 {
		t.Fatalf("discovery: %+v %v calls=%d", f, err, d.calls)
	}
	if strings.Join(f.Discovered, ",") != "endpoint,service_cidr" {
		t.Fatalf("discovered = %v", f.Discovered)
	}
}

func TestResolveUnknownDefers(t *testing.T) {
	s := Settings{Unknown: map[string]bool{FieldEndpoint: true}}
	_, err := Resolve(context.Background(), s, []string{FieldEndpoint}, nil, "test")
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("want ErrUnknown, got %v", err)
	}
	// An unknown field that is not needed does not matter.
	s.KubernetesVersion = "1.32"
	if _, err := Resolve(context.Background(), s, []string{FieldKubernetesVersion}, nil, "test"); err != nil {
		t.Fatal(err)
	}
}

// The error names what is missing; how to give it is the front end's
// (Advice): karpenter-lint has no provider block to point at.
func TestResolveMissingSaysWhatIsMissing(t *testing.T) {
	_, err := Resolve(context.Background(), Settings{}, []string{FieldKubernetesVersion}, nil, "alias al2023@latest")
	var m *MissingError
	if !errors.As(err, &m) || err.Error() != "alias al2023@latest needs the cluster's kubernetes_version" {
		t.Fatalf("got %v", err)
	}
	m.Advice = "pass it"
	if got := err.Error(); got != "alias al2023@latest needs the cluster's kubernetes_version: pass it" {
		t.Errorf("with advice: %s", got)
	}
	d := &fakeEKS{cl: awsclient.Cluster{Name: "demo"}}
	_, err = Resolve(context.Background(), Settings{Name: "demo"}, []string{FieldServiceCIDR}, d, "AL2023 userData")
	if !errors.As(err, &m) || !strings.Contains(err.Error(), "did not return") {
		t.Fatalf("got %v", err)
	}
}

func TestResolveIPv6ServiceCIDR(t *testing.T) {
	d := &fakeEKS{cl: awsclient.Cluster{Name: "v6", ServiceIPv6CIDR: "fd00:10:96::/112", IPFamily: "ipv6"}}
	f, err := Resolve(context.Background(), Settings{Name: "v6"}, []string{FieldClusterDNS}, d, "test")
	if err != nil || f.ServiceCIDR != "fd00:10:96::/112" || f.ClusterDNS != "fd00:10:96::a" {
		t.Fatalf("%+v %v", f, err)
	}
}

// The DNS address is derived from the service CIDR: needing both names the
// CIDR once ("service_cidr, service_cidr" before), in either order.
func TestResolveMissingNamesEachFieldOnce(t *testing.T) {
	for _, need := range [][]string{
		{FieldEndpoint, FieldServiceCIDR, FieldClusterDNS},
		{FieldClusterDNS, FieldServiceCIDR},
		{FieldClusterDNS},
	} {
		_, err := Resolve(context.Background(), Settings{}, need, nil, "the bootstrap block")
		var m *MissingError
		if !errors.As(err, &m) {
			t.Fatalf("%v: got %v", need, err)
		}
		if n := strings.Count(err.Error(), FieldServiceCIDR); n != 1 {
			t.Errorf("%v: %s named %d times: %v", need, FieldServiceCIDR, n, err)
		}
	}
}
