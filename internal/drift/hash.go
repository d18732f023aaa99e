// Package drift predicts Karpenter's drift hashes for the project's manifest
// model and says what a change to an EC2NodeClass or NodePool does to running
// nodes. Karpenter stamps karpenter.k8s.aws/ec2nodeclass-hash and
// karpenter.sh/nodepool-hash on the class, the pool and every NodeClaim they
// launch; when the class's or pool's hash no longer equals a NodeClaim's (at
// the same hash version), the NodeClaim is Drifted and replaced, paced by the
// pool's disruption budgets.
package drift

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mitchellh/hashstructure/v2"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/drift/internal/shape"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// Annotation keys Karpenter writes the hashes under.
const (
	EC2NodeClassHashAnnotation        = "karpenter.k8s.aws/ec2nodeclass-hash"
	EC2NodeClassHashVersionAnnotation = "karpenter.k8s.aws/ec2nodeclass-hash-version"
	NodePoolHashAnnotation            = "karpenter.sh/nodepool-hash"
	NodePoolHashVersionAnnotation     = "karpenter.sh/nodepool-hash-version"
)

// EC2NodeClassHashVersion is the karpenter.k8s.aws/ec2nodeclass-hash-version a
// Karpenter release writes. v3 (1.0) tagged spec.kubelet hash:"ignore"; v4
// (1.1, commit bbff05cc7 "Drop conversion webhooks") hashes it; v5 (1.12, PR
// #9083) adds the cluster CA bundle to the hashed value. Nodes stamped with another version
// are not drifted by hash (Karpenter re-stamps them on upgrade).
func EC2NodeClassHashVersion(kv versions.Karpenter) string {
	switch {
	case kv.Minor >= 12:
		return "v5"
	case kv.Minor >= 1:
		return "v4"
	default:
		return "v3"
	}
}

// NodePoolHashVersion is the karpenter.sh/nodepool-hash-version: "v3" in
// every release from 1.0.0 to 1.14.1.
func NodePoolHashVersion(versions.Karpenter) string { return "v3" }

// HashUsesCABundle reports whether the EC2NodeClass hash of that release
// includes the CA bundle Karpenter runs with (1.12+). When the caller does not
// know the bundle, the hash cannot be predicted for those releases.
func HashUsesCABundle(kv versions.Karpenter) bool { return kv.Minor >= 12 }

// Karpenter's Hash() options, the same for both kinds in every 1.x release.
func hashOptions() *hashstructure.HashOptions {
	return &hashstructure.HashOptions{SlicesAsSets: true, IgnoreZeroValue: true, ZeroNil: true}
}

// EC2NodeClassHash is the value Karpenter (release kv) writes to
// karpenter.k8s.aws/ec2nodeclass-hash for an EC2NodeClass with this spec, as
// the API server stores it (CRD defaults applied). caBundle is the CA bundle
// Karpenter's controller runs with (pkg/operator GetCABundle: its
// CLUSTER_CA_BUNDLE setting, else base64 of its kube client's CA data, in a
// pod the service account's ca.crt, which on EKS should be the cluster CA
// that `aws eks describe-cluster` returns base64-encoded); it counts from
// 1.12 only. An error means the spec cannot be
// stored as it is (an alias Karpenter cannot parse, a malformed quantity or
// duration, a field this package does not know); the hash is then unknown.
func EC2NodeClassHash(spec manifest.EC2NodeClassSpec, caBundle string, kv versions.Karpenter) (string, error) {
	s, family, err := classShape(spec, kv)
	if err != nil {
		return "", err
	}
	return hashClass(s, family, caBundle, kv)
}

func hashClass(s *shape.EC2NodeClassSpec, family, caBundle string, kv versions.Karpenter) (string, error) {
	// Hash() hashes []any{spec, AMIFamily()} (and the CA bundle from 1.12)
	// as a set.
	v := []any{*s, family}
	if HashUsesCABundle(kv) {
		v = append(v, caBundle)
	}
	h, err := hashstructure.Hash(v, hashstructure.FormatV2, hashOptions())
	if err != nil {
		return "", err
	}
	return strconv.FormatUint(h, 10), nil
}

// NodePoolHash is the value Karpenter (release kv) writes to
// karpenter.sh/nodepool-hash for a NodePool with this spec: the hash of
// spec.template as the API server stores it (expireAfter defaulted to 720h).
func NodePoolHash(spec manifest.NodePoolSpec, kv versions.Karpenter) (string, error) {
	t, err := templateShape(spec.Template)
	if err != nil {
		return "", err
	}
	return hashTemplate(t)
}

func hashTemplate(t *shape.NodeClaimTemplate) (string, error) {
	h, err := hashstructure.Hash(*t, hashstructure.FormatV2, hashOptions())
	if err != nil {
		return "", err
	}
	return strconv.FormatUint(h, 10), nil
}

