package manifest

import "encoding/json"

// NodePool is a karpenter.sh/v1 NodePool.
type NodePool struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Metadata   ObjectMeta   `json:"metadata"`
	Spec       NodePoolSpec `json:"spec"`
}

// NodePoolSpec is spec of a NodePool.
type NodePoolSpec struct {
	Template   NodeClaimTemplate `json:"template"`
	Disruption *Disruption       `json:"disruption,omitempty"`
	// Limits maps resource names to quantities ("1000", "1000Gi").
	Limits   map[string]string `json:"limits,omitempty"`
	Weight   *int32            `json:"weight,omitempty"`
	Replicas *int64            `json:"replicas,omitempty"`
}

// NodeClaimTemplate is spec.template.
type NodeClaimTemplate struct {
	Metadata *TemplateMeta         `json:"metadata,omitempty"`
	Spec     NodeClaimTemplateSpec `json:"spec"`
}

// TemplateMeta is spec.template.metadata.
type TemplateMeta struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NodeClaimTemplateSpec is spec.template.spec.
type NodeClaimTemplateSpec struct {
	NodeClassRef           NodeClassRef  `json:"nodeClassRef"`
	Requirements           []Requirement `json:"requirements"`
	Taints                 []Taint       `json:"taints,omitempty"`
	StartupTaints          []Taint       `json:"startupTaints,omitempty"`
	ExpireAfter            string        `json:"expireAfter,omitempty"`
	TerminationGracePeriod string        `json:"terminationGracePeriod,omitempty"`
}

// NodeClassRef points at the EC2NodeClass.
type NodeClassRef struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

// Requirement is a node selector requirement with minValues.
type Requirement struct {
	Key       string   `json:"key"`
	Operator  string   `json:"operator"`
	Values    []string `json:"values,omitempty"`
	MinValues *int     `json:"minValues,omitempty"`
}

// Taint is a Kubernetes taint.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// Disruption is spec.disruption. ConsolidateAfter is a pointer because it
// is required inside disruption (no field default) and "" is not "0s".
type Disruption struct {
	ConsolidationPolicy string   `json:"consolidationPolicy,omitempty"`
	ConsolidateAfter    *string  `json:"consolidateAfter,omitempty"`
	Budgets             []Budget `json:"budgets,omitempty"`
}

// Budget is one disruption budget.
type Budget struct {
	Nodes    string   `json:"nodes"`
	Schedule *string  `json:"schedule,omitempty"`
	Duration *string  `json:"duration,omitempty"`
	Reasons  []string `json:"reasons,omitempty"`
}

// MarshalJSON renders nil requirements as an empty list: requirements is a
// required field of the CRD, so `requirements: null` would be rejected as
// missing while `requirements: []` is valid.
func (s NodeClaimTemplateSpec) MarshalJSON() ([]byte, error) {
	type plain NodeClaimTemplateSpec
	if s.Requirements == nil {
		s.Requirements = []Requirement{}
	}
	return json.Marshal(plain(s))
}
