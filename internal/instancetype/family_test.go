package instancetype

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The project's research data lives next to the checkout in the shared
// workspace; a user's clone has none, and the comparison is skipped.
var referenceDir = filepath.Join("..", "..", "..", "shared", "data")

// readCSV returns the rows of a reference file as maps, or skips the test.
func readCSV(t *testing.T, name string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(referenceDir, name))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("reference data %s not found (only the shared research workspace has it); comparison skipped", filepath.Join(referenceDir, name))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, col := range recs[0] {
			row[col] = rec[i]
		}
		rows = append(rows, row)
	}
	return rows
}

// Families known offline that the reference snapshot lacks, and why.
var notInReference = map[string]string{
	"p6e-gb200": "UltraServer capacity blocks only (Grace + B200)",
}

// Every family of the reference table must be known, and the facts the
// rule and exceptions derive must agree with it column by column.
func TestFamiliesAgreeWithReference(t *testing.T) {
	for _, file := range []string{"instance-families.csv", "instance-families-legacy.csv"} {
		t.Run(file, func(t *testing.T) {
			rows := readCSV(t, file)
			listed := map[string]bool{}
			for _, row := range rows {
				name := row["family"]
				listed[name] = true
				f, err := LookupFamily(name)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				got := map[string]string{
					"arch":           f.Architecture,
					"has_nvidia_gpu": boolString(f.GPUManufacturer == "nvidia"),
					"has_amd_gpu":    boolString(f.GPUManufacturer == "amd"),
					"has_neuron":     boolString(f.Accelerator == AcceleratorNeuron),
				}
				for col, v := range got {
					if row[col] != v {
						t.Errorf("%s: %s = %s, reference says %s", name, col, v, row[col])
					}
				}
				if ex := row["example"]; ex != "" {
					if _, ok := Embedded().Type(ex); !ok {
						t.Errorf("%s: example type %s is not known", name, ex)
					}
				}
			}
			if file == "instance-families.csv" {
				for _, f := range Families() {
					if !f.Legacy && !listed[f.Name] && notInReference[f.Name] == "" {
						t.Errorf("%s is known as a current family but not in the reference; list it in notInReference with the reason", f.Name)
					}
				}
			}
			if !t.Failed() {
				t.Logf("compared %d families of %s: all agree on architecture, NVIDIA/AMD GPU and Neuron", len(rows), file)
			}
		})
	}
}

// Every type of the reference is known offline, in its family, with the
// family's architecture, GPU manufacturer and accelerator kind; the known
// list holds nothing else (apart from notInReference).
func TestKnownTypesAgreeWithReference(t *testing.T) {
	cur := readCSV(t, "instance-types.csv")
	leg := readCSV(t, "instance-types-legacy.csv")
	listed := map[string]bool{}
	for _, row := range append(cur, leg...) {
		name := row["instance_type"]
		listed[name] = true
		typ, ok := Embedded().Type(name)
		if !ok {
			t.Errorf("%s is not known offline", name)
			continue
		}
		fam, _ := Embedded().Family(typ.Family)
		checks := []struct{ what, got, want string }{
			{"family", typ.Family, row["family"]},
			{"arch", typ.Architecture, row["arch"]},
			{"gpu_manufacturer", fam.GPUManufacturer, row["gpu_manufacturer"]},
			{"has accelerator labels", boolString(fam.HasAcceleratorLabels()), boolString(row["accelerator_name"] != "")},
			{"neuron", boolString(fam.Accelerator == AcceleratorNeuron), boolString(strings.HasPrefix(row["accelerator_name"], "inferentia") || strings.HasPrefix(row["accelerator_name"], "trainium"))},
			{"bare metal", boolString(typ.BareMetal), row["bare_metal"]},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s: %s = %q, reference says %q", name, c.what, c.got, c.want)
			}
		}
	}
	for _, typ := range Embedded().Types() {
		if !listed[typ.Name] && notInReference[typ.Family] == "" {
			t.Errorf("%s is known offline but not in the reference", typ.Name)
		}
	}
	t.Logf("compared %d current and %d legacy instance types: all known offline with matching family facts", len(cur), len(leg))
}

