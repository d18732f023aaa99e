package nodeclass

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/crd"
	"regexp"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/ami"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/suggest"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

var (
	evictionKeys = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
	reservedKeys = []string{"cpu", "memory", "ephemeral-storage", "pid"}
	// The CRD's pattern on evictionHard/evictionSoft values: a percentage
	// with up to two decimals, or a quantity.
	evictionPercentRE = regexp.MustCompile(`^(\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%$`)
)

func validateKubelet(c Class, kv versions.Karpenter) rules.Findings {
	k := c.Spec.Kubelet
	if k == nil || c.Unknown.Is(pathKubelet) {
		return nil
	}
	u := c.Unknown
	var fs rules.Findings
	at := func(attr string) rules.Path { return pathKubelet.Attr(attr) }
	add := func(p rules.Path, format string, args ...any) {
		fs = append(fs, rules.New(ruleKubelet, p, format, args...))
	}
	for _, m := range []struct {
		attr string
		vals map[string]string
	}{{"eviction_hard", k.EvictionHard}, {"eviction_soft", k.EvictionSoft}} {
		if u.Is(at(m.attr)) {
			continue
		}
		for _, key := range sortedKeys(m.vals) {
			v := m.vals[key]
			if !slices.Contains(evictionKeys, key) {
				add(at(m.attr).Key(key), "%q is not an eviction signal%s; the API server rejects it (\"valid keys for %s are ['%s']\").", key, suggest.Hint(key, evictionKeys), camel(m.attr), strings.Join(evictionKeys, "','"))
				continue
			}
			if !evictionPercentRE.MatchString(v) {
				if q, err := resource.ParseQuantity(v); err != nil || q.Sign() < 0 {
					add(at(m.attr).Key(key), "%q is neither a percentage (e.g. \"10%%\") nor a quantity (e.g. \"500Mi\"); the CRD rejects it.", v)
				}
			}
		}
	}
	if !u.Is(at("eviction_soft_grace_period")) {
		for _, key := range sortedKeys(k.EvictionSoftGracePeriod) {
			if !slices.Contains(evictionKeys, key) {
				add(at("eviction_soft_grace_period").Key(key), "%q is not an eviction signal%s; valid keys are %s.", key, suggest.Hint(key, evictionKeys), strings.Join(evictionKeys, ", "))
				continue
			}
			if _, err := time.ParseDuration(k.EvictionSoftGracePeriod[key]); err != nil {
				add(at("eviction_soft_grace_period").Key(key), "%q is not a duration; write e.g. \"1m30s\".", k.EvictionSoftGracePeriod[key])
			}
		}
		if !u.Is(at("eviction_soft")) {
			for _, key := range sortedKeys(k.EvictionSoft) {
				if _, ok := k.EvictionSoftGracePeriod[key]; !ok {
					fs = append(fs, rules.New(ruleKubelet, at("eviction_soft_grace_period"), "evictionSoft sets %q without a grace period; the API server rejects it (\"evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod\"). Give it one in evictionSoftGracePeriod, e.g. 1m.", key).
						WithFix(rules.Fix{Field: at("eviction_soft_grace_period").Key(key), Value: `"1m"`}))
				}
			}
			for _, key := range sortedKeys(k.EvictionSoftGracePeriod) {
				if _, ok := k.EvictionSoft[key]; !ok && slices.Contains(evictionKeys, key) {
					add(at("eviction_soft"), "evictionSoftGracePeriod sets %q without an evictionSoft threshold; the API server rejects it (\"evictionSoftGracePeriod OwnerKey does not have a matching evictionSoft\").", key)
				}
			}
		}
	}
	for _, m := range []struct {
		attr string
		vals map[string]string
	}{{"system_reserved", k.SystemReserved}, {"kube_reserved", k.KubeReserved}} {
		if u.Is(at(m.attr)) {
			continue
		}
		for _, key := range sortedKeys(m.vals) {
			v := m.vals[key]
			if !slices.Contains(reservedKeys, key) {
				add(at(m.attr).Key(key), "%q is not a reservable resource%s; the API server rejects it (\"valid keys for %s are ['%s']\").", key, suggest.Hint(key, reservedKeys), camel(m.attr), strings.Join(reservedKeys, "','"))
				continue
			}
			q, err := resource.ParseQuantity(v)
			switch {
			case err != nil:
				add(at(m.attr).Key(key), "%q is not a quantity; write e.g. \"100m\" for CPU or \"500Mi\" for memory.", v)
			case q.Sign() < 0:
				add(at(m.attr).Key(key), "%q is negative; the API server rejects it (\"%s value cannot be a negative resource quantity\").", v, camel(m.attr))
			}
		}
	}
	for _, n := range []struct {
		attr     string
		v        *int32
		min, max int32
	}{
		{"max_pods", k.MaxPods, 0, 1 << 30}, {"pods_per_core", k.PodsPerCore, 0, 1 << 30},
		{"image_gc_high_threshold_percent", k.ImageGCHighThresholdPercent, 0, 100},
		{"image_gc_low_threshold_percent", k.ImageGCLowThresholdPercent, 0, 100},
	} {
		if n.v != nil && !u.Is(at(n.attr)) && (*n.v < n.min || *n.v > n.max) {
			add(at(n.attr), "%d is out of range: the CRD accepts %d to %d.", *n.v, n.min, n.max)
		}
	}
	hi, lo := k.ImageGCHighThresholdPercent, k.ImageGCLowThresholdPercent
	if hi != nil && lo != nil && !u.Is(at("image_gc_high_threshold_percent")) && !u.Is(at("image_gc_low_threshold_percent")) && *hi <= *lo {
		add(at("image_gc_high_threshold_percent"), "imageGCHighThresholdPercent (%d) must be greater than imageGCLowThresholdPercent (%d); the API server rejects it (\"imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent\").", *hi, *lo)
	}
	if k.PodsPerCore != nil && !u.Is(at("pods_per_core")) && !u.Is(pathAMIFamily) && !u.Within(pathAMITerms) {
		if f, ok := ami.ResolvedFamily(c.Family, c.Terms, kv); ok && !f.Model().PodsPerCore() {
			fs = append(fs, rules.New(rulePodsPerCore, at("pods_per_core"),
				"podsPerCore %d has no effect on %s: Karpenter disables podsPerCore for the family (it has no such setting). Limit pods with maxPods instead.", *k.PodsPerCore, f).
				WithFix(rules.Fix{Remove: true}))
		}
	}
	return fs
}

