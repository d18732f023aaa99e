package userdata

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
)

// The NodeConfig Karpenter generates, shaped like nodeadm's v1alpha1 types
// at the revision Karpenter v1.14.1 pins. Struct fields without omitempty
// render as {} exactly as in Karpenter's output (metadata, containerd,
// instance.localStorage).
type nodeConfig struct {
	APIVersion string         `json:"apiVersion,omitempty"`
	Kind       string         `json:"kind,omitempty"`
	Metadata   struct{}       `json:"metadata"`
	Spec       nodeConfigSpec `json:"spec"`
}

type nodeConfigSpec struct {
	Cluster    nodeConfigCluster  `json:"cluster"`
	Containerd struct{}           `json:"containerd"`
	Instance   nodeConfigInstance `json:"instance"`
	Kubelet    nodeConfigKubelet  `json:"kubelet"`
}

type nodeConfigCluster struct {
	Name                 string `json:"name,omitempty"`
	APIServerEndpoint    string `json:"apiServerEndpoint,omitempty"`
	CertificateAuthority []byte `json:"certificateAuthority,omitempty"`
	CIDR                 string `json:"cidr,omitempty"`
}

type nodeConfigInstance struct {
	LocalStorage struct {
		Strategy string `json:"strategy,omitempty"`
	} `json:"localStorage"`
}

type nodeConfigKubelet struct {
	Config map[string]any `json:"config,omitempty"`
	Flags  []string       `json:"flags,omitempty"`
}

// kubeletConfigJSON is Karpenter's v1.KubeletConfiguration JSON shape.
type kubeletConfigJSON struct {
	ClusterDNS                  []string          `json:"clusterDNS,omitempty"`
	MaxPods                     *int32            `json:"maxPods,omitempty"`
	PodsPerCore                 *int32            `json:"podsPerCore,omitempty"`
	SystemReserved              map[string]string `json:"systemReserved,omitempty"`
	KubeReserved                map[string]string `json:"kubeReserved,omitempty"`
	EvictionHard                map[string]string `json:"evictionHard,omitempty"`
	EvictionSoft                map[string]string `json:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod     map[string]string `json:"evictionSoftGracePeriod,omitempty"`
	EvictionMaxPodGracePeriod   *int32            `json:"evictionMaxPodGracePeriod,omitempty"`
	ImageGCHighThresholdPercent *int32            `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32            `json:"imageGCLowThresholdPercent,omitempty"`
	CPUCFSQuota                 *bool             `json:"cpuCFSQuota,omitempty"`
}

var (
	errCIDRMissing = errors.New("resolving cluster CIDR")
	errCADecode    = errors.New("decoding CABundle")
)

// nodeConfigYAML is Karpenter's Nodeadm.getNodeConfigYAML.
func nodeConfigYAML(r resolved) (string, error) {
	nc := nodeConfig{APIVersion: "node.eks.aws/v1alpha1", Kind: "NodeConfig"}
	nc.Spec.Cluster = nodeConfigCluster{Name: r.ClusterName, APIServerEndpoint: r.ClusterEndpoint, CIDR: r.ClusterCIDR}
	if r.CABundle != "" {
		ca, err := base64.StdEncoding.DecodeString(r.CABundle)
		if err != nil {
			return "", fmt.Errorf("%w, %v", errCADecode, err)
		}
		nc.Spec.Cluster.CertificateAuthority = ca
	}
	if r.ClusterCIDR == "" {
		return "", errCIDRMissing
	}
	if r.InstanceStorePolicy == "RAID0" {
		nc.Spec.Instance.LocalStorage.Strategy = "RAID0"
	}
	cfg, err := inlineKubeletConfig(r.Kubelet, r.taints)
	if err != nil {
		return "", err
	}
	nc.Spec.Kubelet.Config = cfg
	if arg := nodeLabelArg(r.labels); arg != "" {
		nc.Spec.Kubelet.Flags = []string{arg}
	}
	out, err := yaml.Marshal(nc)
	if err != nil {
		return "", err
	}
	return "# Karpenter Generated NodeConfig\n" + string(out), nil
}

// inlineKubeletConfig is generateInlineKubeletConfiguration: the kubelet
// settings as JSON object members plus registerWithTaints.
func inlineKubeletConfig(k Kubelet, ts []taints.Taint) (map[string]any, error) {
	raw, err := json.Marshal(kubeletConfigJSON{
		ClusterDNS: k.ClusterDNS, MaxPods: k.MaxPods, PodsPerCore: k.PodsPerCore,
		SystemReserved: k.SystemReserved, KubeReserved: k.KubeReserved,
		EvictionHard: k.EvictionHard, EvictionSoft: k.EvictionSoft, EvictionSoftGracePeriod: durationStrings(k),
		EvictionMaxPodGracePeriod: k.EvictionMaxPodGracePeriod, ImageGCHighThresholdPercent: k.ImageGCHighThresholdPercent,
		ImageGCLowThresholdPercent: k.ImageGCLowThresholdPercent, CPUCFSQuota: k.CPUCFSQuota,
	})
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	m["registerWithTaints"] = ts
	return m, nil
}

// al2023Parts is Nodeadm.parseUserData: MIME parts keep only their
// Content-Type; a YAML/JSON map is one NodeConfig part; anything else one
// shell part.
func al2023Parts(userData string) ([]format.Part, error) {
	if userData == "" {
		return nil, nil
	}
	if format.LooksLikeMIME(userData) {
		a, err := format.ReadArchive(userData)
		if err != nil {
			return nil, err
		}
		out := make([]format.Part, len(a.Parts))
		for i, p := range a.Parts {
			out[i] = format.TypedPart(p.Header.Get("Content-Type"), p.Body)
		}
		return out, nil
	}
	if format.IsNodeConfigDocument(userData) {
		return []format.Part{format.TypedPart(format.ContentTypeNodeadm, userData)}, nil
	}
	return []format.Part{format.TypedPart(format.ContentTypeShell, userData)}, nil
}

// renderAL2023 is Nodeadm.Script: user parts first, Karpenter's NodeConfig
// last, so that it wins nodeadm's merge.
func renderAL2023(r resolved) (string, error) {
	doc, err := nodeConfigYAML(r)
	if err != nil {
		return "", err
	}
	parts, err := al2023Parts(r.UserData)
	if err != nil {
		return "", err
	}
	return format.WriteArchive(append(parts, format.TypedPart(format.ContentTypeNodeadm, doc))), nil
}
