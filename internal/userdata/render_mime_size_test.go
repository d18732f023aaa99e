package userdata

import (
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/amifamily"
)

// The userData the linter reports as an unreadable MIME archive (see the
// linter's TestMIMEAndSizeChecks) also stops rendering, and the rendered
// result is held to EC2's size limit.
func TestRenderMIMEAndSizeChecks(t *testing.T) {
	for name, c := range map[string]struct {
		ud string
		f  amifamily.Family
	}{
		"AL2 not multipart":           {"Content-Type: text/x-shellscript\n\necho hi\n", amifamily.AL2},
		"AL2 no content type":         {"MIME-Version: 1.0\n\n--B\n", amifamily.AL2},
		"AL2 unreadable":              {"MIME-Version: 1.0\nbroken header\n\n", amifamily.AL2},
		"AL2 no boundary at all":      {"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\necho hi\n", amifamily.AL2},
		"AL2023 not multipart":        {"Content-Type: text/plain\n\nx", amifamily.AL2023},
		"AL2023 missing content type": {"MIME-Version: 1.0\n\nx", amifamily.AL2023},
	} {
		t.Run(name, func(t *testing.T) {
			if _, fs := Render(c.f, with(baseOptions(), c.ud)); len(fs.ByRule("mime-invalid")) == 0 {
				t.Fatalf("Render did not fail: %v", fs)
			}
		})
	}
	t.Run("size", func(t *testing.T) {
		big := "#!/bin/bash\n" + strings.Repeat("# padding\n", 1700)
		if _, fs := Render(amifamily.AL2, with(baseOptions(), big[:16000])); len(fs.ByRule("userdata-too-large")) == 0 {
			t.Fatalf("rendered size not checked: %v", fs)
		}
		if _, fs := Render(amifamily.AL2, with(baseOptions(), big[:15000])); fs.HasErrors() {
			t.Fatalf("%v", fs)
		}
	})
}
