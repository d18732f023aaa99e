package crd

import (
	"strings"
	"unicode"
)

// acronyms are the upper-case runs of Karpenter's field names that are one
// word in snake_case, longest first so that "IPv6" wins over "IP" and "IDs"
// over "ID". A generic camel-case splitter would cut "IPv6" into "i_pv6" and
// "IDs" into "i_ds".
var acronyms = []string{"IPv6", "IDs", "CFS", "DNS", "KMS", "SSM", "AMI", "EBS", "HTTP", "ID", "IP", "GC"}

// snake converts a CRD field name to the Terraform attribute name:
// ownerID → owner_id, clusterDNS → cluster_dns, httpProtocolIPv6 →
// http_protocol_ipv6, imageGCHighThresholdPercent →
// image_gc_high_threshold_percent, associatePublicIPAddress →
// associate_public_ip_address.
func snake(s string) string {
	var words []string
	for i := 0; i < len(s); {
		if w := acronymAt(s, i); w != "" {
			words = append(words, strings.ToLower(w))
			i += len(w)
			continue
		}
		// A word: one leading rune (any case), then lower-case letters and
		// digits; an unknown upper-case run ("XYZValue") is split before its
		// last capital, the usual rule.
		j := i + 1
		if isUpper(s[i]) && j < len(s) && isUpper(s[j]) {
			for j < len(s) && isUpper(s[j]) && (j+1 == len(s) || !isLower(s[j+1])) && acronymAt(s, j) == "" {
				j++
			}
		} else {
			for j < len(s) && !isUpper(s[j]) {
				j++
			}
		}
		words = append(words, strings.ToLower(s[i:j]))
		i = j
	}
	return strings.Join(words, "_")
}

// acronymAt returns the acronym starting at s[i] when it is a whole word:
// followed by the end, a capital or a digit, never by a lower-case letter
// ("IDle" is not "ID").
func acronymAt(s string, i int) string {
	for _, a := range acronyms {
		if strings.HasPrefix(s[i:], a) {
			if end := i + len(a); end == len(s) || !isLower(s[end]) {
				return a
			}
		}
	}
	return ""
}

func isUpper(b byte) bool { return b < 0x80 && unicode.IsUpper(rune(b)) }
func isLower(b byte) bool { return b < 0x80 && unicode.IsLower(rune(b)) }
