package lint

import (
	"path"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/shell"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// MaxSize is EC2's userData limit, in bytes before base64.
const MaxSize = 16384

func TooLarge(n int, what string) rules.Finding {
	return rules.New(ruleTooLarge, rules.Path{},
		"%s is %d bytes; EC2 accepts at most %d bytes before base64 and fails RunInstances/CreateFleet with UserDataSizeLimitExceeded. Fetch large files at boot (e.g. from S3) instead of inlining them.", what, n, MaxSize)
}

// lintCtx carries what one Lint call learns.
type lintCtx struct {
	family    amifamily.Family // for messages
	format    amifamily.Format // the userData format the family reads
	karpenter versions.Karpenter
	fs        rules.Findings
	// regs are the ways the userData registers the node's taints, one per
	// bootstrap.sh or Start-EKSBootstrap.ps1 call, Bottlerocket node-taints.
	regs []registration
	// nodeConfig accumulates the NodeConfig documents (Custom userData), in
	// the order nodeadm merges them; nil when there is none.
	nodeConfig *nodeConfigTaints
	// custom is set when the userData is a Custom class's, linted against
	// the format of the images it launches on: Karpenter adds nothing to it.
	custom bool
}

func (c *lintCtx) add(f ...rules.Finding) { c.fs = append(c.fs, f...) }

// UserData checks userData written by hand for amiFamily family, as Karpenter
// release karpenter would treat it, and returns every finding in source
// order. Paths are empty: the finding is about the userData as a whole and
// its Detail names the offending text. It never panics, whatever the input.
func UserData(family amifamily.Family, userData string, karpenter versions.Karpenter) rules.Findings {
	return lint(&lintCtx{family: family, format: family.Model().Format(), karpenter: karpenter}, userData)
}

// CustomOn lints a Custom class's userData as the images it launches on
// (of family image) will read it. Karpenter passes Custom userData through
// untouched, so the advice never relies on what Karpenter would add.
func CustomOn(image amifamily.Family, userData string, karpenter versions.Karpenter) rules.Findings {
	return lint(&lintCtx{family: image, format: image.Model().Format(), karpenter: karpenter, custom: true}, userData)
}

// Script lints a bash script that runs as Custom userData would, e.g.
// the pre and post scripts of a bootstrap block.
func Script(script string) rules.Findings {
	c := &lintCtx{format: amifamily.FormatCustom}
	c.lintShell(script, "")
	return c.fs
}

func lint(c *lintCtx, userData string) rules.Findings {
	if len(userData) > MaxSize {
		c.add(TooLarge(len(userData), "The userData alone"))
	}
	switch c.format {
	case amifamily.FormatBootstrapSh:
		c.lintAL2(userData)
	case amifamily.FormatNodeadm:
		c.lintAL2023(userData)
	case amifamily.FormatBottlerocket:
		c.lintBottlerocketFamily(userData)
	case amifamily.FormatPowerShell:
		c.lintWindows(userData)
	case amifamily.FormatCustom:
		c.lintCustom(userData)
	}
	return c.fs
}

func (c *lintCtx) lintAL2(ud string) {
	if ud == "" {
		return
	}
	if format.LooksLikeMIME(ud) {
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
		c.add(c.formatMismatch("Bottlerocket settings TOML", "Karpenter wraps it as a shell script part and cloud-init fails to execute it; AL2 takes shell scripts or MIME archives"))
		return
	}
	if strings.HasPrefix(strings.TrimSpace(ud), "#cloud-config") {
		c.add(c.formatMismatch("a #cloud-config document", "Karpenter wraps anything that is not MIME as a text/x-shellscript part, so cloud-init tries to execute the YAML and fails; put it in a MIME part with Content-Type: text/cloud-config"))
		return
	}
	c.lintShell(ud, "")
}

func (c *lintCtx) lintAL2023(ud string) {
	if ud == "" {
		return
	}
	if format.LooksLikeMIME(ud) {
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
			case mediaType(p) == format.ContentTypeNodeadm:
				c.lintNodeConfig(p.Body, partName(i))
			}
		}
		return
	}
	if format.IsNodeConfigDocument(ud) {
		c.lintNodeConfig(ud, "")
		return
	}
	if looksLikeTOML(ud) {
		c.add(c.formatMismatch("Bottlerocket settings TOML", "Karpenter wraps it as a shell script part and cloud-init fails to execute it; AL2023 takes NodeConfig documents, shell scripts or MIME archives"))
		return
	}
	c.lintShell(ud, "")
}

