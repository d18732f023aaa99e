// Package scheduling predicts Karpenter v1.14's provisioning decision for
// an empty cluster: which NodePool takes each pod of a set of workloads,
// which NodeClaims Karpenter would create, and why it would not place a
// pod. It answers the data source karpenter_scheduling and, through the
// same plain Go API (Parse, Parsed.Decide, inputs as YAML documents plus
// AWS facts), karpenter-lint schedule.
//
// The decision is Karpenter's own code run in-process:
// sigs.k8s.io/karpenter pkg/controllers/provisioning/scheduling
// (NewTopology, NewScheduler, Solve, Results.TruncateInstanceTypes) with
// the glue of Provisioner.Schedule and NewScheduler reproduced here and
// checked by internal/differential against the full provisioner:
// Provisioner.Validate ("ignoring pod, ..."), NodePools that are not Ready
// or static left out, weight order, the volume topology of each pod,
// DaemonSet pods from their templates (no daemon pod exists yet), the
// scheduler options Schedule passes (strict reserved capacity, one worker,
// strict minValues), and Karpenter's controller defaults (preferences
// respected, DRA requests ignored, ReservedCapacity on). The AWS
// provider's globals are registered as its controller registers them
// (well-known labels, the reservation label, the EBS CSI zone label).
//
// What Karpenter reads from a cluster is built here instead:
//
//   - Instance types (Catalogue): karpenter-provider-aws's instance-type
//     provider for a class: the labels of package instancetype, the
//     class's family (OS, Windows build, a1 on AL2023), its network
//     interfaces, CPU options and connection tracking
//     (IsCompatibleWithNodeClass), the zones of its subnets intersected
//     with DescribeInstanceTypeOfferings, capacity and overhead from
//     package capacity, and offerings per zone and capacity type priced
//     from the static table Karpenter ships (prices.txt: spot at the
//     on-demand figure, as before Karpenter's first spot price update;
//     regions without a table use us-east-1's), plus one reserved
//     offering per capacity reservation of the class with instances left.
//   - The cluster (kube): a read-only in-memory API server holding the
//     workloads' claims, volumes, storage classes, priority classes and
//     namespaces, and, with Input.ClusterState (package snapshot), the
//     snapshot's nodes and bound pods; Karpenter's cluster state is filled
//     from its NodeClaims, nodes and pods (cluster.go), so pods go first
//     to existing nodes as Karpenter's scheduler places them.
//   - Pods (readWorld): what the controllers would create on an empty
//     cluster: replicas of Deployments and ReplicaSets, StatefulSet pods
//     and the claims of their volumeClaimTemplates, min(parallelism,
//     completions) pods of a Job or a CronJob's job template, generic
//     ephemeral volume claims; with the API server's defaults and
//     admission that the decision reads (requests from limits, the default
//     StorageClass, DefaultTolerationSeconds, PriorityClasses, refusing a
//     pod whose PriorityClass does not exist). Each pod is pending and
//     marked unschedulable, as kube-scheduler marks it on an empty cluster.
//
// Karpenter decides some things arbitrarily; the output is canonical
// (canonical.go), so that the same input reads the same on every plan:
// pods are numbered in input order (Karpenter orders equal pods by their
// random UIDs), instance types of equal price are given to the scheduler,
// and listed, by name (Karpenter's list comes from a Go map), replicas are
// numbered in the order of the NodeClaims they land on, NodeClaims are
// sorted, and zones Karpenter cannot tell apart (it breaks zone ties in Go
// map order) are named canonically. A tie between zones that differ (the
// instance types a pool admits are not offered alike in them, or an input
// names one) is Karpenter's own coin toss: the NodeClaim then lists all the
// tied zones (Decision.NodeClaims; Decision.Drawn keeps the scheduler's own
// pick), so the same input reads the same on every plan.
//
// NodeOverlays (Input.NodeOverlays, and those among Input.Karpenter) are
// applied to the pools' instance types by Karpenter's own overlay
// controller (internal/nodeoverlay) when Facts.NodeOverlayGate says the
// cluster runs with the NodeOverlay feature gate on; with it off each is a
// warning that Karpenter ignores it. Karpenter evaluates overlays against
// every NodePool; the prediction against the pools it schedules with (a
// conflict through a pool it leaves out is not seen).
//
// Not modelled (a live cluster's facts): without a cluster state, nodes and
// pods already running; with one, the snapshot's own pending pods (only
// the workloads' pods are scheduled); placement
// groups, zonal shifts, offerings Karpenter has seen fail (its ICE cache),
// the memory Karpenter learns from nodes it launched, LimitRanges and
// RuntimeClass overhead, an HPA's scaling between its bounds (only
// replicas or maxReplicas, Input.Scale), pods of other schedulers, and Karpenter's one-minute limit per scheduling loop
// (the prediction decides the whole batch at once).
package scheduling
