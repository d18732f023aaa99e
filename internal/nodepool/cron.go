package nodepool

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseCron reports why Karpenter's cron parsing of a budget schedule fails,
// or nil. Karpenter calls robfig/cron/v3 ParseStandard("TZ=UTC " + schedule)
// (Budget.IsActive); this reimplements that grammar: a descriptor (@yearly,
// @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <Go
// duration>) or exactly five fields (minute 0-59, hour 0-23, day of month
// 1-31, month 1-12 or jan-dec, day of week 0-6 or sun-sat), each a comma list
// of *, ?, N, N-M, optionally /step. The TZ=UTC prefix is consumed first, so a
// schedule that carries its own TZ= counts as an extra field.
func parseCron(schedule string) error {
	spec := strings.TrimSpace(schedule)
	if spec == "" {
		return fmt.Errorf("empty spec string")
	}
	if strings.HasPrefix(spec, "@") {
		return parseDescriptor(spec)
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return fmt.Errorf("expected exactly 5 fields, found %d: %s", len(fields), fields)
	}
	for i, f := range fields {
		if err := cronField(f, cronBounds[i]); err != nil {
			return fmt.Errorf("%s field %q: %w", cronBounds[i].name, f, err)
		}
	}
	return nil
}

type bounds struct {
	name     string
	min, max int
	names    map[string]int
}

var cronBounds = []bounds{
	{name: "minute", min: 0, max: 59},
	{name: "hour", min: 0, max: 23},
	{name: "day-of-month", min: 1, max: 31},
	{name: "month", min: 1, max: 12, names: map[string]int{
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}},
	{name: "day-of-week", min: 0, max: 6, names: map[string]int{
		"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}},
}

func parseDescriptor(spec string) error {
	switch spec {
	case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly":
		return nil
	}
	if d, ok := strings.CutPrefix(spec, "@every "); ok {
		if _, err := time.ParseDuration(d); err != nil {
			return fmt.Errorf("failed to parse duration %s: %w", spec, err)
		}
		return nil
	}
	return fmt.Errorf("unrecognized descriptor: %s", spec)
}

// cronField is robfig's getField/getRange.
func cronField(field string, b bounds) error {
	// A field of only commas has no ranges; robfig accepts it (it then
	// never matches, which the CRD's pattern and cron both let through).
	ranges := strings.FieldsFunc(field, func(r rune) bool { return r == ',' })
	for _, expr := range ranges {
		rangeAndStep := strings.Split(expr, "/")
		lowHigh := strings.Split(rangeAndStep[0], "-")
		var start, end int
		var err error
		if lowHigh[0] == "*" || lowHigh[0] == "?" {
			start, end = b.min, b.max
		} else {
			if start, err = cronValue(lowHigh[0], b); err != nil {
				return err
			}
			switch len(lowHigh) {
			case 1:
				end = start
			case 2:
				if end, err = cronValue(lowHigh[1], b); err != nil {
					return err
				}
			default:
				return fmt.Errorf("too many hyphens: %s", expr)
			}
		}
		switch len(rangeAndStep) {
		case 1:
		case 2:
			step, err := cronInt(rangeAndStep[1])
			if err != nil {
				return err
			}
			if step == 0 {
				return fmt.Errorf("step of range should be a positive number: %s", expr)
			}
			if len(lowHigh) == 1 {
				end = b.max
			}
		default:
			return fmt.Errorf("too many slashes: %s", expr)
		}
		switch {
		case start < b.min:
			return fmt.Errorf("beginning of range (%d) below minimum (%d): %s", start, b.min, expr)
		case end > b.max:
			return fmt.Errorf("end of range (%d) above maximum (%d): %s", end, b.max, expr)
		case start > end:
			return fmt.Errorf("beginning of range (%d) beyond end of range (%d): %s", start, end, expr)
		}
	}
	return nil
}

func cronValue(s string, b bounds) (int, error) {
	if n, ok := b.names[strings.ToLower(s)]; ok {
		return n, nil
	}
	return cronInt(s)
}

func cronInt(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s", s)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative number (%d) not allowed: %s", n, s)
	}
	return n, nil
}
