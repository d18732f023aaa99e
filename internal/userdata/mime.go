package userdata

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"net/textproto"
	"strings"
)

// Karpenter's MIME constants (bootstrap/eksbootstrap.go, bootstrap/mime).
const (
	boundary           = "//"
	contentTypeShell   = `text/x-shellscript; charset="us-ascii"`
	contentTypeNodeadm = "application/node.eks.aws"
)

// part is one MIME part: its headers as read (or to write) and its body.
type part struct {
	Header textproto.MIMEHeader
	Body   string
}

func typedPart(contentType, body string) part {
	return part{Header: textproto.MIMEHeader{"Content-Type": {contentType}}, Body: body}
}

// looksLikeMIME is Karpenter's test for "this userData is a MIME archive".
func looksLikeMIME(s string) bool {
	t := strings.TrimSpace(s)
	return strings.HasPrefix(t, "MIME-Version:") || strings.HasPrefix(t, "Content-Type:")
}

// mimeError says at which step reading an archive failed, so findings can
// quote the message Karpenter logs for the family.
type mimeError struct {
	Step string // "unreadable", "content-type", "not-multipart", "part"
	Err  error
}

func (e *mimeError) Error() string {
	switch e.Step {
	case "unreadable":
		return fmt.Sprintf("unreadable user data %v", e.Err)
	case "content-type":
		return fmt.Sprintf("user data does not define a content-type header %v", e.Err)
	case "not-multipart":
		return "user data is not in multipart MIME format"
	}
	return e.Err.Error()
}

// archive is a parsed MIME archive.
type archive struct {
	Parts    []part
	Boundary string
	// Closed is false when the archive ends without "--boundary--", which
	// Go's reader (hence Karpenter) tolerates.
	Closed bool
}

// readArchive reads a multipart archive the way Karpenter does (net/mail
// headers, mime.ParseMediaType, mime/multipart), keeping each part's headers
// as the multipart reader presents them.
func readArchive(s string) (archive, error) {
	msg, err := mail.ReadMessage(strings.NewReader(s))
	if err != nil {
		return archive{}, &mimeError{Step: "unreadable", Err: err}
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return archive{}, &mimeError{Step: "content-type", Err: err}
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		return archive{}, &mimeError{Step: "not-multipart"}
	}
	a := archive{Boundary: params["boundary"]}
	r := multipart.NewReader(msg.Body, a.Boundary)
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return archive{}, &mimeError{Step: "part", Err: err}
		}
		body, err := io.ReadAll(p)
		if err != nil {
			return archive{}, &mimeError{Step: "part", Err: err}
		}
		a.Parts = append(a.Parts, part{Header: p.Header, Body: string(body)})
	}
	a.Closed = a.Boundary != "" && strings.Contains(s, "--"+a.Boundary+"--")
	return a, nil
}

// writeArchive serialises parts as Karpenter does: MIME-Version and
// Content-Type lines, boundary "//", parts in order, closing boundary, every
// "\r" removed.
func writeArchive(parts []part) string {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary(boundary); err != nil {
		panic(err) // "//" is a valid boundary; a failure is a programming error
	}
	buf.WriteString("MIME-Version: 1.0\n")
	fmt.Fprintf(&buf, "Content-Type: multipart/mixed; boundary=%q\n\n", boundary)
	for _, p := range parts {
		pw, err := w.CreatePart(p.Header)
		if err != nil {
			panic(err) // writes to a bytes.Buffer cannot fail
		}
		_, _ = io.WriteString(pw, p.Body)
	}
	_ = w.Close()
	return strings.ReplaceAll(buf.String(), "\r", "")
}
