package lint

import (
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/rules"
	"github.com/karpenter-tf/terraform-provider-karpenter/internal/userdata/format"
)

// readMIME reads a MIME archive for linting, reporting what Karpenter (or,
// for Custom, cloud-init) would make of a broken one.
func (c *lintCtx) readMIME(ud string) (format.Archive, bool) {
	a, err := format.ReadArchive(ud)
	if err != nil {
		me, _ := err.(*format.MIMEError)
		if me == nil {
			me = &format.MIMEError{Step: "part", Err: err}
		}
		c.add(MIMEFinding(c.format, me))
		return a, false
	}
	// For AL2 and AL2023 Karpenter parses the archive and writes it anew
	// with its own closing boundary (pkg/providers/amifamily/bootstrap/mime):
	// only Custom userData reaches the node as written.
	if !a.Closed && (c.format == amifamily.FormatCustom || c.custom) {
		c.add(rules.New(ruleMIMEUnterminated, rules.Path{},
			"The MIME archive never closes with \"--%s--\". Karpenter's reader accepts that, but cloud-init records a defect and stricter readers drop the last part; end the archive with the closing boundary line \"--%s--\".",
			a.Boundary, a.Boundary))
	}
	return a, true
}

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
