package suggest

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Wildcard is the shape key that stands for every key of a map: the map's
// keys are names (of pools, say), each value has the shape under it.
const Wildcard = "*"

// Undeclared is a key of a value that its shape does not declare.
type Undeclared struct {
	// Path is where the key is, relative to the value, in Terraform's
	// syntax: `["gpu"].familes`, `.disruption.budgets[0].reason`.
	Path string
	// Meant is the declared key the name is most likely a typo of; "" when
	// none is close.
	Meant string
	// Declared are the keys the shape declares there, sorted.
	Declared []string
}

// String is the path with what was meant: `["gpu"].familes (did you mean
// "families"?)`, or the declared keys when no key is close.
func (u Undeclared) String() string {
	if u.Meant != "" {
		return u.Path + ` (did you mean "` + u.Meant + `"?)`
	}
	return u.Path + " (the keys here are " + strings.Join(u.Declared, ", ") + ")"
}

// UndeclaredKeys walks value beside shape and returns, sorted by path, the
// keys value has where shape has none. Values are decoded the JSON way:
// map[string]any for objects and maps, []any for lists, sets and tuples,
// anything else (nil included) a leaf. In shape, an object lists the keys
// allowed and the shape of each key's value; an object with the single key
// Wildcard is a map whose every value has that shape; a list of one
// element is a list whose every element has that shape; anything else is a
// leaf, not looked into. Where value and shape differ in kind (a string
// where the shape has an object) nothing is reported: that is a type error,
// Terraform's to report.
func UndeclaredKeys(value, shape any) []Undeclared {
	var out []Undeclared
	walkKeys(value, shape, "", &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func walkKeys(value, shape any, at string, out *[]Undeclared) {
	switch s := shape.(type) {
	case map[string]any:
		v, ok := value.(map[string]any)
		if !ok {
			return
		}
		if elem, wild := s[Wildcard]; wild && len(s) == 1 {
			for k, x := range v {
				walkKeys(x, elem, at+"["+strconv.Quote(k)+"]", out)
			}
			return
		}
		declared := make([]string, 0, len(s))
		for k := range s {
			declared = append(declared, k)
		}
		sort.Strings(declared)
		for k, x := range v {
			sub, ok := s[k]
			if !ok {
				*out = append(*out, Undeclared{Path: at + attrStep(k), Meant: ClosestName(k, declared), Declared: declared})
				continue
			}
			walkKeys(x, sub, at+attrStep(k), out)
		}
	case []any:
		v, ok := value.([]any)
		if !ok || len(s) != 1 {
			return
		}
		for i, x := range v {
			walkKeys(x, s[0], at+"["+strconv.Itoa(i)+"]", out)
		}
	}
}

var identifierRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// attrStep is `.name`, or `["name"]` when name is no HCL identifier.
func attrStep(k string) string {
	if identifierRE.MatchString(k) {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}
