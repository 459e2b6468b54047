package jsonschema

// The formats "format" asserts where it is an assertion (draft-07, and
// the meta-schemas in every draft). Their verdicts are those of the
// validator rye used before this one, format by format, so that no
// draft-07 schema changes its mind; a format not listed here ("idn-email",
// "idn-hostname", a name of the schema's own) asserts nothing, as the
// specification allows. Values that are not strings always pass.

import (
	"errors"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A formatDef is one format: its name and its check of a value.
type formatDef struct {
	name  string
	check func(any) error
}

// formatNamed is the format of a name, or nil for one rye does not check.
func formatNamed(name string) *formatDef {
	var f func(string) error
	switch name {
	case "regex":
		f = checkRegex
	case "json-pointer":
		f = checkJSONPointer
	case "relative-json-pointer":
		f = checkRelativeJSONPointer
	case "uuid":
		f = checkUUID
	case "duration":
		f = checkDuration
	case "period":
		f = checkPeriod
	case "ipv4":
		f = checkIPv4
	case "ipv6":
		f = checkIPv6
	case "hostname":
		f = checkHostname
	case "email":
		f = checkEmail
	case "date":
		f = checkDate
	case "time":
		f = checkTime
	case "date-time":
		f = checkDateTime
	case "uri", "iri":
		f = checkURI
	case "uri-reference", "iri-reference":
		f = checkURIReference
	case "uri-template":
		f = checkURITemplate
	case "semver":
		f = checkSemver
	default:
		return nil
	}
	return &formatDef{name: name, check: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		return f(s)
	}}
}

func checkRegex(s string) error {
	_, err := regexp.Compile(s)
	return err
}

// checkJSONPointer: RFC 6901, "" or "/" tokens, "~" only as "~0" or "~1".
func checkJSONPointer(s string) error {
	if s == "" {
		return nil
	}
	if s[0] != '/' {
		return errors.New("does not start with /")
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return errors.New("~ not followed by 0 or 1")
		}
	}
	return nil
}

// checkRelativeJSONPointer: a non-negative integer without leading zeros,
// then "#" or a JSON pointer.
func checkRelativeJSONPointer(s string) error {
	n := digits(s)
	if n == 0 {
		return errors.New("does not start with a non-negative integer")
	}
	if n > 1 && s[0] == '0' {
		return errors.New("the integer has a leading zero")
	}
	if s[n:] == "#" {
		return nil
	}
	return checkJSONPointer(s[n:])
}

// digits counts the ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// checkUUID: RFC 4122's 8-4-4-4-12 hexadecimal digits.
func checkUUID(s string) error {
	if len(s) != 36 {
		return errors.New("not 36 characters long")
	}
	for i := 0; i < len(s); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return errors.New("no - where the groups meet")
			}
		} else if !isHex(s[i]) {
			return errors.New("a character that is not a hexadecimal digit")
		}
	}
	return nil
}

// checkDuration: RFC 3339 appendix A: P, then weeks (nW), or dates
// (nY nM nD, in order) and times (T nH nM nS, in order), each at most
// once.
func checkDuration(s string) error {
	rest, ok := strings.CutPrefix(s, "P")
	if !ok {
		return errors.New("does not start with P")
	}
	if rest == "" {
		return errors.New("nothing after P")
	}
	if w, ok := strings.CutSuffix(rest, "W"); ok {
		if w == "" || digits(w) != len(w) {
			return errors.New("not a number of weeks")
		}
		return nil
	}
	parts := strings.Split(rest, "T")
	if len(parts) > 2 {
		return errors.New("more than one T")
	}
	for i, p := range parts {
		if i == 1 && p == "" {
			return errors.New("nothing after T")
		}
		units := "YMD"
		if i == 1 {
			units = "HMS"
		}
		for p != "" {
			n := digits(p)
			if n == 0 {
				return errors.New("a unit without a number")
			}
			if n == len(p) {
				return errors.New("a number without a unit")
			}
			j := strings.IndexByte(units, p[n])
			if j < 0 {
				return errors.New("a unit out of place or order: " + strconv.Quote(p[n:n+1]))
			}
			units, p = units[j+1:], p[n+1:]
		}
	}
	return nil
}

