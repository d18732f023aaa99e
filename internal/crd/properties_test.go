package crd

import (
	"reflect"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/manifest"
)

// notRendered are the CRD properties the manifest model deliberately lacks.
var notRendered = map[string]string{
	"status": "written by the Karpenter controller, never by the user (a create drops it)",
	// core/v1 Taint.timeAdded is set by the node controller for NoExecute
	// taints it adds; a NodePool's taints are copied onto NodeClaims and
	// nodes, where a user-written time would be meaningless.
	"spec.template.spec.taints.timeAdded":        "node-controller-managed field of the Kubernetes taint type",
	"spec.template.spec.startupTaints.timeAdded": "node-controller-managed field of the Kubernetes taint type",
}

// noAttribute are the CRD properties without a Terraform attribute: the
// provider sets them itself, or they are not rendered at all.
var noAttribute = map[string]string{
	"apiVersion": "fixed by the resource type (karpenter.k8s.aws/v1, karpenter.sh/v1)",
	"kind":       "fixed by the resource type",
}

func init() {
	for k, v := range notRendered {
		noAttribute[k] = v
	}
}

// excepted reports whether p or an ancestor of p is in m.
func excepted(m map[string]string, p string) bool {
	for {
		if _, ok := m[p]; ok {
			return true
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// modelHas reports whether the Go type t has a field whose JSON path is p
// (list elements add no step, as in Properties).
func modelHas(t reflect.Type, p string) bool {
	for _, name := range strings.Split(p, ".") {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return false
		}
		found := false
		for i := 0; i < t.NumField(); i++ {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if tag == name {
				t, found = t.Field(i).Type, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Every property of the v1.14.1 CRDs has a field in the manifest model (so
// it can be rendered) and a Terraform attribute in the path table (so the
// API server's errors on it land on that attribute), unless it is listed
// above with its reason.
func TestEveryCRDPropertyIsModelled(t *testing.T) {
	for _, tc := range []struct {
		k     *Kind
		model reflect.Type
	}{
		{EC2NodeClass, reflect.TypeOf(manifest.EC2NodeClass{})},
		{NodePool, reflect.TypeOf(manifest.NodePool{})},
	} {
		props, err := Properties(tc.k)
		if err != nil {
			t.Fatal(err)
		}
		if len(props) < 40 {
			t.Fatalf("%s: only %d properties: the walk is broken", tc.k.Name(), len(props))
		}
		for _, p := range props {
			if !excepted(notRendered, p) && !modelHas(tc.model, p) {
				t.Errorf("%s: CRD property %s has no field in internal/manifest (add it, or list it in notRendered with a reason)", tc.k.Name(), p)
			}
			if _, ok := tc.k.TerraformAttribute(p); !ok && !excepted(noAttribute, p) {
				t.Errorf("%s: CRD property %s has no entry in the path table (paths.go)", tc.k.Name(), p)
			}
		}
	}
}

// The walk and the lookups are not vacuous: a nested property is found
// with its Terraform name, and a made-up one is not.
func TestPropertiesAndTerraformAttribute(t *testing.T) {
	props, err := Properties(EC2NodeClass)
	if err != nil {
		t.Fatal(err)
	}
	want := "spec.blockDeviceMappings.ebs.volumeInitializationRate"
	found := false
	for _, p := range props {
		found = found || p == want
	}
	if !found {
		t.Fatalf("%s not among %d properties", want, len(props))
	}
	for prop, attr := range map[string]string{
		want:                                 "block_device_mappings.ebs.volume_initialization_rate",
		"spec.networkInterfaces.deviceIndex": "network_interfaces.device_index",
		"spec.connectionTracking.udpTimeout": "connection_tracking.udp_timeout",
		"spec.ipPrefixCount":                 "ip_prefix_count",
		"metadata.name":                      "name",
	} {
		if got, ok := EC2NodeClass.TerraformAttribute(prop); !ok || got != attr {
			t.Errorf("TerraformAttribute(%s) = %q, %v; want %q", prop, got, ok, attr)
		}
	}
	if got, ok := NodePool.TerraformAttribute("spec.template.spec.nodeClassRef.name"); !ok || got != "node_class.name" {
		t.Errorf("nodeClassRef.name = %q, %v", got, ok)
	}
	for _, p := range []string{"spec.noSuchField", "spec.tags.team", "status"} {
		if _, ok := EC2NodeClass.TerraformAttribute(p); ok {
			t.Errorf("TerraformAttribute(%s) should not exist", p)
		}
	}
	if modelHas(reflect.TypeOf(manifest.EC2NodeClass{}), "spec.noSuchField") || !modelHas(reflect.TypeOf(manifest.EC2NodeClass{}), want) {
		t.Error("modelHas does not follow the json tags")
	}
}
