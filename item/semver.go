package item

import (
	"fmt"
	"strconv"
	"strings"
)

// semver is a parsed semantic version (SemVer 2.0.0).
type semver struct {
	Major, Minor, Patch uint64
	Pre                 []string // pre-release identifiers; build metadata is dropped
}

// ParseSemver reads MAJOR.MINOR.PATCH[-PRE][+BUILD].
func ParseSemver(s string) (semver, error) {
	if !semverRE().MatchString(s) {
		return semver{}, fmt.Errorf("%q is not a semantic version (MAJOR.MINOR.PATCH, e.g. 1.2.3 or 1.2.3-rc.1)", s)
	}
	s, _, _ = strings.Cut(s, "+")
	core, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	var v semver
	var err error
	for i, dst := range []*uint64{&v.Major, &v.Minor, &v.Patch} {
		if *dst, err = strconv.ParseUint(parts[i], 10, 64); err != nil {
			return semver{}, fmt.Errorf("%q: %v", s, err)
		}
	}
	if hasPre {
		v.Pre = strings.Split(pre, ".")
	}
	return v, nil
}

// Compare orders versions by SemVer precedence: -1, 0 or +1. A pre-release
// sorts before its release (1.0.0-rc.1 < 1.0.0); numeric identifiers
// compare as numbers and sort before alphanumeric ones.
func (v semver) Compare(w semver) int {
	for _, d := range [][2]uint64{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Patch, w.Patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(v.Pre) == 0 && len(w.Pre) == 0:
		return 0
	case len(v.Pre) == 0:
		return 1
	case len(w.Pre) == 0:
		return -1
	}
	for i := 0; i < len(v.Pre) && i < len(w.Pre); i++ {
		if c := comparePre(v.Pre[i], w.Pre[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(v.Pre) < len(w.Pre):
		return -1
	case len(v.Pre) > len(w.Pre):
		return 1
	}
	return 0
}

func comparePre(a, b string) int {
	na, errA := strconv.ParseUint(a, 10, 64)
	nb, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		switch {
		case na < nb:
			return -1
		case na > nb:
			return 1
		}
		return 0
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}
