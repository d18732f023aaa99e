package manifestcheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/versions"
)

// TestCorpusJudged runs the engine of karpenter-lint and validate_manifest
// over testdata/corpus, written in the styles of published Karpenter v1
// configurations, and holds every finding to the judged table next to it
// (FINDINGS.md): no finding outside the table (no false alarm, since every
// entry is judged), no entry that is not found (the earlier true findings
// and the classes this corpus was written for stay found).
func TestCorpusJudged(t *testing.T) {
	dir := filepath.Join("testdata", "corpus")
	table, err := os.ReadFile(filepath.Join(dir, "FINDINGS.md"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(string(table), "\n") {
		cells := strings.Split(l, "|")
		if len(cells) != 6 || !strings.HasSuffix(strings.TrimSpace(cells[1]), "]") && !strings.Contains(cells[1], ".yaml:") {
			continue
		}
		if j := strings.TrimSpace(cells[4]); !strings.HasPrefix(j, "true") || len(j) < 20 {
			t.Errorf("entry %q is not judged true with a reason", l)
		}
		want = append(want, fmt.Sprintf("%s %s %s", strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3])))
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	objects := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objects += strings.Count(string(b), "\nkind: ") + map[bool]int{true: 1}[strings.HasPrefix(string(b), "kind: ")]
		for _, x := range Check(context.Background(), string(b), versions.DefaultKarpenter) {
			got = append(got, fmt.Sprintf("%s:%d %s %s", filepath.Base(f), x.Line, x.Object, x.Rule.ID))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("findings differ from FINDINGS.md\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if objects < 40 {
		t.Errorf("the corpus has %d objects; it is meant to have at least 40", objects)
	}
}
