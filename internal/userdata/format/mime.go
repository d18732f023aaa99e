package format

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
	Boundary           = "//"
	ContentTypeShell   = `text/x-shellscript; charset="us-ascii"`
	ContentTypeNodeadm = "application/node.eks.aws"
)

// Part is one MIME part: its headers as read (or to write) and its body.
type Part struct {
	Header textproto.MIMEHeader
	Body   string
}

func TypedPart(contentType, body string) Part {
	return Part{Header: textproto.MIMEHeader{"Content-Type": {contentType}}, Body: body}
}

// LooksLikeMIME is Karpenter's test for "this userData is a MIME archive".
func LooksLikeMIME(s string) bool {
	t := strings.TrimSpace(s)
	return strings.HasPrefix(t, "MIME-Version:") || strings.HasPrefix(t, "Content-Type:")
}

// MIMEError says at which step reading an archive failed, so findings can
// quote the message Karpenter logs for the family.
type MIMEError struct {
	Step string // "unreadable", "content-type", "not-multipart", "part"
	Err  error
	// Boundary is the archive's boundary, once its header is read.
	Boundary string
}

// Unterminated reports whether the archive failed only because its input
// ends inside the last part: no boundary line follows it (Go's reader
// wants "--B" and a line break, or "--B--").
func (e *MIMEError) Unterminated() bool {
	return e.Step == "part" && (errors.Is(e.Err, io.ErrUnexpectedEOF) || errors.Is(e.Err, io.EOF))
}

// ReadUnterminated reads an archive whose input ends inside its last part
// as cloud-init's parser does (Python's email package takes the rest of
// the input as the last part): as if the closing boundary followed.
func ReadUnterminated(s string, e *MIMEError) (Archive, error) {
	return ReadArchive(strings.TrimRight(s, "\n") + "\n--" + e.Boundary + "--\n")
}

func (e *MIMEError) Error() string {
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

// Archive is a parsed MIME archive.
type Archive struct {
	Parts    []Part
	Boundary string
}

// ReadArchive reads a multipart archive the way Karpenter does (net/mail
// headers, mime.ParseMediaType, mime/multipart), keeping each part's headers
// as the multipart reader presents them.
func ReadArchive(s string) (Archive, error) {
	msg, err := mail.ReadMessage(strings.NewReader(s))
	if err != nil {
		return Archive{}, &MIMEError{Step: "unreadable", Err: err}
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return Archive{}, &MIMEError{Step: "content-type", Err: err}
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		return Archive{}, &MIMEError{Step: "not-multipart"}
	}
	a := Archive{Boundary: params["boundary"]}
	r := multipart.NewReader(msg.Body, a.Boundary)
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Archive{}, &MIMEError{Step: "part", Err: err, Boundary: a.Boundary}
		}
		body, err := io.ReadAll(p)
		if err != nil {
			return Archive{}, &MIMEError{Step: "part", Err: err, Boundary: a.Boundary}
		}
		a.Parts = append(a.Parts, Part{Header: p.Header, Body: string(body)})
	}
	return a, nil
}

// WriteArchive serialises parts as Karpenter does: MIME-Version and
// Content-Type lines, boundary "//", parts in order, closing boundary, every
// "\r" removed.
func WriteArchive(parts []Part) string {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary(Boundary); err != nil {
		panic(err) // "//" is a valid boundary; a failure is a programming error
	}
	buf.WriteString("MIME-Version: 1.0\n")
	fmt.Fprintf(&buf, "Content-Type: multipart/mixed; boundary=%q\n\n", Boundary)
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
