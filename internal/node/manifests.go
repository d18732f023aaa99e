package node

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/capacity"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifestcheck"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// CheckManifests runs the offline manifest rules (validate_manifest's) on
// the pool and the class and returns their errors, at node_pool and
// node_class with the manifest path in the detail. A plan asks about many
// instance types of the same pool and class, so answers are remembered per
// input and release.
func CheckManifests(ctx context.Context, pool, class string, kv versions.Karpenter) rules.Findings {
	out := checked(ctx, pool, kv, PathNodePool)
	return append(out, checked(ctx, class, kv, PathNodeClass)...)
}

// Decode reads the pool and the class; findings say why either is not one
// object of its kind.
func Decode(pool, class string) (manifest.NodePool, manifest.EC2NodeClass, rules.Findings) {
	var fs rules.Findings
	p, pfs, err := manifestcheck.DecodeNodePool(pool)
	fs = append(fs, decodeFindings(PathNodePool, pfs, err)...)
	c, cfs, err := manifestcheck.DecodeEC2NodeClass(class)
	fs = append(fs, decodeFindings(PathNodeClass, cfs, err)...)
	return p, c, fs
}

func decodeFindings(at rules.Path, fs []manifestcheck.Finding, err error) rules.Findings {
	out := translate(at, fs)
	if err != nil {
		out = append(out, rules.New(ruleManifest, at, "%v. Pass the manifest of one object: one YAML document of kind NodePool or EC2NodeClass.", err))
	}
	return out
}

func translate(at rules.Path, fs []manifestcheck.Finding) rules.Findings {
	var out rules.Findings
	for _, f := range fs {
		if f.Severity != rules.Error {
			continue
		}
		detail := f.Message
		if f.Path != "" {
			detail = "at " + f.Path + ": " + detail
		}
		out = append(out, rules.Finding{Rule: f.Rule, Severity: f.Severity, Path: at, Detail: detail})
	}
	return out
}

// checkMemo remembers CheckManifests answers; bounded, so a long-lived
// process cannot grow it without limit.
var checkMemo = struct {
	sync.Mutex
	m map[checkKey]rules.Findings
}{m: map[checkKey]rules.Findings{}}

type checkKey struct {
	input, at string
	kv        versions.Karpenter
}

const checkMemoMax = 256

func checked(ctx context.Context, input string, kv versions.Karpenter, at rules.Path) rules.Findings {
	key := checkKey{input: input, at: at.String(), kv: kv}
	checkMemo.Lock()
	fs, ok := checkMemo.m[key]
	checkMemo.Unlock()
	if ok {
		return fs
	}
	fs = translate(at, manifestcheck.Check(ctx, input, kv))
	checkMemo.Lock()
	defer checkMemo.Unlock()
	if len(checkMemo.m) >= checkMemoMax {
		clear(checkMemo.m)
	}
	checkMemo.m[key] = fs
	return fs
}

// CheckCapacityType reports a capacity_type that is not one Karpenter
// launches (at validate; Compute also checks it against the pool and the
// type).
func CheckCapacityType(ct string) rules.Findings {
	if slices.Contains(CapacityTypes, ct) {
		return nil
	}
	return rules.Findings{rules.New(ruleCapacityType, PathCapacityType,
		"%q is not a capacity type Karpenter launches%s: karpenter.sh/capacity-type takes \"on-demand\", \"spot\" or \"reserved\", and no node of another value exists.", ct, suggest.Hint(ct, CapacityTypes))}
}

// CheckTypeFacts reports, before images or cluster facts are read, a type
// whose capacity cannot be computed from the facts at hand (an offline
// catalogue has no per-type figures).
func CheckTypeFacts(r Request) rules.Findings {
	family, ok := Family(r.Class, versions.DefaultKarpenter)
	if !ok {
		return nil
	}
	var fe *capacity.FactsError
	if _, err := capacity.Compute(r.Type, capacity.ClassOf(family, r.Class.Spec), capacity.DefaultSettings()); errors.As(err, &fe) {
		return rules.Findings{capacityFinding(r, err)}
	}
	return nil
}

// The rules the checks of this file emit.
var (
	ruleManifest = rules.Register(rules.Rule{
		ID: "node-manifest-invalid", Severity: rules.Error, Category: Category,
		Title:     "node_pool or node_class is not one valid NodePool or EC2NodeClass",
		Behaviour: "data \"karpenter_node\" describes a node of one NodePool on one EC2NodeClass: `node_pool` must hold exactly one karpenter.sh/v1 NodePool and `node_class` exactly one karpenter.k8s.aws/v1 EC2NodeClass (YAML or JSON: a resource's `manifest`, or `file()` of one document of a GitOps repository). A file holding both objects, or the objects swapped, describes no node. Each object must also pass the offline rules `validate_manifest` applies (Karpenter or the API server would refuse it otherwise): their errors are reported at the argument with their own rule ids and the manifest path.",
		Source:    "github.com/aws/karpenter-provider-aws v1.14.1 pkg/apis/crds (the CRDs); provider::karpenter::validate_manifest (the same rules)",
		Bad:       example(poolYAML("general", "")+"---\n"+classYAML("default", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
		Good:      example(poolYAML("general", ""), classYAML("default", ""), "  instance_type = \"m5.large\"\n"),
	})
)
