// Package taints is the Kubernetes taint as the kubelet and the API server
// see it: the string form of corev1.Taint.ToString, the kubelet's
// --register-with-taints parser, and the validation the API server applies
// when a Node registers. It imports apimachinery's validation only, not
// k8s.io/api, so every package that renders or checks taints can use it.
package taints

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Effects accepted by the kubelet and the API server.
const (
	NoSchedule       = "NoSchedule"
	PreferNoSchedule = "PreferNoSchedule"
	NoExecute        = "NoExecute"
)

// Effects lists the valid effects in the order Kubernetes documents them.
var Effects = []string{NoSchedule, PreferNoSchedule, NoExecute}

// UnregisteredKey is the key of the taint Karpenter expects every node it
// launches to register with (sigs.k8s.io/karpenter pkg/apis/v1/taints.go).
const UnregisteredKey = "karpenter.sh/unregistered"

// Unregistered is karpenter.sh/unregistered:NoExecute.
var Unregistered = Taint{Key: UnregisteredKey, Effect: NoExecute}

// Taint is a node taint. An empty Value means "no value".
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// String is corev1.Taint.ToString: key=value:effect, key:effect, and, for an
// effect-less taint, key=value: or key.
func (t Taint) String() string {
	if t.Effect == "" {
		if t.Value == "" {
			return t.Key
		}
		return t.Key + "=" + t.Value + ":"
	}
	if t.Value == "" {
		return t.Key + ":" + t.Effect
	}
	return t.Key + "=" + t.Value + ":" + t.Effect
}

// Matches is corev1.Taint.MatchTaint: same key and effect, value ignored.
// Karpenter uses it to decide whether karpenter.sh/unregistered:NoExecute is
// already present.
func (t Taint) Matches(o Taint) bool { return t.Key == o.Key && t.Effect == o.Effect }

// Join renders taints as the kubelet flag value: String() joined by ",".
func Join(ts []Taint) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// IsValidEffect reports whether e is one of the three effects.
func IsValidEffect(e string) bool {
	return e == NoSchedule || e == PreferNoSchedule || e == NoExecute
}

// Parse parses a --register-with-taints value with the kubelet's rules
// (k8s.io/kubernetes pkg/util/taints NewTaintsVar/parseTaint): an empty
// value is no taints; otherwise the value is split on ",", each item on ":"
// (at most one), the key part on "=" (at most one). Errors are worded as the
// kubelet words them. A key-only item ("k") parses, as in the kubelet, but
// has no effect: Validate reports that, since the API server then rejects
// the Node.
func Parse(spec string) ([]Taint, error) {
	if spec == "" {
		return nil, nil
	}
	var out []Taint
	for _, item := range strings.Split(spec, ",") {
		t, err := ParseOne(item)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// ParseOne parses one '<key>=<value>:<effect>', '<key>:<effect>' or '<key>'
// item with the kubelet's rules and error texts.
func ParseOne(st string) (Taint, error) {
	var key, value, effect string
	parts := strings.Split(st, ":")
	switch len(parts) {
	case 1:
		key = parts[0]
	case 2:
		effect = parts[1]
		if !IsValidEffect(effect) {
			return Taint{}, fmt.Errorf("invalid taint effect: %v, unsupported taint effect", effect)
		}
		kv := strings.Split(parts[0], "=")
		if len(kv) > 2 {
			return Taint{}, fmt.Errorf("invalid taint spec: %v", st)
		}
		key = kv[0]
		if len(kv) == 2 {
			value = kv[1]
			if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
				return Taint{}, fmt.Errorf("invalid taint spec: %v, %s", st, strings.Join(errs, "; "))
			}
		}
	default:
		return Taint{}, fmt.Errorf("invalid taint spec: %v", st)
	}
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		return Taint{}, fmt.Errorf("invalid taint spec: %v, %s", st, strings.Join(errs, "; "))
	}
	return Taint{Key: key, Value: value, Effect: effect}, nil
}

// FieldError is one reason a taint would be rejected.
type FieldError struct {
	// Field is "key", "value" or "effect".
	Field string
	// Value is the offending value.
	Value string
	// Reason is what Kubernetes says about it.
	Reason string
}

func (e FieldError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Field, e.Value, e.Reason)
}

// Validate applies the rules the kubelet (flag parsing) and the API server
// (Node validation) apply to a taint a node registers with: the key is a
// qualified name, a non-empty value is a label value (so no "/", unlike
// Karpenter's CRD pattern), and the effect is required and one of three.
func (t Taint) Validate() []FieldError {
	var out []FieldError
	if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
		out = append(out, FieldError{Field: "key", Value: t.Key, Reason: strings.Join(errs, "; ")})
	}
	if t.Value != "" {
		if errs := validation.IsValidLabelValue(t.Value); len(errs) > 0 {
			out = append(out, FieldError{Field: "value", Value: t.Value, Reason: strings.Join(errs, "; ")})
		}
	}
	switch {
	case t.Effect == "":
		out = append(out, FieldError{Field: "effect", Value: t.Effect,
			Reason: "an effect is required: the API server rejects the Node (spec.taints.effect: Required value)"})
	case !IsValidEffect(t.Effect):
		out = append(out, FieldError{Field: "effect", Value: t.Effect,
			Reason: fmt.Sprintf("unsupported taint effect; use one of %s", strings.Join(Effects, ", "))})
	}
	return out
}

// Duplicates returns the indexes i>0 of taints whose key and effect repeat an
// earlier one; the API server rejects such a Node ("taints must be unique by
// key and effect pair").
func Duplicates(ts []Taint) []int {
	var out []int
	for i := range ts {
		for j := 0; j < i; j++ {
			if ts[i].Matches(ts[j]) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}
