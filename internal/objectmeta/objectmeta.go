// Package objectmeta validates the labels and annotations of the
// EC2NodeClass and NodePool objects themselves (metadata.labels and
// metadata.annotations), as the API server does, and refuses the keys
// Karpenter writes on them.
package objectmeta

import (
	"sort"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

const category = "Object metadata"

// Root is the attribute path of the metadata block.
var Root = rules.Root("metadata")

var (
	ruleInvalid = rules.Register(rules.Rule{
		ID: "object-metadata-invalid", Severity: rules.Error, Category: category,
		Title:     "a label or annotation of the object is not valid Kubernetes metadata",
		Behaviour: "The API server validates every object's metadata: label keys and annotation keys are qualified names (an optional DNS-subdomain prefix and a name of at most 63 characters), label values at most 63 characters of [A-Za-z0-9_.-] starting and ending alphanumeric, and all annotations together at most 256 KiB. It rejects the EC2NodeClass or NodePool otherwise.",
		Source:    "k8s.io/apimachinery pkg/api/validation/objectmeta.go ValidateAnnotations; pkg/apis/meta/v1/validation ValidateLabels",
		Bad: `resource "karpenter_nodepool" "default" {
  name       = "default"
  node_class = karpenter_ec2nodeclass.default.node_class
  metadata {
    labels = { "team" = "data science" }
  }
}`,
		Good: `resource "karpenter_nodepool" "default" {
  name       = "default"
  node_class = karpenter_ec2nodeclass.default.node_class
  metadata {
    labels = { "team" = "data-science" }
  }
}`,
	})
	ruleKarpenterOwned = rules.Register(rules.Rule{
		ID: "object-metadata-karpenter-owned", Severity: rules.Error, Category: category,
		Title:     "the label or annotation key is one Karpenter owns",
		Behaviour: "Karpenter writes its own annotations on these objects (karpenter.k8s.aws/ec2nodeclass-hash and -hash-version, karpenter.sh/nodepool-hash and -hash-version) and compares them to detect drift; the karpenter.sh and karpenter.k8s.aws domains are Karpenter's. A value set here is overwritten by the controller, and whoever applies the manifest fights it on every apply.",
		Source:    "aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go (AnnotationEC2NodeClassHash); kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go (NodePoolHashAnnotationKey)",
		Bad: `resource "karpenter_ec2nodeclass" "default" {
  # ...
  metadata {
    annotations = { "karpenter.k8s.aws/ec2nodeclass-hash" = "123" }
  }
}`,
		Good: `resource "karpenter_ec2nodeclass" "default" {
  # ...
  metadata {
    annotations = { "kubernetes.io/description" = "General purpose nodes" }
  }
}`,
	})
)

// karpenterDomains are the label/annotation domains Karpenter owns.
var karpenterDomains = []string{"karpenter.sh", "karpenter.k8s.aws"}

// Validate checks the object's labels and annotations; unknown maps are
// skipped by the caller (pass nil).
func Validate(labels, annotations map[string]string) rules.Findings {
	var fs rules.Findings
	for _, m := range []struct {
		attr string
		vals map[string]string
	}{{"labels", labels}, {"annotations", annotations}} {
		p := Root.Attr(m.attr)
		for _, k := range sortedKeys(m.vals) {
			domain, _, hasDomain := strings.Cut(k, "/")
			if !hasDomain {
				domain = ""
			}
			for _, d := range karpenterDomains {
				if domain == d || strings.HasSuffix(domain, "."+d) {
					fs = append(fs, rules.New(ruleKarpenterOwned, p.Key(k),
						"%q is in the %s domain, which Karpenter owns: it writes its own keys there on this object (e.g. the drift hash annotations) and would overwrite or be confused by this one. Use your own domain, e.g. \"example.com/%s\".",
						k, d, strings.TrimPrefix(k, domain+"/")))
				}
			}
		}
	}
	if len(fs) > 0 {
		return fs
	}
	// One key at a time, so each finding points at its key.
	for _, k := range sortedKeys(labels) {
		for _, e := range metav1validation.ValidateLabels(map[string]string{k: labels[k]}, field.NewPath("labels")) {
			fs = append(fs, finding(Root.Attr("labels").Key(k), e))
		}
	}
	for _, k := range sortedKeys(annotations) {
		for _, e := range apivalidation.ValidateAnnotations(map[string]string{k: ""}, field.NewPath("annotations")) {
			fs = append(fs, finding(Root.Attr("annotations").Key(k), e))
		}
	}
	// The size limit is on all annotations together.
	for _, e := range apivalidation.ValidateAnnotations(annotations, field.NewPath("annotations")) {
		if e.Type == field.ErrorTypeTooLong {
			fs = append(fs, finding(Root.Attr("annotations"), e))
		}
	}
	return fs
}

// finding turns an API server field error into a finding at p.
func finding(p rules.Path, e *field.Error) rules.Finding {
	return rules.New(ruleInvalid, p, "The API server rejects the object: %s. Label and annotation keys are qualified names (example.com/name); label values are at most 63 characters of letters, digits, '-', '_' and '.', starting and ending with a letter or digit.", e.Error())
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