// classShape decodes the stored form of spec into the hash shape and
// resolves the AMI family Karpenter hashes next to it.
func classShape(spec manifest.EC2NodeClassSpec, kv versions.Karpenter) (*shape.EC2NodeClassSpec, string, error) {
	family, err := resolvedFamily(spec)
	if err != nil {
		return nil, "", err
	}
	var s shape.EC2NodeClassSpec
	if err := decodeStrict(withClassDefaults(spec), &s); err != nil {
		return nil, "", fmt.Errorf("EC2NodeClass spec: %w", err)
	}
	if kv.Minor < 1 {
		// Hash version v3 tagged Kubelet hash:"ignore"; a nil field is
		// skipped exactly as an ignored one is.
		s.Kubelet = nil
	}
	pruneForRelease(&s, kv)
	return &s, family, nil
}

// pruneForRelease drops the fields Karpenter added after v1.0.0 from the
// shape of a release that does not have them yet. That release's CRD does
// not know them, so the API server prunes them (or strict field validation
// refuses the object, and there is no hash at all); either way Karpenter's
// struct has no such field and hashes the spec as if it were unset. None of
// these additions bumped the hash version: unset, each is zero and skipped.
// The nodeclass rules refuse these fields below their release, so this only
// matters to a caller that hashes without validating. spec.context exists
// since v1.0.0; ipPrefixCount (1.8) is hash:"ignore" in every release.
// Releases: aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go at the
// tags v1.5.0, v1.11.0 and v1.13.0.
func pruneForRelease(s *shape.EC2NodeClassSpec, kv versions.Karpenter) {
	if !kv.AtLeast(5, 0) {
		for _, m := range s.BlockDeviceMappings {
			if m != nil && m.EBS != nil {
				m.EBS.VolumeInitializationRate = nil
			}
		}
	}
	if !kv.AtLeast(11, 0) {
		s.NetworkInterfaces = nil
		s.PlacementGroupSelector = nil
	}
	if !kv.AtLeast(13, 0) {
		s.ConnectionTracking = nil
		s.CPUOptions = nil
	}
}

func templateShape(t manifest.NodeClaimTemplate) (*shape.NodeClaimTemplate, error) {
	if t.Spec.ExpireAfter == "" {
		t.Spec.ExpireAfter = defaultExpireAfter
	}
	var s shape.NodeClaimTemplate
	if err := decodeStrict(t, &s); err != nil {
		return nil, fmt.Errorf("NodePool spec.template: %w", err)
	}
	return &s, nil
}

// CRD defaults that land on hashed fields (the same from 1.0 to 1.14):
// spec.metadataOptions of the EC2NodeClass and spec.template.spec.expireAfter
// of the NodePool. The other defaults (disruption) are not hashed.
const (
	defaultExpireAfter  = "720h"
	defaultHTTPEndpoint = "enabled"
	defaultHTTPIPv6     = "disabled"
	defaultHTTPTokens   = "required"
	defaultHopLimit     = int64(1)
)

func withClassDefaults(spec manifest.EC2NodeClassSpec) manifest.EC2NodeClassSpec {
	mo := manifest.MetadataOptions{}
	if spec.MetadataOptions != nil {
		mo = *spec.MetadataOptions
	}
	if mo.HTTPEndpoint == "" {
		mo.HTTPEndpoint = defaultHTTPEndpoint
	}
	if mo.HTTPProtocolIPv6 == "" {
		mo.HTTPProtocolIPv6 = defaultHTTPIPv6
	}
	if mo.HTTPTokens == "" {
		mo.HTTPTokens = defaultHTTPTokens
	}
	if mo.HTTPPutResponseHopLimit == nil {
		hl := defaultHopLimit
		mo.HTTPPutResponseHopLimit = &hl
	}
	spec.MetadataOptions = &mo
	return spec
}

// decodeStrict renders v as the manifest JSON the API server receives and
// decodes it the way Karpenter's typed client does, refusing fields the hash
// shape does not know.
func decodeStrict(v, into any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

// resolvedFamily is EC2NodeClass.AMIFamily(): spec.amiFamily, else the
// alias's family, else Custom.
func resolvedFamily(spec manifest.EC2NodeClassSpec) (string, error) {
	if spec.AMIFamily != "" {
		return spec.AMIFamily, nil
	}
	for _, t := range spec.AMISelectorTerms {
		if t.Alias == "" {
			continue
		}
		parts := strings.Split(t.Alias, "@")
		if len(parts) != 2 {
			return "", fmt.Errorf("spec.amiSelectorTerms alias %q is not family@version; Karpenter's controller exits on it (amiFamilyFromAlias)", t.Alias)
		}
		f, ok := amifamily.OfClass("", parts[0])
		if !ok {
			var names []string
			for _, f := range amifamily.AliasFamilies() {
				names = append(names, f.AliasName())
			}
			return "", fmt.Errorf("spec.amiSelectorTerms alias %q names no family Karpenter knows (%s)", t.Alias, strings.Join(names, ", "))
		}
		return string(f), nil
	}
	f, _ := amifamily.OfClass("", "")
	return string(f), nil
}
