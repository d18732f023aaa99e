package rules

import (
	"regexp"
	"strings"
)

// The docs examples (Rule.Bad, Rule.Good) are HCL a reader copies, so they
// are written in the layout `terraform fmt` leaves unchanged; Block and Body
// build it for the examples that packages generate.

// argRE matches the first line of an argument ("name = value"); a block
// ("name {", `dynamic "name" {`) never matches.
var argRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(.*)$`)

var heredocRE = regexp.MustCompile(`<<-?[A-Za-z_]+$`)

// Block renders `header { ... }` (`header {}` without items). A block whose only item is a one-line
// argument stays on one line (`ebs { volume_size = "30Gi" }`), which HCL
// allows for a single argument only; any other block has one item per line,
// laid out by Body.
func Block(header string, items ...string) string {
	if len(items) == 0 {
		return header + " {}"
	}
	if len(items) == 1 && isArgument(items[0]) && !strings.Contains(items[0], "\n") {
		return header + " { " + items[0] + " }"
	}
	var b strings.Builder
	b.WriteString(header + " {\n")
	for _, l := range strings.Split(Body(items...), "\n") {
		if l != "" {
			b.WriteString("  " + l)
		}
		b.WriteString("\n")
	}
	b.WriteString("}")
	return b.String()
}

// WithProvider puts a provider "karpenter" block with the arguments
// (`karpenter_version = "1.3"`) before an example.
func WithProvider(example string, args ...string) string {
	return Block(`provider "karpenter"`, args...) + "\n\n" + example
}

// Body joins items (arguments, blocks, `#` comments, each possibly spanning
// lines) one per line as `terraform fmt` lays them out: the `=` of
// consecutive one-line arguments aligned, and a blank line where arguments
// give way to blocks or the reverse (the Terraform style guide's grouping).
// A comment belongs to the item after it.
func Body(items ...string) string {
	var lines []string
	var run []int // indexes into lines of the current alignment run
	flush := func() {
		width := 0
		for _, i := range run {
			m := argRE.FindStringSubmatch(lines[i])
			width = max(width, len(m[1]))
		}
		for _, i := range run {
			m := argRE.FindStringSubmatch(lines[i])
			lines[i] = m[1] + strings.Repeat(" ", width-len(m[1])) + " = " + m[2]
		}
		run = nil
	}
	prevArg, started := false, false
	for i := 0; i < len(items); {
		j := i // items[i:j] are the comments of items[j]
		for j < len(items) && isComment(items[j]) {
			j++
		}
		arg := prevArg
		if j < len(items) {
			arg = isArgument(items[j])
		}
		if started && arg != prevArg {
			flush()
			lines = append(lines, "")
		}
		for _, c := range items[i:j] {
			flush()
			lines = append(lines, strings.Split(c, "\n")...)
		}
		if j == len(items) {
			break
		}
		first, rest, multi := strings.Cut(items[j], "\n")
		switch {
		case arg && (!multi || heredocRE.MatchString(first)):
			// terraform fmt aligns a heredoc's opening line with the
			// arguments around it, as if the heredoc were one line.
			run = append(run, len(lines))
			lines = append(lines, first)
			if multi {
				lines = append(lines, strings.Split(rest, "\n")...)
			}
		default:
			flush()
			lines = append(lines, strings.Split(items[j], "\n")...)
		}
		prevArg, started = arg, true
		i = j + 1
	}
	flush()
	return strings.Join(lines, "\n")
}

func isArgument(item string) bool {
	first, _, _ := strings.Cut(item, "\n")
	return argRE.MatchString(first)
}

func isComment(item string) bool { return strings.HasPrefix(item, "#") }
