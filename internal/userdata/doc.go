// Package userdata renders the node userData Karpenter (karpenter-provider-aws
// v1.14.1) generates for each AMI family (AL2 bootstrap.sh, AL2023 nodeadm
// NodeConfig, Bottlerocket settings TOML, Windows PowerShell, Custom passed
// through) and renders complete Custom userData from the `bootstrap` block.
// Rendering reproduces Karpenter's bytes (before base64) except where
// Karpenter's output is not deterministic (map-valued kubelet arguments,
// whose keys are sorted here); golden files under testdata/ pin the layout.
//
// Its subpackages split the rest as Karpenter splits its bootstrap code:
// format reads and writes the userData documents (MIME multipart,
// Bottlerocket settings), shell parses bash and PowerShell, and lint holds
// the userData rules: the checks of the values rendered into a script and
// the linter of userData written by hand. Every check is a rule of the
// catalogue in package rules; the functions return findings and never
// panic on any input.
package userdata
