package lint

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
)

// readMIME reads a MIME archive for linting, reporting what the archive's
// reader would make of a broken one: Karpenter's for AL2 and AL2023 (it
// parses the archive and writes it anew with its closing boundary,
// pkg/providers/amifamily/bootstrap/mime), and for Custom userData, which
// Karpenter passes unchanged, the node's own readers: cloud-init on every
// Linux EKS image, and nodeadm too on AL2023 images.
func (c *lintCtx) readMIME(ud string) (format.Archive, bool) {
	a, err := format.ReadArchive(ud)
	if err == nil {
		// Go's reader (Karpenter's and nodeadm's) read every part, and
		// cloud-init's Python email parser reads a part that no closing
		// boundary ends: nobody fails on a missing "--B--".
		return a, true
	}
	me, _ := err.(*format.MIMEError)
	if me == nil {
		me = &format.MIMEError{Step: "part", Err: err}
	}
	switch {
	case !c.isCustom():
		c.add(MIMEFinding(c.format, me))
	case c.format == amifamily.FormatNodeadm && me.Unterminated():
		c.add(rules.New(ruleMIMEUnterminated, rules.Path{},
			"The MIME archive's last part is not followed by a boundary line (\"--%s--\", or at least \"--%s\" and a line break). Karpenter passes Custom userData unchanged, and on AL2023 images nodeadm reads it with Go's mime/multipart, which fails with \"%s\": nodeadm init stops, the kubelet is never configured, the node never joins and Karpenter deletes the NodeClaim after 15 minutes. End the archive with the line \"--%s--\".",
			me.Boundary, me.Boundary, me.Err, me.Boundary))
	case c.format == amifamily.FormatNodeadm:
		c.add(rules.New(ruleMIMEInvalid, rules.Path{},
			"The userData starts with a MIME header but is not a readable multipart archive (%s). Karpenter passes Custom userData unchanged, and on AL2023 images nodeadm reads it with Go's mime/multipart and fails, so the node never joins. Write a complete multipart/mixed archive (Content-Type: multipart/mixed; boundary=\"...\", parts separated by --boundary, closed by --boundary--).", me.Error()))
	case me.Unterminated():
		// cloud-init's parser reads the parts up to the end of the input.
		if a, err := format.ReadUnterminated(ud, me); err == nil {
			return a, true
		}
	default:
		c.add(MIMEFinding(amifamily.FormatCustom, me))
	}
	return a, false
}

// isCustom reports whether the userData is a Custom class's, which the
// node reads as written.
func (c *lintCtx) isCustom() bool { return c.custom || c.format == amifamily.FormatCustom }

// MIMEFinding words a MIME read failure as the reader of the family's
// userData format reports it.
func MIMEFinding(f amifamily.Format, me *format.MIMEError) rules.Finding {
	switch f {
	case amifamily.FormatNodeadm:
		msg := me.Err
		var text string
		switch me.Step {
		case "content-type":
			text = "archive doesn't have Content-Type header, " + errText(msg)
		case "not-multipart":
			text = "archive is not in multipart format"
		case "part":
			text = "parsing content, " + errText(msg)
		default:
			text = errText(msg)
		}
		return rules.New(ruleMIMEInvalid, rules.Path{},
			"The userData starts with a MIME header but is not a readable multipart archive: Karpenter fails with \"parsing custom UserData, %s\" and launches no node. Write a complete multipart/mixed archive (Content-Type: multipart/mixed; boundary=\"...\", parts separated by --boundary, closed by --boundary--), or plain shell/NodeConfig without MIME headers.", text)
	case amifamily.FormatCustom:
		return rules.New(ruleMIMEInvalid, rules.Path{},
			"The userData starts with a MIME header but is not a readable multipart archive (%s). Karpenter passes Custom userData unchanged and cloud-init cannot split it, so the node's bootstrap does not run. Write a complete multipart/mixed archive or a plain script.", me.Error()).AsWarning()
	}
	return rules.New(ruleMIMEInvalid, rules.Path{},
		"The userData starts with a MIME header but is not a readable multipart archive: Karpenter fails with \"parsing custom user data input %s\" and launches no node. Write a complete multipart/mixed archive (Content-Type: multipart/mixed; boundary=\"...\", parts separated by --boundary, closed by --boundary--), or a plain shell script without MIME headers.", me.Error())
}

func errText(err error) string {
	if err == nil {
		return "%!w(<nil>)"
	}
	return err.Error()
}

// The rules the checks of this file emit.
var (
	ruleMIMEInvalid = rules.Register(rules.Rule{
		ID: "mime-invalid", Severity: rules.Error, Category: category,
		Title:     "userData looks like MIME but is not a readable multipart archive",
		Behaviour: "userData starting with MIME-Version: or Content-Type: must be multipart MIME; otherwise Karpenter fails with `parsing custom user data input ...` (unreadable user data, no content-type header, not in multipart MIME format, unexpected EOF) and launches no node.",
		Source:    "Karpenter bootstrap/eksbootstrap.go copyCustomUserDataParts, bootstrap/mime/mime.go NewArchive",
		Bad:       nodeClass(onAL2, "MIME-Version: 1.0\nContent-Type: text/x-shellscript\n\necho hello\n"),
		Good:      nodeClass(onAL2, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash\necho hello\n--B--\n"),
	})
	ruleMIMEUnterminated = rules.Register(rules.Rule{
		ID: "mime-unterminated", Severity: rules.Error, Category: category,
		Title:     "Custom MIME userData ends inside its last part on AL2023 images",
		Behaviour: "Karpenter passes Custom userData unchanged. On AL2023 images nodeadm reads it with Go's mime/multipart, which needs a boundary line after the last part (`--B--`, or at least `--B` and a line break): without one it fails (`unexpected EOF`, `multipart: NextPart: EOF`), nodeadm init stops and the node never joins. cloud-init's parser (AL2 images, and the scripts on AL2023) reads such a part anyway, and for the AL2 and AL2023 families Karpenter writes the archive anew with its own closing boundary, so there an open end is not reported; an archive ending in `--B` and a line break, as Karpenter's own Custom examples do, is read by every reader.",
		Source:    "awslabs/amazon-eks-ami nodeadm/internal/configprovider/mime.go (ParseMultipart: mime/multipart NextPart); Go mime/multipart; cloud-init cloudinit/user_data.py (email.message_from_string); aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/custom.go (userData unchanged)",
		Bad:       classWith(onCustom, `ami_selector_terms { alias = "al2023@latest" }`, heredoc("user_data", "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: demo\n    apiServerEndpoint: https://example.eks.amazonaws.com\n    certificateAuthority: Y2E=\n    cidr: 10.100.0.0/16\n  kubelet:\n    config:\n      registerWithTaints:\n        - key: karpenter.sh/unregistered\n          effect: NoExecute\n")),
		Good:      classWith(onCustom, `ami_selector_terms { alias = "al2023@latest" }`, heredoc("user_data", "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: demo\n    apiServerEndpoint: https://example.eks.amazonaws.com\n    certificateAuthority: Y2E=\n    cidr: 10.100.0.0/16\n  kubelet:\n    config:\n      registerWithTaints:\n        - key: karpenter.sh/unregistered\n          effect: NoExecute\n--B--\n")),
	})
)
