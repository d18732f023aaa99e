package crd

import (
	"strconv"
	"strings"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
)

// node is a CRD field that has a Terraform attribute or block. The trees
// list only fields the resources expose: a CRD path leaving a tree maps to its
// nearest ancestor inside it, so an error on a field the resource does not
// expose still lands on the enclosing attribute (or the whole resource).
type node struct {
	// tf is the Terraform attribute name; "" flattens the CRD level away
	// (spec, spec.template, metadata) so that its children sit at its
	// parent's level.
	tf string
	// explicit: tf was given, not derived with snake.
	explicit bool
	// list: [i] steps address elements, whose fields are fields.
	list bool
	// dict: a string-keyed map whose keys stay as written and whose values
	// are scalars.
	dict   bool
	fields fields
}

type fields map[string]*node

// attr is a scalar attribute.
func attr() *node { return &node{} }

// obj is an object attribute.
func obj(f fields) *node { return &node{fields: f} }

// list is a list attribute; f describes its elements (nil: scalars).
func list(f fields) *node { return &node{list: true, fields: f} }

// dict is a map attribute.
func dict() *node { return &node{dict: true} }

// flat is a CRD level without a Terraform attribute of its own.
func flat(f fields) *node { return &node{explicit: true, fields: f} }

// named gives n a Terraform name other than snake of its CRD name.
func named(tf string, n *node) *node { n.tf, n.explicit = tf, true; return n }

// tree names every node snake_case(CRD name) unless it was named or flat.
func tree(root *node) *node {
	for k, c := range root.fields {
		if !c.explicit {
			c.tf = snake(k)
		}
		tree(c)
	}
	return root
}

func selectorTags() *node { return dict() }

// ec2NodeClassTree: the karpenter_ec2nodeclass attributes are the spec fields
// at the top level, plus name.
var ec2NodeClassTree = tree(flat(fields{
	"metadata": flat(fields{"name": attr()}),
	"spec": flat(fields{
		"amiFamily": attr(),
		"amiSelectorTerms": list(fields{
			"alias": attr(), "id": attr(), "name": attr(), "owner": attr(),
			"ssmParameter": attr(), "tags": selectorTags(),
		}),
		"subnetSelectorTerms":        list(fields{"id": attr(), "tags": selectorTags()}),
		"securityGroupSelectorTerms": list(fields{"id": attr(), "name": attr(), "tags": selectorTags()}),
		"capacityReservationSelectorTerms": list(fields{
			"id": attr(), "ownerID": attr(), "tags": selectorTags(), "instanceMatchCriteria": attr(),
		}),
		"role":            attr(),
		"instanceProfile": attr(),
		"tags":            dict(),
		"kubelet": obj(fields{
			"maxPods": attr(), "podsPerCore": attr(),
			"systemReserved": dict(), "kubeReserved": dict(),
			"evictionHard": dict(), "evictionSoft": dict(), "evictionSoftGracePeriod": dict(),
			"evictionMaxPodGracePeriod":   attr(),
			"imageGCHighThresholdPercent": attr(), "imageGCLowThresholdPercent": attr(),
			"cpuCFSQuota": attr(), "clusterDNS": list(nil),
		}),
		"blockDeviceMappings": list(fields{
			"deviceName": attr(), "rootVolume": attr(),
			"ebs": obj(fields{
				"volumeSize": attr(), "volumeType": attr(), "iops": attr(), "throughput": attr(),
				"encrypted": attr(), "kmsKeyID": attr(), "deleteOnTermination": attr(), "snapshotID": attr(),
				"volumeInitializationRate": attr(),
			}),
		}),
		"metadataOptions": obj(fields{
			"httpEndpoint": attr(), "httpProtocolIPv6": attr(), "httpPutResponseHopLimit": attr(), "httpTokens": attr(),
		}),
		"instanceStorePolicy":      attr(),
		"associatePublicIPAddress": attr(),
		"detailedMonitoring":       attr(),
		"userData":                 attr(),
		"ipPrefixCount":            attr(),
		"networkInterfaces": list(fields{
			"networkCardIndex": attr(), "deviceIndex": attr(), "interfaceType": attr(),
		}),
		"placementGroupSelector": obj(fields{"name": attr(), "id": attr()}),
		"connectionTracking": obj(fields{
			"tcpEstablishedTimeout": attr(), "udpStreamTimeout": attr(), "udpTimeout": attr(),
		}),
		"cpuOptions": obj(fields{"nestedVirtualization": attr()}),
		"context":    attr(),
	}),
}))

// nodePoolTree: karpenter_nodepool flattens spec.template.{metadata,spec}
// to the top level and calls nodeClassRef node_class.
var nodePoolTree = tree(flat(fields{
	"metadata": flat(fields{"name": attr()}),
	"spec": flat(fields{
		"template": flat(fields{
			"metadata": flat(fields{"labels": dict(), "annotations": dict()}),
			"spec": flat(fields{
				"nodeClassRef": named("node_class", obj(fields{"group": attr(), "kind": attr(), "name": attr()})),
				"requirements": list(fields{
					"key": attr(), "operator": attr(), "values": list(nil), "minValues": attr(),
				}),
				"taints":                 list(fields{"key": attr(), "value": attr(), "effect": attr()}),
				"startupTaints":          list(fields{"key": attr(), "value": attr(), "effect": attr()}),
				"expireAfter":            attr(),
				"terminationGracePeriod": attr(),
			}),
		}),
		"disruption": obj(fields{
			"consolidationPolicy": attr(),
			"consolidateAfter":    attr(),
			"budgets": list(fields{
				"nodes": attr(), "schedule": attr(), "duration": attr(), "reasons": list(nil),
			}),
		}),
		"limits":   dict(),
		"weight":   attr(),
		"replicas": attr(),
	}),
}))

// nodeOverlayTree: karpenter_nodeoverlay has the spec fields at the top
// level, plus name.
var nodeOverlayTree = tree(flat(fields{
	"metadata": flat(fields{"name": attr()}),
	"spec": flat(fields{
		"requirements":    list(fields{"key": attr(), "operator": attr(), "values": list(nil)}),
		"priceAdjustment": attr(),
		"price":           attr(),
		"capacity":        dict(),
		"weight":          attr(),
	}),
}))

// TerraformPath maps a CRD field path as the API server prints it
// ("spec.amiSelectorTerms[0].alias", "spec.tags[team]",
// "spec.kubelet.evictionHard.memory.available") to the attribute of the
// kind's Terraform resource, or its nearest ancestor that exists there; the
// empty path is the whole resource.
func (k *Kind) TerraformPath(crdPath string) rules.Path { return resolve(k.tree, crdPath) }

func resolve(root *node, s string) rules.Path {
	var p rules.Path
	cur := root
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
			if cur.dict {
				// OpenAPI and pruning print map keys after a dot, and keys
				// contain dots ("memory.available"); dict values are scalars,
				// so the rest of the path is the key.
				return p.Key(s)
			}
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return p
			}
			tok := s[1:end]
			s = s[end+1:]
			switch {
			case cur.dict:
				return p.Key(tok)
			case cur.list:
				i, err := strconv.Atoi(tok)
				if err != nil {
					return p
				}
				p = p.Index(i)
				// Elements have the list's fields; a second index means a
				// list of lists, which the resources do not have.
				cur = &node{fields: cur.fields}
			default:
				return p
			}
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			child := cur.fields[s[:end]]
			if child == nil || cur.list {
				return p
			}
			s = s[end:]
			if child.tf != "" {
				p = p.Attr(child.tf)
			}
			cur = child
		}
	}
	return p
}
