// Package checks holds the one check sequence per object kind that every
// front end runs: the karpenter_nodepool, karpenter_ec2nodeclass and
// karpenter_nodeoverlay resources, validate_manifest and karpenter-lint
// (lint and schedule). A sequence takes the object, the facts the front end
// has (the Karpenter release, the class a pool names, the class's AWS facts,
// which may be absent or unknown) and returns the domain's findings in one
// order; the front ends convert their inputs, locate and render the
// findings (Terraform attribute paths and HCL, or manifest fields and YAML)
// and apply their own acknowledgements or ignore annotations.
//
// ReadClass is the one reader of what AWS says about an EC2NodeClass's
// readiness (subnets, security groups, capacity reservations, the role or
// instance profile), with the rules for a denied, unserved or failed read.
// The Source it reads (awsclient.Cache) answers each distinct question once
// per process, so classes sharing selectors share the calls.
//
// The model is kube-linter's run.Run: one function behind every command,
// thin adapters around it.
package checks