// The naming rule alone decides the architecture of every family that
// parses; only the unparseable first-generation High Memory families need an
// entry.
func TestArchitectureComesFromTheRule(t *testing.T) {
	for _, f := range Families() {
		m := familyRE.FindStringSubmatch(f.Name)
		if m == nil {
			if _, ok := unparseable[f.Name]; !ok {
				t.Errorf("%s neither parses nor is an exception", f.Name)
			}
			continue
		}
		want := AMD64
		if f.Name == "a1" || strings.Contains(m[3], "g") {
			want = ARM64
		}
		if f.Architecture != want {
			t.Errorf("%s: %s, the rule says %s", f.Name, f.Architecture, want)
		}
	}
}

func TestLookupFamily(t *testing.T) {
	cases := []struct {
		name                 string
		arch, gpu, accel     string
		category, generation string
	}{
		{"g5g", ARM64, "nvidia", "", "g", "5"},
		{"g4ad", AMD64, "amd", "", "g", "4"},
		{"inf2", AMD64, "", AcceleratorNeuron, "inf", "2"},
		{"a1", ARM64, "", "", "a", "1"},
		{"t4g", ARM64, "", "", "t", "4"},
		{"m7i-flex", AMD64, "", "", "m", "7"},
		{"u7i-12tb", AMD64, "", "", "u", "7"},
		{"u-3tb1", AMD64, "", "", "u", "1"},
		{"p6e-gb200", ARM64, "nvidia", "", "p", "6"},
		{"is4gen", ARM64, "", "", "is", "4"},
		{"dl2q", AMD64, "", "", "dl", "2"},
		{"p3", AMD64, "nvidia", "", "p", "3"},
	}
	for _, c := range cases {
		f, err := LookupFamily(c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if f.Architecture != c.arch || f.GPUManufacturer != c.gpu || f.Accelerator != c.accel || f.Category != c.category || f.Generation != c.generation {
			t.Errorf("%s: got %+v", c.name, f)
		}
	}
	if f, _ := LookupFamily("p3"); !f.Legacy {
		t.Error("p3 is legacy")
	}
	if f, _ := LookupFamily("i3"); f.Legacy {
		t.Error("i3 has current sizes; only i3.metal is legacy")
	}
	if f, _ := LookupFamily("dl2q"); f.AcceleratorManufacturer != "qualcomm" {
		t.Error("dl2q carries accelerator labels without being Neuron")
	}
}

// Unknown names are errors that say why, never guesses.
func TestLookupFamilyRejectsUnknown(t *testing.T) {
	cases := map[string]string{
		"zz9":        "does not guess",
		"g5gg":       `did you mean "g5g"?`,
		"g5g.xlarge": `pass its family, "g5g"`,
		"mac1":       "Karpenter never offers it",
		"mac2-m2pro": "Mac family",
		"":           "not an EC2 instance family",
	}
	for name, want := range cases {
		_, err := LookupFamily(name)
		if !errors.Is(err, ErrUnknownFamily) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an ErrUnknownFamily mentioning %q", name, err, want)
		}
	}
}

func TestParseKnownRejectsBrokenLines(t *testing.T) {
	for _, text := range []string{"m5\n", "m5 large\nm5 large\n", "mac-x large\n"} {
		if _, err := parseKnown(text); err == nil {
			t.Errorf("%q parsed", text)
		}
	}
}

// Families returns the facts of every known family, sorted by name.
func Families() []Family {
	e := embedded()
	out := make([]Family, 0, len(e.familyNames))
	for _, n := range e.familyNames {
		out = append(out, e.families[n])
	}
	return out
}
