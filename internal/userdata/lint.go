package userdata

import (
	"path"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/taints"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// lintCtx carries what one Lint call learns.
type lintCtx struct {
	family    Family
	karpenter versions.Karpenter
	fs        rules.Findings
	// registered are the taints the userData registers the node with
	// (bootstrap.sh extra args, NodeConfig, Bottlerocket node-taints).
	registered   []taints.Taint
	sawTaintFlag bool
	// ignored is source text the checks proved ineffective (a
	// `--kubelet-extra-args=...` word); the raw-text fallback of the
	// unregistered-taint check does not count taints inside it.
	ignored []string
}

func (c *lintCtx) add(f ...rules.Finding) { c.fs = append(c.fs, f...) }

// Lint checks userData written by hand for amiFamily family, as Karpenter
// release karpenter would treat it, and returns every finding in source
// order. Paths are empty: the finding is about the userData as a whole and
// its Detail names the offending text. It never panics, whatever the input.
func Lint(family Family, userData string, karpenter versions.Karpenter) rules.Findings {
	c := &lintCtx{family: family, karpenter: karpenter}
	if len(userData) > MaxSize {
		c.add(tooLarge(len(userData), "The userData alone"))
	}
	switch {
	case family == AL2:
		c.lintAL2(userData)
	case family == AL2023:
		c.lintAL2023(userData)
	case family == Bottlerocket:
		c.lintBottlerocketFamily(userData)
	case family.IsWindows():
		c.lintWindows(userData)
	case family == Custom:
		c.lintCustom(userData)
	}
	return c.fs
}

func (c *lintCtx) lintAL2(ud string) {
	if ud == "" {
		return
	}
	if looksLikeMIME(ud) {
		a, ok := c.readMIME(ud)
		if !ok {
			return
		}
		for i, p := range a.Parts {
			if isShellPart(p) {
				c.lintShell(p.Body, partName(i))
			}
		}
		return
	}
	if looksLikeTOML(ud) {
		c.add(formatMismatch("AL2", "Bottlerocket settings TOML", "Karpenter wraps it as a shell script part and cloud-init fails to execute it; AL2 takes shell scripts or MIME archives"))
		return
	}
	if strings.HasPrefix(strings.TrimSpace(ud), "#cloud-config") {
		c.add(formatMismatch("AL2", "a #cloud-config document", "Karpenter wraps anything that is not MIME as a text/x-shellscript part, so cloud-init tries to execute the YAML and fails; put it in a MIME part with Content-Type: text/cloud-config"))
		return
	}
	c.lintShell(ud, "")
}

func (c *lintCtx) lintAL2023(ud string) {
	if ud == "" {
		return
	}
	if looksLikeMIME(ud) {
		a, ok := c.readMIME(ud)
		if !ok {
			return
		}
		for i, p := range a.Parts {
			if cte := p.Header.Get("Content-Transfer-Encoding"); cte != "" {
				c.add(rules.New(ruleMIMEEncoding, rules.Path{},
					"%s has \"Content-Transfer-Encoding: %s\"; for AL2023 Karpenter keeps only each part's Content-Type, so the body reaches cloud-init/nodeadm still encoded and without the header. Put the part's content in plain text.", partName(i), cte))
			}
			switch {
			case isShellPart(p):
				c.lintShell(p.Body, partName(i))
			case mediaType(p) == contentTypeNodeadm:
				c.lintNodeConfig(p.Body, partName(i))
			}
		}
		return
	}
	if isNodeConfigDocument(ud) {
		c.lintNodeConfig(ud, "")
		return
	}
	if looksLikeTOML(ud) {
		c.add(formatMismatch("AL2023", "Bottlerocket settings TOML", "Karpenter wraps it as a shell script part and cloud-init fails to execute it; AL2023 takes NodeConfig documents, shell scripts or MIME archives"))
		return
	}
	c.lintShell(ud, "")
}

func (c *lintCtx) lintBottlerocketFamily(ud string) {
	// A "#!" line is a TOML comment: only input that fails to parse is
	// reported as the wrong format.
	if _, _, err := parseBottlerocket(ud); err != nil {
		switch {
		case looksLikeMIME(ud):
			c.add(formatMismatch("Bottlerocket", "a MIME archive", "Karpenter fails with \"invalid UserData\" because Bottlerocket userData must be settings TOML"))
			return
		case strings.HasPrefix(strings.TrimSpace(ud), "#!"):
			c.add(formatMismatch("Bottlerocket", "a shell script", "Karpenter fails with \"invalid UserData\" because Bottlerocket userData must be settings TOML and Bottlerocket runs no shell scripts; use settings (e.g. settings.kernel.sysctl) or a bootstrap container"))
			return
		}
	}
	c.lintBottlerocket(ud)
}

func (c *lintCtx) lintWindows(ud string) {
	l := strings.ToLower(ud)
	for _, tag := range []string{"<powershell>", "</powershell>"} {
		if strings.Contains(l, tag) {
			c.add(rules.New(ruleWindowsTags, rules.Path{},
				"The userData contains %s. Karpenter already wraps the userData in <powershell>...</powershell> before its Start-EKSBootstrap.ps1 call; nested tags end the script early for EC2Launch. Remove the tags and keep only the PowerShell lines.", tag))
		}
	}
}

// lintCustom recognises the format of Custom userData (Karpenter passes it
// through unchanged), lints it and then requires the unregistered taint.
func (c *lintCtx) lintCustom(ud string) {
	switch {
	case ud == "":
	case looksLikeMIME(ud):
		if a, ok := c.readMIME(ud); ok {
			for i, p := range a.Parts {
				switch {
				case isShellPart(p):
					c.lintShell(p.Body, partName(i))
				case mediaType(p) == contentTypeNodeadm:
					c.lintNodeConfig(p.Body, partName(i))
				}
			}
		}
	case looksLikeTOML(ud):
		c.lintBottlerocket(ud)
	case isNodeConfigKind(ud):
		c.lintNodeConfig(ud, "")
	case strings.Contains(strings.ToLower(ud), "<powershell>"):
		// Windows custom AMIs: PowerShell is not analysed further.
	case isShellScript(ud):
		c.lintShell(ud, "")
	}
	c.checkUnregistered(ud)
}

func partName(i int) string { return "MIME part " + strconv.Itoa(i+1) }

func mediaType(p part) string {
	ct := p.Header.Get("Content-Type")
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

func isShellPart(p part) bool { return mediaType(p) == "text/x-shellscript" }

// isShellScript reports whether cloud-init would run ud as a bash or sh
// script (a #! line naming one, directly or through env).
func isShellScript(ud string) bool {
	first, _, _ := strings.Cut(strings.TrimLeft(ud, " \t\r\n"), "\n")
	if !strings.HasPrefix(first, "#!") {
		return false
	}
	f := strings.Fields(first[2:])
	if len(f) == 0 {
		return false
	}
	interp := path.Base(f[0])
	if interp == "env" && len(f) > 1 {
		interp = path.Base(f[1])
	}
	return interp == "bash" || interp == "sh"
}

// looksLikeTOML reports whether ud is a TOML document with a settings
// table, i.e. Bottlerocket userData.
func looksLikeTOML(ud string) bool {
	var m map[string]any
	if toml.Unmarshal([]byte(ud), &m) != nil {
		return strings.HasPrefix(strings.TrimSpace(ud), "[settings")
	}
	_, ok := m["settings"]
	return ok
}

// isNodeConfigKind reports whether ud is a YAML/JSON NodeConfig document.
func isNodeConfigKind(ud string) bool {
	var d struct {
		Kind string `json:"kind"`
	}
	return yaml.Unmarshal([]byte(ud), &d) == nil && d.Kind == "NodeConfig"
}

func formatMismatch(family, got, consequence string) rules.Finding {
	return rules.New(ruleFormatMismatch, rules.Path{},
		"amiFamily %s was given %s: %s. Write userData in the family's format, or use amiFamily Custom with the matching AMI.", family, got, consequence)
}
