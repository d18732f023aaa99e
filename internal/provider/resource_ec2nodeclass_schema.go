package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// kubeletAttrTypes is the object type of the EC2NodeClass's kubelet block.
var kubeletAttrTypes = map[string]attr.Type{
	"max_pods":                        types.Int64Type,
	"pods_per_core":                   types.Int64Type,
	"cluster_dns":                     types.ListType{ElemType: types.StringType},
	"system_reserved":                 types.MapType{ElemType: types.StringType},
	"kube_reserved":                   types.MapType{ElemType: types.StringType},
	"eviction_hard":                   types.MapType{ElemType: types.StringType},
	"eviction_soft":                   types.MapType{ElemType: types.StringType},
	"eviction_soft_grace_period":      types.MapType{ElemType: types.StringType},
	"eviction_max_pod_grace_period":   types.Int64Type,
	"image_gc_high_threshold_percent": types.Int64Type,
	"image_gc_low_threshold_percent":  types.Int64Type,
	"cpu_cfs_quota":                   types.BoolType,
}

var taintAttrTypes = map[string]attr.Type{"key": types.StringType, "value": types.StringType, "effect": types.StringType}

// nodeClassAttrTypes is the object a NodePool consumes: what its checks
// read of the class, one line per image and zone.
var nodeClassAttrTypes = map[string]attr.Type{
	"name":              types.StringType,
	"ami_family":        types.StringType,
	"amis":              classAMIsType,
	"registered_taints": types.ListType{ElemType: types.ObjectType{AttrTypes: taintAttrTypes}},
	"zones":             zonesType,
}

// kubeletDescriptions document each kubelet setting once.
var kubeletDescriptions = map[string]string{
	"max_pods":                        "Maximum pods per node. Karpenter otherwise uses the instance type's ENI-limited pod count.",
	"pods_per_core":                   "Pods per vCPU; the lower of this and max_pods wins. Ignored on Bottlerocket.",
	"cluster_dns":                     "Cluster DNS server addresses; default: the cluster's kube-dns address.",
	"system_reserved":                 "Resources reserved for system daemons: keys `cpu`, `memory`, `ephemeral-storage`, `pid`.",
	"kube_reserved":                   "Resources reserved for Kubernetes daemons: keys `cpu`, `memory`, `ephemeral-storage`, `pid`.",
	"eviction_hard":                   "Hard eviction thresholds by signal (`memory.available`, `nodefs.available`, `nodefs.inodesFree`, `imagefs.available`, `imagefs.inodesFree`, `pid.available`): a percentage or a quantity.",
	"eviction_soft":                   "Soft eviction thresholds by signal; each needs an entry in `eviction_soft_grace_period`.",
	"eviction_soft_grace_period":      "Grace periods of the soft eviction thresholds, as durations (`1m30s`).",
	"eviction_max_pod_grace_period":   "Maximum pod termination grace period, in seconds, on soft eviction.",
	"image_gc_high_threshold_percent": "Disk usage percentage that starts image garbage collection; must be greater than the low threshold.",
	"image_gc_low_threshold_percent":  "Disk usage percentage image garbage collection frees down to.",
	"cpu_cfs_quota":                   "Enforce CPU limits with CFS quota.",
}

func kubeletAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{}
	for name, t := range kubeletAttrTypes {
		d := kubeletDescriptions[name]
		switch t {
		case types.Int64Type:
			// Ranges are kubelet-config-invalid's (one mistake, one diagnostic).
			attrs[name] = schema.Int64Attribute{Optional: true, Description: d}
		case types.BoolType:
			attrs[name] = schema.BoolAttribute{Optional: true, Description: d}
		default:
			if _, isList := t.(types.ListType); isList {
				attrs[name] = schema.ListAttribute{ElementType: types.StringType, Optional: true, Description: d}
			} else {
				attrs[name] = schema.MapAttribute{ElementType: types.StringType, Optional: true, Description: d}
			}
		}
	}
	return attrs
}

