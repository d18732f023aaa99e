package differential

import (
	"context"
	"encoding/base64"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	kinstancetype "github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/nodepool"
)

// karpenterContext carries the controller options Karpenter's pod capacity
// reads (--reserved-enis, default 0).
func karpenterContext() context.Context { return reservedENIsContext(0) }

func reservedENIsContext(n int) context.Context {
	return options.ToContext(context.Background(), &options.Options{ClusterName: "demo", ReservedENIs: n})
}

// karpenterKubelet is the EC2NodeClass spec.kubelet for the provider's
// kubelet settings.
func karpenterKubelet(k manifest.Kubelet) *awsv1.KubeletConfiguration {
	out := &awsv1.KubeletConfiguration{
		ClusterDNS: k.ClusterDNS, MaxPods: k.MaxPods, PodsPerCore: k.PodsPerCore,
		SystemReserved: k.SystemReserved, KubeReserved: k.KubeReserved, EvictionHard: k.EvictionHard, EvictionSoft: k.EvictionSoft,
		EvictionMaxPodGracePeriod: k.EvictionMaxPodGracePeriod, ImageGCHighThresholdPercent: k.ImageGCHighThresholdPercent,
		ImageGCLowThresholdPercent: k.ImageGCLowThresholdPercent, CPUCFSQuota: k.CPUCFSQuota,
	}
	if k.EvictionSoftGracePeriod != nil {
		out.EvictionSoftGracePeriod = map[string]metav1.Duration{}
		for s, v := range k.EvictionSoftGracePeriod {
			d, err := time.ParseDuration(v)
			if err != nil {
				panic("kubelet table: " + err.Error())
			}
			out.EvictionSoftGracePeriod[s] = metav1.Duration{Duration: d}
		}
	}
	return out
}

// karpenterPods is the pod capacity Karpenter's NewInstanceType gives a type
// under a class.
func karpenterPods(info ec2types.InstanceTypeInfo, family string, k *awsv1.KubeletConfiguration) int64 {
	it := karpenterInstanceType(info, family, k, nil)
	return it.Capacity.Pods().Value()
}

func karpenterInstanceType(info ec2types.InstanceTypeInfo, family string, k *awsv1.KubeletConfiguration, isp *awsv1.InstanceStorePolicy) *cloudprovider.InstanceType {
	if k == nil {
		k = &awsv1.KubeletConfiguration{}
	}
	return kinstancetype.NewInstanceType(karpenterContext(), info, "us-east-1", []string{"us-east-1a"}, nil, nil, isp, nil,
		k.MaxPods, k.PodsPerCore, k.KubeReserved, k.SystemReserved, k.EvictionHard, k.EvictionSoft, family, nil)
}

// karpenterInputs is what Karpenter's launch-template provider hands the
// resolver for one NodeClaim.
type karpenterInputs struct {
	nodeClass    *awsv1.EC2NodeClass
	nodeClaim    *karpv1.NodeClaim
	instanceType *cloudprovider.InstanceType
	capacityType string
	options      *amifamily.Options
}

// karpenterUserData runs Karpenter's amifamily resolver (GetAMIFamily,
// resolveLaunchTemplates: maxPods defaulting, taints, label filtering,
// cluster DNS) and the family's bootstrapper, and returns the userData as
// the launch template would carry it, base64-decoded.
func karpenterUserData(t *testing.T, in karpenterInputs) string {
	t.Helper()
	lts, err := amifamily.NewDefaultResolver("us-east-1").Resolve(in.nodeClass, in.nodeClaim, []*cloudprovider.InstanceType{in.instanceType},
		in.capacityType, "default", in.options, "", 0)
	if err != nil || len(lts) != 1 {
		t.Fatalf("Karpenter's resolver: %d launch templates, %v", len(lts), err)
	}
	enc, err := lts[0].UserData.Script(karpenterContext())
	if err != nil {
		t.Fatalf("Karpenter's bootstrap: %v", err)
	}
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatalf("Karpenter's userData is not base64: %v", err)
	}
	return string(raw)
}

// nodeClaimLabels are the labels Karpenter's NodeClaimTemplate gives a
// NodeClaim of the pool (NewNodeClaimTemplate and
// resolveCustomLabelsFromRequirements, with Karpenter's label sets): the
// template labels, the pool and class labels, and custom labels whose
// requirement has one value.
func nodeClaimLabels(p nodepool.Pool) map[string]string {
	labels := map[string]string{}
	if m := p.Manifest.Spec.Template.Metadata; m != nil {
		for k, v := range m.Labels {
			labels[k] = v
		}
	}
	ref := p.Manifest.Spec.Template.Spec.NodeClassRef
	labels[karpv1.NodePoolLabelKey] = p.Manifest.Metadata.Name
	labels[karpv1.NodeClassLabelKey(schema.GroupKind{Group: ref.Group, Kind: ref.Kind})] = ref.Name
	var reqs []corev1.NodeSelectorRequirement
	for _, r := range p.Manifest.Spec.Template.Spec.Requirements {
		reqs = append(reqs, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOperator(r.Operator), Values: r.Values})
	}
	all := scheduling.NewNodeSelectorRequirements(reqs...)
	all.Add(scheduling.NewLabelRequirements(labels).Values()...)
	for key, r := range all {
		if karpv1.WellKnownLabels.Has(key) || karpv1.RestrictedLabels.Has(key) {
			continue
		}
		if r.Operator() == corev1.NodeSelectorOpIn && r.Len() == 1 {
			labels[key] = r.Any()
		}
	}
	return labels
}

func karpenterTaints(ts []manifest.Taint) []corev1.Taint {
	out := make([]corev1.Taint, 0, len(ts))
	for _, t := range ts {
		out = append(out, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	return out
}

// statusAMIs is the class's status.amis in Karpenter's types.
func statusAMIs(c nodepool.ClassFacts) []awsv1.AMI {
	out := make([]awsv1.AMI, 0, len(c.AMIs))
	for _, a := range c.AMIs {
		ka := awsv1.AMI{ID: a.ID, Name: a.Name, Deprecated: a.Deprecated}
		for _, r := range a.Requirements {
			ka.Requirements = append(ka.Requirements, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOperator(r.Operator), Values: r.Values})
		}
		out = append(out, ka)
	}
	return out
}

// mapArgRE matches Karpenter's map-valued kubelet arguments, whose entries
// it joins in Go map order (joinParameterArgs).
var mapArgRE = regexp.MustCompile(`--(system-reserved|kube-reserved|eviction-hard|eviction-soft|eviction-soft-grace-period)="([^"]*)"`)

// normalise sorts the entries of map-valued kubelet arguments: the only
// part of Karpenter's userData that is random. (MIME boundaries are
// Karpenter's fixed "//" and nodeadm archive boundary; maps inside YAML and
// TOML are written sorted.)
func normalise(s string) string {
	return mapArgRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := mapArgRE.FindStringSubmatch(m)
		entries := strings.Split(sub[2], ",")
		slices.Sort(entries)
		return "--" + sub[1] + `="` + strings.Join(entries, ",") + `"`
	})
}

// kubeDNS is the provider's cluster DNS fact as Karpenter's KubeDNSIP.
func kubeDNS(s string) net.IP { return net.ParseIP(s) }
