package nodepool

// Categories of the docs page.
const (
	Category      = "NodePool"
	ClassCategory = "NodePool and EC2NodeClass"
)

const (
	srcCRD        = "NodePool CRD (aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml)"
	srcRuntime    = "kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool_validation.go RuntimeValidate"
	srcTaintsRule = "kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_validation.go validateTaintsField"
)
