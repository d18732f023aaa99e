package scheduling

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/karpenter-tf/terraform-provider-karpenter/internal/yamlstream"
)

// Position is where an object starts in one element of an input list.
type Position struct {
	// Document counts the documents of the element from 0.
	Document int
	// Line and Column are 1-based, in the whole element; 0 when unknown.
	Line, Column int
}

func (p Position) String() string {
	if p.Line == 0 {
		return fmt.Sprintf("document %d", p.Document+1)
	}
	return fmt.Sprintf("document %d, line %d", p.Document+1, p.Line)
}

// object is one Kubernetes object of an input element (a document, or an
// item of a List document).
type object struct {
	input int // index of the element in its list
	pos   Position
	gvk   schema.GroupVersionKind
	name  string
	ns    string
	raw   []byte     // the object as JSON
	node  *yaml.Node // the object's mapping, for positions of its fields
}

// key is "<namespace>/<kind>/<name>", the namespace "default" for a
// namespaced kind that names none (as kubectl applies it) and empty for a
// cluster-scoped one.
func (o object) key() string {
	ns := o.ns
	if ns == "" && namespaced(o.gvk) {
		ns = metav1.NamespaceDefault
	}
	return ns + "/" + o.gvk.Kind + "/" + o.name
}

// Object is an object of the input, named as a workload is keyed.
type Object struct {
	// Key is "<namespace>/<kind>/<name>".
	Key string
	// Input is the element of its list, Position where it starts there.
	Input    int
	Position Position
}

func (o object) describe() string {
	name := o.name
	if o.ns != "" {
		name = o.ns + "/" + name
	}
	return o.gvk.Kind + " " + name
}

// inputError is a document or object that cannot be read.
type inputError struct {
	input int
	pos   Position
	what  string // "Deployment default/web", or "" for the whole document
	key   string // "default/Deployment/web", or ""
	err   string
}

// readObjects splits one input element into its objects. JSON is YAML, so
// both read alike. Content is read as kubectl reads it (sigs.k8s.io/yaml,
// YAML 1.1 scalars, duplicate keys refused); positions come from a YAML
// 1.2 node tree of the same text.
func readObjects(input int, text string) (objs []object, errs []inputError) {
	doc := 0
	for _, d := range yamlstream.Split(text) {
		if yamlstream.Blank(d.Text) {
			continue
		}
		o, e := readDocument(input, doc, d.Line, d.Text)
		objs, errs = append(objs, o...), append(errs, e...)
		doc++
	}
	return objs, errs
}

func readDocument(input, doc, first int, body string) ([]object, []inputError) {
	pos := Position{Document: doc, Line: first}
	fail := func(msg string) ([]object, []inputError) {
		if strings.Contains(body, "{{") {
			msg = "it holds template delimiters {{ }}: render the Helm chart first (helm template); the parser says: " + msg
		}
		return nil, []inputError{{input: input, pos: pos, err: msg}}
	}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(body), &root); err != nil {
		return fail(yamlstream.ShiftLines(strings.TrimPrefix(err.Error(), "yaml: "), first-1))
	}
	j, err := sigsyaml.YAMLToJSONStrict([]byte(body))
	if err != nil {
		return fail(yamlstream.ShiftLines(strings.TrimPrefix(err.Error(), "error converting YAML to JSON: yaml: "), first-1))
	}
	var mapping *yaml.Node
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode {
		mapping = root.Content[0]
		pos.Line, pos.Column = mapping.Line+first-1, mapping.Column
	}
	j = bytes.TrimSpace(j)
	if mapping == nil || len(j) == 0 || j[0] != '{' {
		return fail("it is not a mapping: a Kubernetes object has apiVersion, kind and metadata keys")
	}
	o, e := toObject(input, pos, first, j, mapping)
	if e != nil {
		return nil, []inputError{*e}
	}
	if o.gvk.Kind != "List" || o.gvk.Group != "" {
		return []object{o}, nil
	}
	// kubectl get -o yaml prints a List: its items are the objects.
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(j, &list); err != nil {
		return fail("a List whose items are not objects: " + err.Error())
	}
	items := fieldNode(mapping, "items")
	var objs []object
	var errs []inputError
	for i, raw := range list.Items {
		ipos, inode := pos, (*yaml.Node)(nil)
		if items != nil && items.Kind == yaml.SequenceNode && i < len(items.Content) && items.Content[i].Kind == yaml.MappingNode {
			inode = items.Content[i]
			ipos.Line, ipos.Column = inode.Line+first-1, inode.Column
		}
		io, e := toObject(input, ipos, first, raw, inode)
		if e != nil {
			errs = append(errs, *e)
			continue
		}
		objs = append(objs, io)
	}
	return objs, errs
}