// amiKeyDoc says how images are keyed, once for every keyed attribute.
const amiKeyDoc = "Keyed `<architecture>/<variant>` for alias images (`amd64/standard`, `arm64/nvidia`), `<architecture>` otherwise; " +
	"when several requirement sets share a key each gets `#<n>`. A new release changes ids and names under the same keys."

// classAMIsDoc documents node_class.amis on both resources: one line per
// image, so pools' plans print one line per image.
var classAMIsDoc = "The class's images, one line each: " + classAMIForm + " (the requirements as in the class's `amis`, " +
	"`kubernetes.io/arch In amd64; karpenter.k8s.aws/instance-gpu-count Exists`; the name may hold anything, the other fields hold no `|`), e.g. `" +
	exampleClassAMI + "`. " + amiKeyDoc

// taintsAttribute is the taint list of node_class: computed on the class,
// an optional input on the pool (passed through from the class, so it is
// not validated again).
func taintsAttribute(description string, computed bool) schema.ListNestedAttribute {
	mode := func(d string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Description: d}
	}
	return schema.ListNestedAttribute{
		Optional: !computed, Computed: computed, Description: description,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"key": mode("Taint key."), "value": mode("Taint value; empty for `key:Effect`."), "effect": mode("`NoSchedule`, `PreferNoSchedule` or `NoExecute`."),
		}},
	}
}

// taintsBlock is a list of taints written as blocks; Kubernetes' taint
// rules (nodepool-taint-invalid and friends) check the values, so no
// framework validator repeats them.
func taintsBlock(description string) schema.ListNestedBlock {
	return schema.ListNestedBlock{
		Description: description,
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"key":    schema.StringAttribute{Required: true, Description: "Taint key, a qualified name (`example.com/gpu`)."},
			"value":  schema.StringAttribute{Optional: true, Description: "Taint value, a label value (no `/`); omit for `key:Effect`."},
			"effect": schema.StringAttribute{Required: true, Description: "`NoSchedule`, `PreferNoSchedule` or `NoExecute`."},
		}},
	}
}

func selectorTags() schema.MapAttribute {
	return schema.MapAttribute{
		ElementType: types.StringType, Optional: true,
		Description: "Tags that must match; `*` matches any value of the key. At most 20, no empty keys or values.",
	}
}

