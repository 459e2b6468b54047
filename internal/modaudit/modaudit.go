// Package modaudit checks a module graph (`go list -m all`) against a list
// of vulnerable module versions kept in the repository (.ci/vulnerable.txt),
// so that CI fails when a dependency is at a version with a published
// advisory. It needs nothing but the module graph: no vulnerability
// database is fetched, which keeps the check offline and cheap, at the
// price of adding a line when an advisory is published.
package modaudit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// advisory is one line of the list: versions of Module in Range are
// affected by ID, fixed in Fixed.
type advisory struct {
	Module  string
	Range   []constraint
	Fixed   string
	ID      string
	Summary string
	Line    int
}

// constraint is one comparison of a range, such as <v5.16.5.
type constraint struct {
	Op      string // <, <=, >, >=, =
	Version string
}

// Contains reports whether version satisfies every constraint.
func (a *advisory) Contains(version string) (bool, error) {
	for _, c := range a.Range {
		n, err := compare(version, c.Version)
		if err != nil {
			return false, err
		}
		ok := map[string]bool{"<": n < 0, "<=": n <= 0, ">": n > 0, ">=": n >= 0, "=": n == 0}[c.Op]
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// parseList reads the list: one advisory per line (module, range, fixed
// version, advisory id, summary), blank lines and # comments skipped. A
// line that does not parse, or whose fixed version is inside its own
// range, is an error naming the line.
func parseList(data []byte) ([]advisory, error) {
	var out []advisory
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, err := parseAdvisory(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		a.Line = i + 1
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, errors.New("no advisory: an empty list would check nothing")
	}
	return out, nil
}

func parseAdvisory(line string) (advisory, error) {
	f := strings.Fields(line)
	if len(f) < 4 {
		return advisory{}, errors.New("write: module vulnerable-range fixed advisory [summary]")
	}
	a := advisory{Module: f[0], Fixed: f[2], ID: f[3], Summary: strings.Join(f[4:], " ")}
	if strings.ContainsAny(a.Module, "@<>=,") || !strings.Contains(a.Module, "/") && !strings.Contains(a.Module, ".") {
		return advisory{}, fmt.Errorf("module %q: give a module path such as golang.org/x/crypto", a.Module)
	}
	for _, c := range strings.Split(f[1], ",") {
		op := strings.TrimRight(c[:min(2, len(c))], "v0123456789")
		if op != "<" && op != "<=" && op != ">" && op != ">=" && op != "=" {
			return advisory{}, fmt.Errorf("range %q: each constraint is <, <=, >, >= or = and a version, joined by commas", f[1])
		}
		v := c[len(op):]
		if _, err := parse(v); err != nil {
			return advisory{}, fmt.Errorf("range %q: %v", f[1], err)
		}
		a.Range = append(a.Range, constraint{op, v})
	}
	if _, err := parse(a.Fixed); err != nil {
		return advisory{}, fmt.Errorf("fixed version: %v", err)
	}
	if in, _ := a.Contains(a.Fixed); in {
		return advisory{}, fmt.Errorf("the fixed version %s is inside the vulnerable range %s", a.Fixed, f[1])
	}
	if !strings.HasPrefix(a.ID, "GO-") && !strings.HasPrefix(a.ID, "GHSA-") && !strings.HasPrefix(a.ID, "CVE-") {
		return advisory{}, fmt.Errorf("advisory %q: give its GO-, GHSA- or CVE- id", a.ID)
	}
	return a, nil
}

// module is one module of the graph, as go list -m all prints it.
type module struct {
	Path, Version string
}

// parseGraph reads `go list -m all`: "path version", "path version =>
// path version" (the replacement is what is built, and is checked too),
// "path version => ./dir" (a local replacement, which has no version),
// and the main module's line, which has no version.
func parseGraph(out []byte) ([]module, error) {
	var mods []module
	for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 1:
			// The main module.
		case len(f) == 2:
			mods = append(mods, module{f[0], f[1]})
		case len(f) == 4 && f[2] == "=>":
			mods = append(mods, module{f[0], f[1]})
		case len(f) == 5 && f[2] == "=>":
			mods = append(mods, module{f[0], f[1]}, module{f[3], f[4]})
		default:
			return nil, fmt.Errorf("go list -m all, line %d: %q is not a module line", i+1, line)
		}
	}
	return mods, nil
}

// match is a module of the graph at a version an advisory affects.
type match struct {
	Module   module
	Advisory advisory
}

func (m match) String() string {
	s := fmt.Sprintf("%s %s is affected by %s", m.Module.Path, m.Module.Version, m.Advisory.ID)
	if m.Advisory.Summary != "" {
		s += " (" + m.Advisory.Summary + ")"
	}
	return s + fmt.Sprintf(": upgrade to %s or later (go get %s@%s)", m.Advisory.Fixed, m.Module.Path, m.Advisory.Fixed)
}

// check lists the modules of the graph that an advisory affects. A
// version that cannot be compared is an error, never a pass.
func check(graph []module, list []advisory) ([]match, error) {
	var out []match
	for _, m := range graph {
		for _, a := range list {
			if a.Module != m.Path {
				continue
			}
			in, err := a.Contains(m.Version)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", m.Path, m.Version, err)
			}
			if in {
				out = append(out, match{m, a})
			}
		}
	}
	return out, nil
}

// version is a parsed semantic version (build metadata, such as
// +incompatible, dropped: it does not order versions).
type version struct {
	num [3]int
	pre []string
}

// parse reads vMAJOR.MINOR.PATCH[-PRERELEASE][+BUILD], the form of every
// module version (pseudo-versions included).
func parse(v string) (version, error) {
	var out version
	s, ok := strings.CutPrefix(v, "v")
	if !ok {
		return out, fmt.Errorf("version %q does not start with v", v)
	}
	s, _, _ = strings.Cut(s, "+")
	s, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return out, fmt.Errorf("version %q is not vMAJOR.MINOR.PATCH", v)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p != strconv.Itoa(n) {
			return out, fmt.Errorf("version %q is not vMAJOR.MINOR.PATCH", v)
		}
		out.num[i] = n
	}
	if hasPre {
		out.pre = strings.Split(pre, ".")
		for _, id := range out.pre {
			if id == "" {
				return out, fmt.Errorf("version %q has an empty pre-release identifier", v)
			}
		}
	}
	return out, nil
}

// compare orders two module versions as semantic versioning does: -1, 0
// or 1.
func compare(a, b string) (int, error) {
	x, err := parse(a)
	if err != nil {
		return 0, err
	}
	y, err := parse(b)
	if err != nil {
		return 0, err
	}
	for i := range x.num {
		if x.num[i] != y.num[i] {
			return sign(x.num[i] - y.num[i]), nil
		}
	}
	switch {
	case len(x.pre) == 0 && len(y.pre) == 0:
		return 0, nil
	case len(x.pre) == 0:
		return 1, nil // a release is after its pre-releases
	case len(y.pre) == 0:
		return -1, nil
	}
	for i := 0; i < len(x.pre) && i < len(y.pre); i++ {
		p, q := x.pre[i], y.pre[i]
		pn, perr := strconv.Atoi(p)
		qn, qerr := strconv.Atoi(q)
		switch {
		case perr == nil && qerr == nil:
			if pn != qn {
				return sign(pn - qn), nil
			}
		case perr == nil:
			return -1, nil // numeric identifiers sort before others
		case qerr == nil:
			return 1, nil
		case p != q:
			return strings.Compare(p, q), nil
		}
	}
	return sign(len(x.pre) - len(y.pre)), nil
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