func (c *lintCtx) lintBottlerocketFamily(ud string) {
	// A "#!" line is a TOML comment: only input that fails to parse is
	// reported as the wrong format.
	if _, _, err := format.ParseBottlerocket(ud); err != nil {
		if c.custom {
			if got := c.notTOML(ud); got != "" {
				// Karpenter passes Custom userData unchanged: Bottlerocket
				// itself is its reader.
				c.add(rules.New(RuleFormatMismatch, rules.Path{},
					"the userData is %s, but Bottlerocket reads its userData only as settings TOML and runs no shell scripts: no settings.kubernetes values (cluster name, API server, CA) reach the node, nothing bootstraps it, and it never joins. Write Bottlerocket settings TOML, or select images of the family the userData is written for.", got))
				return
			}
		}
		switch {
		case format.LooksLikeMIME(ud):
			c.add(c.formatMismatch("a MIME archive", "Karpenter fails with \"invalid UserData\" because Bottlerocket userData must be settings TOML"))
			return
		case strings.HasPrefix(strings.TrimSpace(ud), "#!"):
			c.add(c.formatMismatch("a shell script", "Karpenter fails with \"invalid UserData\" because Bottlerocket userData must be settings TOML and Bottlerocket runs no shell scripts; use settings (e.g. settings.kernel.sysctl) or a bootstrap container"))
			return
		}
	}
	c.lintBottlerocket(ud)
}

// notTOML names the format of userData that is not Bottlerocket's, or "".
func (c *lintCtx) notTOML(ud string) string {
	switch {
	case format.LooksLikeMIME(ud):
		return "a MIME archive"
	case strings.HasPrefix(strings.TrimSpace(ud), "#!"):
		return "a shell script"
	case format.IsNodeConfigKind(ud):
		return "a nodeadm NodeConfig"
	}
	return ""
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
	case strings.TrimSpace(ud) == "":
	case format.LooksLikeMIME(ud):
		if a, ok := c.readMIME(ud); ok {
			for i, p := range a.Parts {
				switch {
				case isShellPart(p):
					c.lintShell(p.Body, partName(i))
				case mediaType(p) == format.ContentTypeNodeadm:
					c.lintNodeConfig(p.Body, partName(i))
				}
			}
		}
	case looksLikeTOML(ud):
		c.lintBottlerocket(ud)
	case format.IsNodeConfigKind(ud):
		c.lintNodeConfig(ud, "")
	case isPowerShell(ud):
		c.lintPowerShell(ud)
	case isShellScript(ud):
		c.lintShell(ud, "")
	case cloudInitType(ud) != "":
		// #cloud-config, #include, #cloud-boothook, a script for another
		// interpreter: cloud-init handles them; not analysed.
	default:
		c.lintNotRun(ud)
	}
	c.checkUnregistered(ud)
}

// cloudInitTypes are the first-line markers cloud-init recognises in
// userData that is not MIME (cloudinit/handlers type_from_starts_with,
// matched case-insensitively after leading whitespace, longest first).
var cloudInitTypes = []struct{ prefix, contentType string }{
	{"#cloud-config-archive", "text/cloud-config-archive"},
	{"#cloud-config-jsonp", "text/cloud-config-jsonp"},
	{"## template: jinja", "text/jinja2"},
	{"#cloud-boothook", "text/cloud-boothook"},
	{"#cloud-config", "text/cloud-config"},
	{"#include-once", "text/x-include-once-url"},
	{"#part-handler", "text/part-handler"},
	{"#upstart-job", "text/upstart-job"},
	{"#include", "text/x-include-url"},
	{"#!", "text/x-shellscript"},
}