func (r *ec2NodeClassResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Renders a Karpenter `EC2NodeClass` (`karpenter.k8s.aws/v1`) and fails validate/plan on every mistake Karpenter, EC2, " +
			"the kubelet or the CRD would reject or silently mishandle. AMIs are resolved at plan exactly as Karpenter resolves them, the " +
			"Custom userData of `bootstrap` is rendered, and `manifest` and `node_class` are known at plan whenever their inputs are. " +
			"Nothing is created outside Terraform state: apply the `manifest` with kubernetes_manifest, kubectl_manifest, Helm or GitOps.",
		Attributes: map[string]schema.Attribute{
			// No `id`: it would be the name again, printed in every plan of
			// the resource; neither Terraform nor the framework needs one.
			"name": schema.StringAttribute{
				Required: true, Description: "Name of the EC2NodeClass (metadata.name). Changing it replaces the resource.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"ami_family": schema.StringAttribute{
				Optional: true,
				Description: "`AL2`, `AL2023`, `Bottlerocket`, `Custom`, `Windows2019`, `Windows2022` or `Windows2025` (Karpenter 1.9+). Decides the " +
					"userData format and default block devices, not which images are found. Required without an alias; with an alias it may only " +
					"be the alias family or `Custom`.",
			},
			"role": schema.StringAttribute{
				Optional: true, Description: "IAM role name of the nodes; Karpenter manages the instance profile. Exactly one of `role` and `instance_profile`.",
			},
			"instance_profile": schema.StringAttribute{
				Optional: true, Description: "IAM instance profile name you manage. Exactly one of `role` and `instance_profile`.",
			},
			"tags": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				Description: "Tags on the instances, volumes and launch templates Karpenter creates. Keys Karpenter and EKS reserve are rejected.",
			},
			"instance_store_policy": schema.StringAttribute{
				Optional: true, Description: "`RAID0`: stripe the instance store volumes and use them for the kubelet and containerd.",
			},
			"ip_prefix_count": schema.Int64Attribute{
				Optional: true, Description: "IPv4 prefixes (/28) assigned to each node's primary network interface (spec.ipPrefixCount; Karpenter 1.8+). Not hashed for drift.",
			},
			"context": schema.StringAttribute{
				Optional: true, Description: "The EC2 launch context Karpenter passes to CreateFleet (spec.context), e.g. for AWS Outposts or Local Zones reservations.",
			},
			"associate_public_ip_address": schema.BoolAttribute{Optional: true, Description: "Give the nodes public IP addresses."},
			"detailed_monitoring":         schema.BoolAttribute{Optional: true, Description: "Enable detailed CloudWatch monitoring."},
			"user_data": schema.StringAttribute{
				Optional: true, Computed: true,
				Description: "userData Karpenter merges with what it generates (or, with `Custom`, uses as is). Linted for the family. With `bootstrap`, computed: the rendered Custom userData.",
			},
			// No computed default: unset means false, and a plan does not
			// print `pin_amis = false` on every class that never set it.
			"pin_amis": schema.BoolAttribute{
				Optional: true,
				Description: "Pin what the selector resolves to now in `manifest`, so images change only through a visible plan diff: an `@latest` " +
					"alias is written pinned to its current release (`al2023@v20251209`, `bottlerocket@1.51.0-47438798`), which keeps the " +
					"standard/NVIDIA/Neuron variants; other terms (and Windows aliases, which have no releases) are written as the resolved `id` " +
					"terms with `amiFamily`. With `false` (the default, also when unset) the manifest keeps the selector terms, and a new image shows as an update of `amis`.",
			},
			"acknowledged_warnings": acknowledgedWarningsAttribute(),
			"manifest": schema.StringAttribute{
				Computed: true, Description: "The EC2NodeClass as YAML (sorted keys, no status), validated against Karpenter's CRD.",
			},
			"amis": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				Description: "The images Karpenter would put in `status.amis`, resolved at plan, one line each: " + classAMIForm +
					", e.g. `" + exampleClassAMI + "`. " + amiKeyDoc + " The images' other fields (owner, deprecation, requirements as a list) " +
					"are on `data \"karpenter_amis\"`.",
			},
			"node_class": schema.SingleNestedAttribute{
				Computed: true,
				Description: "What a karpenter_nodepool reads of this class, and nothing of its manifest: pass it as the pool's `node_class`. " +
					"One line per image and per zone, so a new release changes one line per image that changed.",
				Attributes: map[string]schema.Attribute{
					"name":              schema.StringAttribute{Computed: true, Description: "The class name (the pool's nodeClassRef)."},
					"ami_family":        schema.StringAttribute{Computed: true, Description: "The resolved amiFamily: the pool's checks per family."},
					"amis":              schema.MapAttribute{ElementType: types.StringType, Computed: true, Description: classAMIsDoc},
					"registered_taints": taintsAttribute("For Custom classes: the taints the userData registers. Null for other families, whose userData Karpenter renders per NodePool.", true),
					"zones": schema.MapAttribute{
						ElementType: types.StringType, Computed: true,
						Description: "The zones of the class's subnets, each mapped to its zone id (`us-east-1a` = `use1-az1`): pools check their zone " +
							"and zone-id requirements and instance families against them. Null when the readiness checks are skipped.",
					},
				},
			},
			"subnets": statusMap("The subnets `subnet_selector_terms` select (status.subnets), one line each: subnet id = `<zone> (<zone id>), <n> free`, " +
				"e.g. `us-east-1a (use1-az1), 8123 free`. The free IPv4 addresses are those when the selection last changed: while the same subnets " +
				"are selected the recorded counts are kept, so address churn does not update the class on every plan (the subnet-free-addresses-low " +
				"warning always uses fresh counts)."),
			"security_groups": statusMap("The security groups `security_group_selector_terms` select (status.securityGroups), one line each: group id = " +
				"`<group name> (<vpc id>)`, the group name, not its Name tag."),
			"capacity_reservations": statusMap("The capacity reservations `capacity_reservation_selector_terms` select (status.capacityReservations): active, not " +
				"ended, `open` or `targeted`, one line each: reservation id = `<instance type> in <zone>, <instance match criteria> <reservation type>, " +
				"<state>[ until <end time>], owner <account>`, e.g. `p5.48xlarge in us-east-1a, targeted capacity-block, active until " +
				"2026-12-01T12:00:00Z, owner 111122223333`; `expiring` is a capacity block within 40 minutes of its end. Null without `capacity_reservation_selector_terms` (empty when they select nothing)."),
			"status_conditions": statusMap("The status conditions Karpenter would set, one line each: type = `True`, or `<status>: <reason>` (`False: SubnetsNotFound`); " +
				"the message is in the plan's diagnostics. `AMIsReady`, `SubnetsReady`, `SecurityGroupsReady`, `InstanceProfileReady` and, from " +
				"Karpenter 1.6 (the ReservedCapacity feature gate on by default), `CapacityReservationsReady`. A condition whose inputs are not known " +
				"yet (e.g. `role` from a resource created in the same run) is unknown at plan."),
		},
		Blocks: map[string]schema.Block{
			"metadata": metadataBlock("EC2NodeClass"),
			"ami_selector_terms": schema.ListNestedBlock{
				Description: descTerms,
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"alias":         schema.StringAttribute{Optional: true, Description: descAlias},
					"id":            schema.StringAttribute{Optional: true, Description: descID},
					"name":          schema.StringAttribute{Optional: true, Description: descName},
					"owner":         schema.StringAttribute{Optional: true, Description: descOwner},
					"tags":          schema.MapAttribute{ElementType: types.StringType, Optional: true, Description: descTags},
					"ssm_parameter": schema.StringAttribute{Optional: true, Description: descSSMParameter},
				}},
			},
			"subnet_selector_terms": schema.ListNestedBlock{
				Description: "Subnets to launch in: conditions inside a term are ANDed, terms are ORed. 1 to 30 terms.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"id":   schema.StringAttribute{Optional: true, Description: "A subnet id, alone in its term."},
					"tags": selectorTags(),
				}},
			},
			"security_group_selector_terms": schema.ListNestedBlock{
				Description: "Security groups of the nodes: conditions inside a term are ANDed, terms are ORed. 1 to 30 terms.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"id":   schema.StringAttribute{Optional: true, Description: "A security group id, alone in its term."},
					"name": schema.StringAttribute{Optional: true, Description: "A security group name, alone in its term."},
					"tags": selectorTags(),
				}},
			},
			"capacity_reservation_selector_terms": schema.ListNestedBlock{
				Description: "On-demand capacity reservations Karpenter may use (Karpenter 1.3+).",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"id":                      schema.StringAttribute{Optional: true, Description: "A reservation id (`cr-...`), alone in its term."},
					"owner_id":                schema.StringAttribute{Optional: true, Description: "Account id owning the reservation."},
					"tags":                    selectorTags(),
					"instance_match_criteria": schema.StringAttribute{Optional: true, Description: "`open` or `targeted`."},
				}},
			},
			"kubelet": schema.SingleNestedBlock{
				Description: "Kubelet settings of the nodes (the typed spec.kubelet of Karpenter 1.0-1.14).",
				Attributes:  kubeletAttributes(),
			},
			"block_device_mappings": schema.ListNestedBlock{
				Description: "EBS volumes of the nodes; they replace Karpenter's family defaults. At most one root volume.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"device_name": schema.StringAttribute{Optional: true, Description: "Device name, e.g. `/dev/xvda`."},
					"root_volume": schema.BoolAttribute{Optional: true, Description: "Whether this is the root volume (ephemeral storage for the kubelet)."},
				}, Blocks: map[string]schema.Block{
					"ebs": schema.SingleNestedBlock{
						Description: "The EBS volume.",
						Attributes: map[string]schema.Attribute{
							"volume_size":           schema.StringAttribute{Optional: true, Description: "Size as a Kubernetes quantity: `100Gi` (binary) or `100G` (decimal, rounded up to GiB)."},
							"volume_type":           schema.StringAttribute{Optional: true, Description: "`standard`, `io1`, `io2`, `gp2`, `sc1`, `st1` or `gp3`."},
							"iops":                  schema.Int64Attribute{Optional: true, Description: "Provisioned IOPS (io1, io2, gp3)."},
							"throughput":            schema.Int64Attribute{Optional: true, Description: "Throughput in MiB/s (gp3)."},
							"encrypted":             schema.BoolAttribute{Optional: true, Description: "Encrypt the volume."},
							"kms_key_id":            schema.StringAttribute{Optional: true, Description: "KMS key for encryption."},
							"delete_on_termination": schema.BoolAttribute{Optional: true, Description: "Delete the volume with the instance."},
							"snapshot_id":           schema.StringAttribute{Optional: true, Description: "Snapshot to create the volume from."},
							"volume_initialization_rate": schema.Int64Attribute{Optional: true,
								Description: "MiB/s at which the volume is hydrated from `snapshot_id` (100-300; needs `snapshot_id`; Karpenter 1.5+)."},
						},
					},
				}},
			},
			"network_interfaces": schema.ListNestedBlock{
				Description: "The nodes' network interfaces (spec.networkInterfaces; Karpenter 1.11+), one block each: the primary one at card 0, device 0, " +
					"type `interface`, plus e.g. `efa-only` interfaces. Replaces Karpenter's own EFA interface count.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"network_card_index": schema.Int64Attribute{Required: true, Description: "Network card index (0 for the first)."},
					"device_index":       schema.Int64Attribute{Required: true, Description: "Device index on the card (0 for the primary interface)."},
					"interface_type":     schema.StringAttribute{Required: true, Description: "`interface` or `efa-only`."},
				}},
			},
			"placement_group_selector": schema.SingleNestedBlock{
				Description: "The placement group the nodes launch into (spec.placementGroupSelector; Karpenter 1.11+): exactly one of `name` and `id`.",
				Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Optional: true, Description: "Placement group name."},
					"id":   schema.StringAttribute{Optional: true, Description: "Placement group id, `pg-...`."},
				},
			},
			"connection_tracking": schema.SingleNestedBlock{
				Description: "Security group connection tracking timeouts of the nodes' interfaces, in seconds (spec.connectionTracking; Karpenter 1.13+; Nitro instance types).",
				Attributes: map[string]schema.Attribute{
					"tcp_established_timeout": schema.Int64Attribute{Optional: true, Description: "60 to 432000."},
					"udp_stream_timeout":      schema.Int64Attribute{Optional: true, Description: "60 to 180."},
					"udp_timeout":             schema.Int64Attribute{Optional: true, Description: "30 to 60."},
				},
			},
			"cpu_options": schema.SingleNestedBlock{
				Description: "CPU options of the nodes (spec.cpuOptions; Karpenter 1.13+).",
				Attributes: map[string]schema.Attribute{
					"nested_virtualization": schema.StringAttribute{Optional: true, Description: "`enabled` or `disabled`; `enabled` limits the instance types EC2 can launch."},
				},
			},
			"metadata_options": schema.SingleNestedBlock{
				Description: "Instance metadata service settings. Karpenter's defaults: endpoint enabled, IPv6 disabled, hop limit 1, tokens required.",
				Attributes: map[string]schema.Attribute{
					"http_endpoint":               schema.StringAttribute{Optional: true, Description: "`enabled` or `disabled`."},
					"http_protocol_ipv6":          schema.StringAttribute{Optional: true, Description: "`enabled` or `disabled`."},
					"http_put_response_hop_limit": schema.Int64Attribute{Optional: true, Description: "1 to 64."},
					"http_tokens":                 schema.StringAttribute{Optional: true, Description: "`required` or `optional`."},
				},
			},
			"bootstrap": schema.SingleNestedBlock{
				Description: "Render complete Custom userData (only with ami_family = \"Custom\", not with user_data). It always registers " +
					"`karpenter.sh/unregistered:NoExecute` plus the listed taints in the form the format needs. Cluster facts default to the provider's cluster block.",
				Blocks: map[string]schema.Block{
					"register_with_taints": taintsBlock("Taints the node registers with, besides karpenter.sh/unregistered:NoExecute, one block each. List the NodePools' startup taints here."),
				},
				Attributes: map[string]schema.Attribute{
					"format": schema.StringAttribute{
						// Optional in the schema: the framework would demand a
						// Required attribute of a single block even when the block is
						// absent; bootstrap-input-missing reports it when it is not.
						Optional: true, Description: "Required: `bootstrap.sh` (AL2-style), `nodeadm` (AL2023 NodeConfig) or `bottlerocket` (TOML).",
					},
					"cluster_name":          schema.StringAttribute{Optional: true, Description: "Cluster name; default: the provider's cluster."},
					"api_server_endpoint":   schema.StringAttribute{Optional: true, Description: "API server URL; default: the provider's cluster."},
					"certificate_authority": schema.StringAttribute{Optional: true, Description: "Base64 PEM CA bundle; default: the provider's cluster."},
					"service_cidr":          schema.StringAttribute{Optional: true, Description: "Service CIDR; default: the provider's cluster."},
					"cluster_dns":           schema.StringAttribute{Optional: true, Description: "Cluster DNS IP; default: the provider's cluster."},
					"node_labels":           schema.MapAttribute{ElementType: types.StringType, Optional: true, Description: "Labels the kubelet registers the node with."},
					"kubelet_extra_args":    schema.ListAttribute{ElementType: types.StringType, Optional: true, Description: "Extra kubelet flags, one per element (`--flag=value`); not with `bottlerocket`."},
					"pre_bootstrap_script":  schema.StringAttribute{Optional: true, Description: "Shell run before bootstrapping (not with `bottlerocket`)."},
					"post_bootstrap_script": schema.StringAttribute{Optional: true, Description: "Shell run after bootstrapping (not with `bottlerocket`)."},
				},
			},
		},
	}
	for name, a := range driftHashAttributes("karpenter.k8s.aws/ec2nodeclass-hash", "karpenter.k8s.aws/ec2nodeclass-hash-version",
		"from Karpenter 1.12 without the cluster's CA bundle (from the provider's `cluster` block or `eks:DescribeCluster`), which the hash includes") {
		resp.Schema.Attributes[name] = a
	}
}

// Readiness attributes: what Karpenter would put in the class's status,
// read at plan with Karpenter's own queries. Each is known at plan when the
// selector terms it comes from are known, and null when the checks are
// skipped (no AWS configured, as in terraform validate, or an endpoint that
// does not serve ec2:DescribeSubnets).
const readinessNull = " Null when the readiness checks are skipped: no AWS configured (the provider needs a region, profile, endpoint or " +
	"AWS_REGION to ask AWS), or an endpoint that does not serve ec2:DescribeSubnets."

// statusMap is a computed status collection, one line per entry.
func statusMap(description string) schema.MapAttribute {
	return schema.MapAttribute{ElementType: types.StringType, Computed: true, Description: description + readinessNull}
}
