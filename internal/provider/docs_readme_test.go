package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/awsemu/awsemutest"
)

// readmeExample is the file the README's "Using it" snippet is.
const readmeExample = "../../examples/readme/main.tf"

// readmeSnippet returns the first HCL block under the README's "Using it".
func readmeSnippet(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## Using it\n")
	if !ok {
		t.Fatal(`README.md has no "## Using it" section`)
	}
	_, rest, ok = strings.Cut(rest, "```hcl\n")
	body, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal(`no hcl block under "## Using it"`)
	}
	return body
}

// The README shows examples/readme/main.tf as it is, so what a new user
// copies is what the next test plans.
func TestReadmeSnippetIsTheExampleFile(t *testing.T) {
	want, err := os.ReadFile(readmeExample)
	if err != nil {
		t.Fatal(err)
	}
	if got := readmeSnippet(t); got != string(want) {
		t.Fatalf("README.md's \"Using it\" block differs from %s: copy the file into the README", readmeExample)
	}
}

// A first run: the README's snippet, copied as it is, plans against the
// emulator (which stands for an account with a cluster whose subnets,
// security groups and node role are named after it) with no error and no
// warning. Only the region and the cluster name are the test's.
func TestAccReadmeSnippetPlansWithoutWarnings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs terraform")
	}
	src, err := os.ReadFile(readmeExample)
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(src)
	for from, to := range map[string]string{`region            = "us-west-2"`: `region            = "us-east-1"`, `cluster = "prod"`: `cluster = "demo"`} {
		if strings.Count(cfg, from) != 1 {
			t.Fatalf("%s must hold %q once (the test replaces it)", readmeExample, from)
		}
		cfg = strings.Replace(cfg, from, to, 1)
	}
	url, _ := awsemutest.Start(t)
	awsemutest.Setenv(t, url)
	run := inProcessTerraform(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	run(dir, "init", "-input=false", "-backend=false")
	out, stderr := run(dir, "plan", "-input=false", "-json")
	for _, d := range jsonDiagnostics(out) {
		t.Errorf("%s: %s: %s", d.Severity, d.Summary, d.Detail)
	}
	if !strings.Contains(string(out), `"@message":"Plan: 2 to add, 0 to change, 0 to destroy."`) {
		t.Fatalf("the plan does not add the class and the pool:\n%s\n%s", out, stderr)
	}
}

var (
	mdLinkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// registryRE matches a link to this provider's registry pages, which do
	// not exist until the first release.
	registryRE = regexp.MustCompile(`registry\.terraform\.io/providers/karpenter-tf/`)
)

// Every relative link of the README, the generated docs and their
// templates resolves to a file of the repository (a template's links as
// from the page tfplugindocs renders it into), and an anchor to a heading
// of the page it names; none points at this provider's registry pages,
// which do not exist before a release.
func TestDocsLinksResolve(t *testing.T) {
	var pages []string
	for _, root := range []string{"../../docs", "../../templates"} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".md.tmpl")) {
				pages = append(pages, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	pages = append(pages, "../../README.md", "../../DESIGN.md", "../../examples/eks-stack/modules/karpenter-pools/README.md")
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		// A template's links are read from where tfplugindocs writes it.
		from := page
		if rel, ok := strings.CutPrefix(page, "../../templates/"); ok {
			from = "../../docs/" + strings.TrimSuffix(rel, ".tmpl")
		}
		for _, target := range markdownLinks(string(b)) {
			if registryRE.MatchString(target) {
				t.Errorf("%s links %s: this provider's registry pages do not exist yet; link the page in docs/ relatively", page, target)
				continue
			}
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			dest := from
			if file != "" {
				dest = filepath.Join(filepath.Dir(from), file)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s links %s: %s does not exist", page, target, dest)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(dest, ".md") && !hasHeading(t, dest, anchor) {
				t.Errorf("%s links %s: %s has no heading #%s", page, target, dest, anchor)
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d relative links checked", checked)
	}
}

// markdownLinks returns the link targets of md outside code blocks.
func markdownLinks(md string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLinkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

var slugDrop = regexp.MustCompile(`[^\p{L}\p{N} _-]`)

// hasHeading reports whether the page has a heading whose GitHub anchor is
// anchor (lower case, punctuation dropped, spaces as hyphens), or an HTML
// anchor of that id.
func hasHeading(t *testing.T, page, anchor string) bool {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `<a id="`+anchor+`"></a>`) {
		return true // tfplugindocs' anchors of nested schema sections
	}
	for _, line := range strings.Split(string(b), "\n") {
		h := strings.TrimLeft(line, "#")
		if h == line || !strings.HasPrefix(h, " ") {
			continue
		}
		slug := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-")
		if slug == anchor {
			return true
		}
	}
	return false
}
