package nodeoverlay

import "github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"

// Manifest is a NodeOverlay as karpenter_nodeoverlay renders it, fields in
// the CRD's order. Weight is an int64 and capacity quantities strings so
// that any value written reaches the CRD check, which reports it.
type Manifest struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	Spec       Spec     `json:"spec"`
}

// Metadata is the overlay's metadata.
type Metadata struct {
	Name string `json:"name"`
}

// Spec is spec of a NodeOverlay.
type Spec struct {
	Weight          *int64            `json:"weight,omitempty"`
	Requirements    []Requirement     `json:"requirements"`
	Price           *string           `json:"price,omitempty"`
	PriceAdjustment *string           `json:"priceAdjustment,omitempty"`
	Capacity        map[string]string `json:"capacity,omitempty"`
}

// Requirement is a node selector requirement (no minValues on overlays).
type Requirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// New is the manifest of an overlay with this name and spec.
func New(name string, spec Spec) Manifest {
	if spec.Requirements == nil {
		spec.Requirements = []Requirement{}
	}
	return Manifest{APIVersion: APIVersion, Kind: Kind, Metadata: Metadata{Name: name}, Spec: spec}
}

// Render is the manifest's YAML and its object as JSON decodes it (the
// form Check takes).
func (m Manifest) Render() (string, map[string]any, error) {
	obj, err := manifest.Object(m)
	if err != nil {
		return "", nil, err
	}
	y, err := manifest.YAML(m)
	return y, obj, err
}
