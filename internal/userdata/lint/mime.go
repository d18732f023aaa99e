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