// checkPeriod: RFC 3339 appendix A: start/end, start/duration or
// duration/end.
func checkPeriod(s string) error {
	start, end, ok := strings.Cut(s, "/")
	if !ok {
		return errors.New("no /")
	}
	if strings.HasPrefix(start, "P") {
		if err := checkDuration(start); err != nil {
			return err
		}
		return checkDateTime(end)
	}
	if err := checkDateTime(start); err != nil {
		return err
	}
	if strings.HasPrefix(end, "P") {
		return checkDuration(end)
	}
	return checkDateTime(end)
}

// checkIPv4: four dotted decimals from 0 to 255, none with a leading
// zero. (A decimal strconv.Atoi reads with a sign, "+1", passes, as it
// did before.)
func checkIPv4(s string) error {
	groups := strings.Split(s, ".")
	if len(groups) != 4 {
		return errors.New("not four decimals")
	}
	for _, g := range groups {
		if len(g) > 1 && g[0] == '0' {
			return errors.New("a leading zero")
		}
		n, err := strconv.Atoi(g)
		if err != nil {
			return err
		}
		if n < 0 || n > 255 {
			return errors.New("a decimal out of 0 to 255")
		}
	}
	return nil
}

// checkIPv6: RFC 4291 text (no zone).
func checkIPv6(s string) error {
	if !strings.Contains(s, ":") {
		return errors.New("no colon")
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return err
	}
	if a.Zone() != "" {
		return errors.New("a zone is not part of an address")
	}
	return nil
}

// checkHostname: RFC 1123: dot-separated labels of 1 to 63 letters,
// digits and hyphens, not starting or ending with a hyphen, 253
// characters at most (a final dot aside).
func checkHostname(s string) error {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return errors.New("longer than 253 characters")
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) < 1 || len(label) > 63 {
			return errors.New("a label not 1 to 63 characters long")
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return errors.New("a label starting or ending with -")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return errors.New("a character other than a letter, digit or - in a label")
			}
		}
	}
	return nil
}

// checkEmail: RFC 5321's mailbox, as the former validator read it: a
// local part (dot-atom, or starting with a quote) of 64 characters at
// most, "@", a hostname or a bracketed IPv4 or "IPv6:" address; 254
// characters at most.
func checkEmail(s string) error {
	if len(s) > 254 {
		return errors.New("longer than 254 characters")
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return errors.New("no @")
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return errors.New("a local part longer than 64 characters")
	}
	if len(local) > 1 && local[0] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `\"`) {
			return errors.New(`\ or " inside the quoted local part`)
		}
	} else {
		if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
			return errors.New("a dot at the start or end of the local part, or two in a row")
		}
		for _, c := range local {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".!#$%&'*+-/=?^_`{|}~", c)) {
				return errors.New("a character the local part cannot have: " + strconv.QuoteRune(c))
			}
		}
	}
	if len(domain) >= 2 && domain[0] == '[' && domain[len(domain)-1] == ']' {
		ip := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(ip, "IPv6:"); ok {
			return checkIPv6(v6)
		}
		return checkIPv4(ip)
	}
	return checkHostname(domain)
}

// checkDate: RFC 3339 full-date.
func checkDate(s string) error {
	_, err := time.Parse("2006-01-02", s)
	return err
}

