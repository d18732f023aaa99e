// Command rulesdoc writes the rules guide template (templates/guides/rules.md.tmpl)
// from the rule catalogue; make generate runs it before tfplugindocs.
package main

import (
	"fmt"
	"os"

	// The provider writes the guide and imports every package that
	// registers rules.
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/provider"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: rulesdoc OUTPUT")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], []byte(provider.RulesGuide()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