// camel gives the CRD's field name for a kubelet attribute, for quoting
// API server messages.
// fieldPath is the EC2NodeClass field at p as the manifest spells it
// (spec.blockDeviceMappings[0].ebs.snapshotID), for a message that names
// it in prose; the attribute path when the CRD has no such field.
func fieldPath(p rules.Path) string {
	if mp, ok := crd.EC2NodeClass.ManifestPath(p); ok {
		return mp
	}
	return p.String()
}

// fieldName is the last name of fieldPath(p) (snapshotID).
func fieldName(p rules.Path) string {
	mp := fieldPath(p)
	return mp[strings.LastIndex(mp, ".")+1:]
}

func camel(attr string) string {
	parts := strings.Split(attr, "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}

// The rules the checks of this file emit.
var (
	ruleKubelet = rules.Register(rules.Rule{
		ID: "kubelet-config-invalid", Severity: rules.Error, Category: category,
		Title:     "kubelet settings the CRD rejects",
		Behaviour: "CRD rules on spec.kubelet: eviction keys must be one of memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available; reserved keys cpu, memory, ephemeral-storage, pid; reserved values not negative; eviction values a percentage or a quantity; grace periods durations; \"imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent\"; evictionSoft and evictionSoftGracePeriod with the same keys.",
		Source:    "A:pkg/apis/v1/ec2nodeclass.go KubeletConfiguration (v1.14.1 x-kubernetes-validations)",
		Bad:       rules.Block("kubelet", `eviction_soft = { "memory.available" = "10%" }`, `image_gc_high_threshold_percent = 50`, `image_gc_low_threshold_percent = 80`),
		Good:      rules.Block("kubelet", `eviction_soft = { "memory.available" = "10%" }`, `eviction_soft_grace_period = { "memory.available" = "1m" }`, `image_gc_high_threshold_percent = 85`, `image_gc_low_threshold_percent = 80`),
	})
	rulePodsPerCore = rules.Register(rules.Rule{
		ID: "kubelet-pods-per-core-ignored", Severity: rules.Warning, Category: category,
		Title:     "pods_per_core is ignored on Bottlerocket",
		Behaviour: "Bottlerocket's settings have no podsPerCore; Karpenter disables it for the family (FeatureFlags PodsPerCoreEnabled: false), so the value has no effect on the node.",
		Source:    "A:pkg/providers/amifamily/bottlerocket.go FeatureFlags",
		Bad:       rules.Body(`ami_selector_terms { alias = "bottlerocket@latest" }`, `kubelet { pods_per_core = 10 }`),
		Good:      rules.Body(`ami_selector_terms { alias = "bottlerocket@latest" }`, `kubelet { max_pods = 110 }`),
	})
)