// checkTime: RFC 3339 full-time: hh:mm:ss, an optional fraction, Z or an
// offset; a leap second (60) only at 23:59 UTC.
func checkTime(s string) error {
	if len(s) < 9 {
		return errors.New("shorter than hh:mm:ssZ")
	}
	if s[2] != ':' || s[5] != ':' {
		return errors.New("no : between hours, minutes and seconds")
	}
	hms := strings.SplitN(s[:8], ":", 3)
	if len(hms) != 3 {
		return errors.New("not hh:mm:ss")
	}
	var n [3]int
	for i, t := range hms {
		v, err := strconv.Atoi(t)
		if err != nil || v < 0 {
			return errors.New("hours, minutes or seconds that are not a number")
		}
		n[i] = v
	}
	h, m, sec := n[0], n[1], n[2]
	if h > 23 || m > 59 || sec > 60 {
		return errors.New("hours, minutes or seconds out of range")
	}
	rest := s[8:]
	if frac, ok := strings.CutPrefix(rest, "."); ok {
		d := digits(frac)
		if d == 0 {
			return errors.New("no digits after the decimal point")
		}
		rest = frac[d:]
	}
	if rest != "z" && rest != "Z" {
		if len(rest) != 6 {
			return errors.New("an offset that is not +hh:mm or -hh:mm")
		}
		sign := 1
		switch rest[0] {
		case '+':
			sign = -1
		case '-':
		default:
			return errors.New("an offset that does not start with + or -")
		}
		if rest[3] != ':' {
			return errors.New("an offset that is not +hh:mm or -hh:mm")
		}
		zh, err1 := strconv.Atoi(rest[1:3])
		zm, err2 := strconv.Atoi(rest[4:])
		if err1 != nil || err2 != nil || zh < 0 || zm < 0 {
			return errors.New("an offset that is not a number")
		}
		if zh > 23 || zm > 59 {
			return errors.New("an offset out of range")
		}
		hm := h*60 + m + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	if sec >= 60 && (h != 23 || m != 59) {
		return errors.New("a leap second other than at 23:59:60 UTC")
	}
	return nil
}

// checkDateTime: RFC 3339 date-time: a date, T (or t), a time.
func checkDateTime(s string) error {
	if len(s) < 20 {
		return errors.New("shorter than yyyy-mm-ddThh:mm:ssZ")
	}
	if s[10] != 'T' && s[10] != 't' {
		return errors.New("no T between date and time")
	}
	if err := checkDate(s[:10]); err != nil {
		return err
	}
	return checkTime(s[11:])
}

// parseURL parses a URL as net/url does, and checks an IPv6 host.
func parseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return nil, errors.New("an IPv6 host not in brackets")
		}
		if err := checkIPv6(host); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// checkURI: an absolute URI (with a scheme).
func checkURI(s string) error {
	u, err := parseURL(s)
	if err != nil {
		return err
	}
	if !u.IsAbs() {
		return errors.New("a relative reference, not an absolute URI")
	}
	return nil
}

// checkURIReference: a URI or a relative reference (no backslash).
func checkURIReference(s string) error {
	if strings.Contains(s, `\`) {
		return errors.New(`a \`)
	}
	_, err := parseURL(s)
	return err
}

// checkURITemplate: RFC 6570, as far as a URL with unnested braces in
// its escaped path.
func checkURITemplate(s string) error {
	u, err := parseURL(s)
	if err != nil {
		return err
	}
	for _, seg := range strings.Split(u.RawPath, "/") {
		seg, err := url.PathUnescape(seg)
		if err != nil {
			return err
		}
		open := false
		for _, c := range seg {
			switch c {
			case '{':
				if open {
					return errors.New("nested braces")
				}
				open = true
			case '}':
				if !open {
					return errors.New("a } without {")
				}
				open = false
			}
		}
		if open {
			return errors.New("a { without }")
		}
	}
	return nil
}

// checkSemver: semver.org 2.0.0: major.minor.patch without leading
// zeros, then an optional -pre-release and +build.
func checkSemver(s string) error {
	if i := strings.IndexByte(s, '+'); i >= 0 {
		build := s[i+1:]
		if build == "" {
			return errors.New("an empty build")
		}
		for _, id := range strings.Split(build, ".") {
			if id == "" || !alnumHyphen(id) {
				return errors.New("a build identifier that is empty or not [0-9A-Za-z-]")
			}
		}
		s = s[:i]
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		for _, id := range strings.Split(s[i+1:], ".") {
			if id == "" || !alnumHyphen(id) {
				return errors.New("a pre-release identifier that is empty or not [0-9A-Za-z-]")
			}
			if len(id) > 1 && id[0] == '0' && digits(id) == len(id) {
				return errors.New("a numeric pre-release identifier with a leading zero")
			}
		}
		s = s[:i]
	}
	core := strings.Split(s, ".")
	if len(core) != 3 {
		return errors.New("not major.minor.patch")
	}
	for _, n := range core {
		if n == "" || digits(n) != len(n) {
			return errors.New("a version number that is empty or not digits")
		}
		if len(n) > 1 && n[0] == '0' {
			return errors.New("a version number with a leading zero")
		}
	}
	return nil
}

func alnumHyphen(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
			return false
		}
	}
	return true
}
