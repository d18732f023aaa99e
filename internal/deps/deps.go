//go:build deps

// Package deps pins modules that later packages of this change will import, so
// `go mod tidy` keeps them until they are used for real. It is never built.
package deps

import (
	_ "github.com/aws/karpenter-provider-aws/pkg/apis"
	_ "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	_ "github.com/pelletier/go-toml/v2"
	_ "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	_ "k8s.io/apimachinery/pkg/util/validation"
	_ "mvdan.cc/sh/v3/syntax"
	_ "sigs.k8s.io/yaml"
)
