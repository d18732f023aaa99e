package lint

import (
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

func TestRegisteredTaints(t *testing.T) {
	kv := versions.DefaultKarpenter
	got := RegisteredTaints("#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute,gpu=true:NoSchedule'\n", kv)
	if len(got) != 2 || !got[0].Matches(taints.Unregistered) || got[1].Key != "gpu" {
		t.Fatalf("got %v", got)
	}
	// The ignored '=' form registers nothing.
	if got := RegisteredTaints("#!/bin/bash\n/etc/eks/bootstrap.sh demo --kubelet-extra-args='--register-with-taints=karpenter.sh/unregistered:NoExecute'\n", kv); len(got) != 0 {
		t.Fatalf("the = form must not count: %v", got)
	}
	// Set through something the linter cannot follow, but literally present.
	if got := RegisteredTaints("#!/bin/bash\nTAINTS=karpenter.sh/unregistered:NoExecute\n/etc/eks/bootstrap.sh demo --kubelet-extra-args \"--register-with-taints=$TAINTS\"\n", kv); len(got) != 1 || !got[0].Matches(taints.Unregistered) {
		t.Fatalf("got %v", got)
	}
}