// cloudInitType is the content type cloud-init gives non-MIME userData,
// or "" when it recognises none (then it runs nothing).
func cloudInitType(ud string) string {
	l := strings.ToLower(strings.TrimLeft(ud, " \t\r\n\v\f"))
	for _, t := range cloudInitTypes {
		if strings.HasPrefix(l, t.prefix) {
			return t.contentType
		}
	}
	return ""
}

// lintNotRun handles Custom userData in no format cloud-init runs (not
// MIME, no #! line, not #cloud-config or another cloud-init marker):
// cloud-init types it text/x-not-multipart, logs "Unhandled non-multipart
// (text/x-not-multipart) userdata" and runs nothing. A script that calls
// bootstrap.sh then surely never bootstraps the node: an error. Other text
// may be meant for an AMI that reads userData without cloud-init (Talos,
// Ignition): a warning. Text that parses as shell is linted as shell too,
// so that adding the #! line does not uncover its other errors one by one.
func (c *lintCtx) lintNotRun(ud string) {
	first, _, _ := strings.Cut(strings.TrimLeft(ud, " \t\r\n"), "\n")
	first = shorten(strings.TrimSpace(first), 80)
	f, err := shell.Parse(ud)
	if err != nil {
		c.add(rules.New(ruleNotRunByCloudInit, rules.Path{},
			"The userData starts with %q: no #! line, no MIME headers, not #cloud-config or another cloud-init format. On an AMI that boots with cloud-init (the EKS AMIs do), cloud-init types it text/x-not-multipart, logs \"Unhandled non-multipart (text/x-not-multipart) userdata\" and runs nothing, so nothing bootstraps the node. If the AMI reads its userData in another way, ignore this; otherwise start a shell script with #!/bin/bash or cloud-config with #cloud-config.",
			first).AsWarning())
		return
	}
	before := len(c.regs)
	c.lintParsedShell(f, ud, "")
	if len(c.regs) == before {
		c.add(rules.New(ruleNotRunByCloudInit, rules.Path{},
			"The userData starts with %q: no #! line, no MIME headers, not #cloud-config or another cloud-init format. On an AMI that boots with cloud-init (the EKS AMIs do), cloud-init types it text/x-not-multipart, logs \"Unhandled non-multipart (text/x-not-multipart) userdata\" and does not run it as a script. If the AMI reads its userData in another way, ignore this; otherwise make the first line #!/bin/bash (a script) or #cloud-config.",
			first).AsWarning())
		return
	}
	c.add(rules.New(ruleNotRunByCloudInit, rules.Path{},
		"The userData has no #! line (its first line is %q), so its %s never runs: cloud-init runs userData as a script only when it starts with #! (or is a text/x-shellscript MIME part), and types this text text/x-not-multipart, logs \"Unhandled non-multipart (text/x-not-multipart) userdata\" and runs nothing. The node never joins, and Karpenter deletes the NodeClaim after the 15-minute registration timeout and launches another. Make #!/bin/bash the first line.",
		first, strings.TrimPrefix(c.regs[before].where, "the ")))
}

func partName(i int) string { return "MIME part " + strconv.Itoa(i+1) }

