package nodeclass

import (
	"slices"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

func validateMetadata(c Class) rules.Findings {
	m := c.Spec.MetadataOptions
	if m == nil || c.Unknown.Is(pathMetadata) {
		return nil
	}
	var fs rules.Findings
	enum := func(attr, v string, allowed ...string) {
		if v == "" || c.Unknown.Is(pathMetadata.Attr(attr)) || slices.Contains(allowed, v) {
			return
		}
		fs = append(fs, rules.New(ruleMetadata, pathMetadata.Attr(attr), "%q: the CRD accepts %q or %q.", v, allowed[0], allowed[1]))
	}
	enum("http_endpoint", m.HTTPEndpoint, "enabled", "disabled")
	enum("http_protocol_ipv6", m.HTTPProtocolIPv6, "enabled", "disabled")
	enum("http_tokens", m.HTTPTokens, "required", "optional")
	if h := m.HTTPPutResponseHopLimit; h != nil && !c.Unknown.Is(pathMetadata.Attr("http_put_response_hop_limit")) && (*h < 1 || *h > 64) {
		fs = append(fs, rules.New(ruleMetadata, pathMetadata.Attr("http_put_response_hop_limit"),
			"%d: the CRD accepts 1 to 64. Use 1 (Karpenter's default) to keep pods away from the instance metadata service, 2 when pods must reach it through a network namespace hop.", *h))
	}
	return fs
}

// The rules the checks of this file emit.
var (
	ruleMetadata = rules.Register(rules.Rule{
		ID: "metadata-options-invalid", Severity: rules.Error, Category: category,
		Title:     "metadata options out of range",
		Behaviour: "CRD: http_endpoint and http_protocol_ipv6 are enabled|disabled, http_tokens is required|optional, http_put_response_hop_limit is 1 to 64.",
		Source:    "A:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (metadataOptions)",
		Bad:       `metadata_options { http_put_response_hop_limit = 0 }`,
		Good:      rules.Block("metadata_options", `http_put_response_hop_limit = 2`, `http_tokens = "required"`),
	})
)
