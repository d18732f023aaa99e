// Package lint holds the userData rules of the catalogue (category
// userData) and applies them: the checks of values before package userdata
// renders them into a script (cluster name, endpoint, CA, taints, labels,
// kubelet maps), and the linter of userData written by hand, per AMI family
// and for Custom userData (bootstrap.sh, NodeConfig, Bottlerocket TOML,
// Start-EKSBootstrap.ps1, MIME), including which taints it registers the
// node with. It reads scripts with package shell and documents with package
// format; it returns findings and never panics on any input.
package lint
