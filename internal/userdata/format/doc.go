// Package format reads and writes the userData documents as Karpenter's
// bootstrap code does (aws/karpenter-provider-aws v1.14.1
// pkg/providers/amifamily/bootstrap and its mime package): multipart MIME
// archives, Bottlerocket settings TOML, and the test that makes AL2023
// userData a nodeadm NodeConfig document. It holds no rules.
package format
