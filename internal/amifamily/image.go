package amifamily

import "strings"

// ImageGuess is the family an image looks like, from what EC2 says about it:
// userData of another family's format cannot be read by it.
type ImageGuess struct {
	// Name is the family for messages ("AL2023"; "Windows" for any
	// Windows year, which images do not all name).
	Name string
	// Sure is true for EKS-optimized naming and platform fields, false for
	// a family word found somewhere in a custom name.
	Sure bool
	// Fix is the ami_family to suggest.
	Fix Family
	// windows: any Windows family reads the image's userData.
	windows bool
}

// FromImage guesses the family of an image; false when nothing hints at one.
func FromImage(platform, name, description string) (ImageGuess, bool) {
	desc := strings.ToLower(description)
	switch {
	case strings.EqualFold(platform, "windows") || strings.HasPrefix(name, "Windows_Server-"):
		return windowsGuess(true), true
	case strings.HasPrefix(name, "bottlerocket-") || strings.HasPrefix(desc, "bottlerocket"):
		return guess(Bottlerocket, true), true
	case strings.HasPrefix(name, "amazon-eks-node-al2023-") || strings.Contains(desc, "amazon linux 2023"):
		return guess(AL2023, true), true
	case strings.HasPrefix(name, "amazon-eks-node-") || strings.HasPrefix(name, "amazon-eks-gpu-node-") ||
		strings.HasPrefix(name, "amazon-eks-arm64-node-") || strings.Contains(desc, "amazonlinux2 image"):
		return guess(AL2, true), true
	}
	lower := strings.ToLower(name)
	switch {
	case strings.Contains(lower, "bottlerocket"):
		return guess(Bottlerocket, false), true
	case strings.Contains(lower, "al2023"):
		return guess(AL2023, false), true
	case strings.Contains(lower, "windows"):
		return windowsGuess(false), true
	}
	return ImageGuess{}, false
}

// OfAlias is the guess for the images of an alias of family f: sure, as
// EKS publishes them; false for a family without Linux userData to lint.
func OfAlias(f Family) (ImageGuess, bool) {
	if f.Model().Format() == FormatPowerShell {
		return windowsGuess(true), false
	}
	return guess(f, true), f.Known()
}

func guess(f Family, sure bool) ImageGuess { return ImageGuess{Name: string(f), Sure: sure, Fix: f} }

// windowsGuess suggests Windows2022: the server year is not in every name.
func windowsGuess(sure bool) ImageGuess {
	return ImageGuess{Name: "Windows", Sure: sure, Fix: Windows2022, windows: true}
}

// Reads reports whether an image of this guess reads the userData of class
// family f.
func (g ImageGuess) Reads(f Family) bool {
	if g.windows {
		return f.Model().Format() == FormatPowerShell
	}
	return f == g.Fix
}

// Linted reports whether Custom userData on such an image can be linted as
// the family's userData (PowerShell is not linted).
func (g ImageGuess) Linted() bool { return !g.windows }