func toObject(input int, pos Position, first int, j []byte, node *yaml.Node) (object, *inputError) {
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name         string `json:"name"`
			GenerateName string `json:"generateName"`
			Namespace    string `json:"namespace"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(j, &meta); err != nil {
		return object{}, &inputError{input: input, pos: pos, err: "apiVersion, kind or metadata has the wrong type: " + err.Error()}
	}
	if meta.APIVersion == "" || meta.Kind == "" {
		return object{}, &inputError{input: input, pos: pos, err: "it has no apiVersion or no kind, so kubectl cannot tell what object it is"}
	}
	gv, err := schema.ParseGroupVersion(meta.APIVersion)
	if err != nil {
		return object{}, &inputError{input: input, pos: pos, err: err.Error()}
	}
	name := meta.Metadata.Name
	if name == "" {
		name = meta.Metadata.GenerateName
	}
	if node != nil {
		node.Line += first - 1 // positions in the element from here on
		shiftNodes(node, first-1)
	}
	return object{input: input, pos: pos, gvk: gv.WithKind(meta.Kind), name: name, ns: meta.Metadata.Namespace, raw: j, node: node}, nil
}

// shiftNodes moves the lines of a node's descendants by d (the node's own
// line is already moved).
func shiftNodes(n *yaml.Node, d int) {
	for _, c := range n.Content {
		c.Line += d
		shiftNodes(c, d)
	}
}

// fieldNode is the value node of a mapping's key.
func fieldNode(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// lineOf is the line of a field path ("spec.template.spec.tolerationz",
// "spec.containers[0].resources") in an object's node, or of its deepest
// ancestor present; 0 without a node.
func lineOf(n *yaml.Node, path string) int {
	if n == nil {
		return 0
	}
	line := n.Line
	for _, part := range strings.Split(path, ".") {
		key, rest, _ := strings.Cut(part, "[")
		next := fieldNode(n, key)
		if next == nil {
			// the key itself, when it is the missing leaf's parent mapping
			return line
		}
		line = keyLine(n, key)
		n = next
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			i, err := strconv.Atoi(idx)
			if err != nil || n.Kind != yaml.SequenceNode || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return line
}

// keyLine is the line of a mapping's key.
func keyLine(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return m.Line
}

// decoder reads objects into k8s.io/api types with the API server's strict
// field checking (what kubectl apply's server-side field validation
// reports); a strict failure still yields the object with the unknown
// fields dropped, as an API server without strict validation stores it.
var strictDecoder = sync.OnceValue(func() runtime.Decoder {
	return serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
})

// decodeTyped decodes o into into (a pointer to the k8s.io/api type of its
// kind). unknown lists the fields the API server would refuse.
func decodeTyped(o object, into runtime.Object) (unknown []string, err error) {
	_, _, err = strictDecoder().Decode(o.raw, nil, into)
	if err == nil {
		return nil, nil
	}
	if se, ok := runtime.AsStrictDecodingError(err); ok {
		for _, e := range se.Errors() {
			unknown = append(unknown, e.Error())
		}
		return unknown, nil
	}
	return nil, err
}

var unknownFieldRE = regexp.MustCompile(`unknown field "([^"]+)"`)
var duplicateFieldRE = regexp.MustCompile(`duplicate field "([^"]+)"`)

// fieldOfStrictError is the field path a strict decoding message names.
func fieldOfStrictError(msg string) string {
	if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	if m := duplicateFieldRE.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}