func mediaType(p format.Part) string {
	ct := p.Header.Get("Content-Type")
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

func isShellPart(p format.Part) bool { return mediaType(p) == "text/x-shellscript" }

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

func (c *lintCtx) formatMismatch(got, consequence string) rules.Finding {
	return rules.New(RuleFormatMismatch, rules.Path{},
		"amiFamily %s was given %s: %s. Write userData in the family's format, or use amiFamily Custom with the matching AMI.", c.family, got, consequence)
}

// The rules the checks of this file emit.
var (
	RuleFormatMismatch = rules.Register(rules.Rule{
		ID: "userdata-format-mismatch", Severity: rules.Error, Category: category,
		Title:     "userData format does not match the AMI family",
		Behaviour: "Bottlerocket reads only settings TOML (Karpenter fails with `invalid UserData` on a shell script or MIME archive); Linux families run shell scripts and NodeConfig documents, so TOML there does nothing or fails cloud-init.",
		Source:    "Karpenter bootstrap/bottlerocket.go, eksbootstrap.go, nodeadm.go",
		Bad:       nodeClass(onBottlerocket, "#!/bin/bash\necho hello\n"),
		Good:      nodeClass(onBottlerocket, "[settings.host-containers.admin]\nenabled = true\n"),
	})
	ruleNotRunByCloudInit = rules.Register(rules.Rule{
		ID: "userdata-not-run-by-cloud-init", Severity: rules.Error, Category: category,
		Title:     "Custom userData in no format cloud-init runs (no #! line)",
		Behaviour: "cloud-init picks a handler from the first line of userData that is not MIME: `#!` (a script), `#cloud-config`, `#include`, `#cloud-boothook`, `#part-handler`, `## template: jinja`, ... Anything else it types text/x-not-multipart, logs `Unhandled non-multipart (text/x-not-multipart) userdata` and runs nothing. Karpenter passes Custom userData unchanged, so a bootstrap.sh call without a #! line never runs and the node never joins (an error); other text is reported as a warning, since an AMI that does not boot with cloud-init may read its userData another way.",
		Source:    "cloud-init cloudinit/handlers/__init__.py (type_from_starts_with, walker_callback); aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go",
		Bad:       nodeClass(onCustom, al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
		Good:      nodeClass(onCustom, "#!/bin/bash\n"+al2Call+" --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'\n"),
	})
	ruleWindowsTags = rules.Register(rules.Rule{
		ID: "windows-powershell-tags", Severity: rules.Warning, Category: category,
		Title:     "<powershell> tags in Windows userData",
		Behaviour: "Karpenter wraps the userData in <powershell>...</powershell> itself; nested tags end the script early for EC2Launch and the bootstrap call after them is not run as PowerShell.",
		Source:    "Karpenter bootstrap/windows.go",
		Bad:       nodeClass(onWindows2022, "<powershell>\nWrite-Host \"hello\"\n</powershell>\n"),
		Good:      nodeClass(onWindows2022, "Write-Host \"hello\"\n"),
	})
	ruleMIMEEncoding = rules.Register(rules.Rule{
		ID: "mime-transfer-encoding-dropped", Severity: rules.Warning, Category: category,
		Title:     "AL2023 MIME part header that Karpenter drops",
		Behaviour: "For AL2023 Karpenter copies only each part's Content-Type; a Content-Transfer-Encoding such as base64 is lost while the body stays encoded, so cloud-init runs (or nodeadm reads) the encoded text.",
		Source:    "Karpenter bootstrap/mime/mime.go NewArchive/Serialize",
		Bad:       nodeClass(onAL2023, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\nContent-Transfer-Encoding: base64\n\nIyEvYmluL2Jhc2gKZWNobyBoZWxsbwo=\n--B--\n"),
		Good:      nodeClass(onAL2023, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho hello\n--B--\n"),
	})
	ruleTooLarge = rules.Register(rules.Rule{
		ID: "userdata-too-large", Severity: rules.Error, Category: category,
		Title:     "userData larger than 16384 bytes",
		Behaviour: "EC2 limits userData to 16 KB before base64; RunInstances/CreateFleet fail with UserDataSizeLimitExceeded.",
		Source:    "EC2 API (UserData); Karpenter launchtemplate validation",
		Bad:       nodeClass(onAL2, "#!/bin/bash\n# ... 20 KB of inline files ...\n"),
		Good:      nodeClass(onAL2, "#!/bin/bash\naws s3 cp s3://my-bucket/node-setup.sh /tmp/ && bash /tmp/node-setup.sh\n"),
	})
)
