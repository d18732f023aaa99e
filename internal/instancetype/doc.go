// Package instancetype holds EC2 instance-type facts as Karpenter sees them
// and answers, in one call (Admit), which families, architectures and types
// a NodePool's requirements let Karpenter launch.
//
// Two sources (Catalogue.Source):
//
//   - live: ec2:DescribeInstanceTypes of the provider's region (cached once
//     per process by awsclient.Cache), turned into the labels Karpenter's
//     computeRequirements gives each type (FromEC2), with the network facts
//     its pod capacity comes from (Type.Pods). Used whenever AWS is
//     configured (awsclient.Clients.Configured); an AWS error is returned,
//     not papered over.
//   - embedded: offline facts for the known families. The family NAMES and
//     their sizes are embedded (known_types.txt); the facts per family come
//     from the naming rule plus exception lists (family.go): arm64 iff a1 or
//     the attribute suffix contains "g"; NVIDIA/AMD/Gaudi GPU, Neuron and
//     other-accelerator lists; the unparseable u-*tb1 families. Unknown
//     families are errors (LookupFamily) or "unknown values", never guessed.
//     Legacy families (retired from the reference snapshot) stay known so
//     that requirements naming them are not flagged as typos.
//
// Offline only family-level labels are exact. Labels whose values are per
// type (vCPU, memory, GPU count/name/memory, accelerator count/name, local
// NVMe, CPU manufacturer and clock, encryption in transit, non-metal
// hypervisor) are "defined, value unknown" or left undefined, so a
// requirement on them "may match": the admission is then a superset and
// Admission.Undecided names the keys (Findings warns). Neither source
// evaluates labels that depend on offerings or the EC2NodeClass (zones,
// region, zone-id, Windows build, reservations, placement groups).
//
// Karpenter also reads per-type tables generated into its source (VPC
// limits: branch ENIs and IPv4 addresses per ENI; network bandwidth): they
// are embedded by name (tables.go, karpenter_tables.txt) and serve both
// sources. Live types also carry the facts a node's capacity is computed
// from (Type.Network, Type.Resources; package capacity computes it).
package instancetype
