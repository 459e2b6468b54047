package sign

import (
	"bytes"
	"fmt"
	"time"

	"github.com/ryekit/rye/item"
)

// Format is a signature format version.
type Format int

const (
	V1 Format = 1 // the Python reference's format
	V2 Format = 2 // rye's format: binds content, kind, id, time and key
)

func (f Format) String() string { return fmt.Sprintf("v%d", int(f)) }

// ParseFormat reads "v1" or "v2".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "v1", "1":
		return V1, nil
	case "v2", "2":
		return V2, nil
	}
	return 0, fmt.Errorf("unknown signature format %q: use v1 or v2", s)
}

// TimeLayout is the timestamp format of both versions (UTC, seconds).
const TimeLayout = "2006-01-02T15:04:05Z"

// Line is a parsed signature line.
type Line struct {
	Format      Format
	Timestamp   string // as written: YYYY-MM-DDTHH:MM:SSZ
	Hash        string // 64 lowercase hex
	Signature   string // base64url with padding, 88 characters
	Fingerprint string // 16 lowercase hex
	// Provenance is the v1 "provider@user" suffix, not covered by the
	// signature ("" when absent).
	Provenance string
}

// Time returns the timestamp as a time.
func (l *Line) Time() (time.Time, error) { return time.Parse(TimeLayout, l.Timestamp) }

// Fields is the part of the line inside the envelope, after "rye:signed:".
func (l *Line) fields() string {
	switch l.Format {
	case V2:
		return "v2:" + l.Timestamp + ":" + l.Hash + ":" + l.Signature + ":" + l.Fingerprint
	default:
		s := l.Timestamp + ":" + l.Hash + ":" + l.Signature + ":" + l.Fingerprint
		if l.Provenance != "" {
			s += "|" + l.Provenance
		}
		return s
	}
}

// Encode returns the full signature line for a file with extension ext,
// with its envelope and ending '\n'.
func (l *Line) Encode(ext string) (string, error) {
	prefix, suffix, ok := item.Envelope(ext)
	if !ok {
		return "", fmt.Errorf("%s files cannot carry a signature line", ext)
	}
	return prefix + "rye:signed:" + l.fields() + suffix + "\n", nil
}

// Status is what sits at the signature position of a file.
type Status int

const (
	Unsigned  Status = iota // no line, a placeholder, or a legacy rye:validated: line
	Signed                  // a line that parses
	Malformed               // a line that starts like a signature but does not parse
	Duplicate               // a signature line followed by another one
)

func (s Status) String() string {
	return [...]string{"unsigned", "signed", "malformed-signature", "duplicate-signature"}[s]
}

// Found is the result of looking for the signature line of a file.
type Found struct {
	Status Status
	Line   *Line // Signed (and Duplicate: the first line)
	// Start and End delimit the line at the signature position, including
	// its '\n' (and a '\r' before it), when there is a line that looks like
	// a signature or placeholder; otherwise Start == End is where a line
	// would be inserted.
	Start, End int
	// Placeholder is true for an Unsigned file whose line is a placeholder
	// or legacy line that the signer replaces.
	Placeholder bool
	// Reason explains Malformed and Duplicate.
	Reason string
}

// The grammar of the fields after "rye:signed:" (spec 2.2, 2.3). Every
// field has a fixed width, so the parser below checks them byte by byte
// rather than with regular expressions: compiling those ({64} and {86}
// repetitions) cost every rye command 0.2 ms and 1,300 allocations at
// start-up. grammar_test.go checks it against the regular expressions.
const (
	tsLen          = len("2006-01-02T15:04:05Z")
	hashLen        = 64
	sigLen         = 88 // 86 base64url characters and "=="
	fingerprintLen = 16
	// fieldsLen is "<ts>:<hash>:<signature>:<fingerprint>".
	fieldsLen       = tsLen + 1 + hashLen + 1 + sigLen + 1 + fingerprintLen
	placeholderTail = ":placeholder:unsigned:unsigned"
)

// isTimestamp matches YYYY-MM-DDTHH:MM:SSZ with ASCII digits.
func isTimestamp(b []byte) bool {
	const shape = "dddd-dd-ddTdd:dd:ddZ"
	if len(b) != len(shape) {
		return false
	}
	for i := range b {
		if shape[i] == 'd' {
			if b[i] < '0' || b[i] > '9' {
				return false
			}
		} else if b[i] != shape[i] {
			return false
		}
	}
	return true
}

func isLowerHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// isBase64URLChar is [A-Za-z0-9_-].
func isBase64URLChar(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

func isBase64URL(b []byte) bool {
	for _, c := range b {
		if !isBase64URLChar(c) {
			return false
		}
	}
	return true
}

// parseFields reads "<ts>:<hash>:<signature>:<fingerprint>" at the start of
// b and returns the line (without its format) and what follows.
func parseFields(b []byte) (*Line, []byte, bool) {
	if len(b) < fieldsLen {
		return nil, nil, false
	}
	const (
		hashAt = tsLen + 1
		sigAt  = hashAt + hashLen + 1
		fpAt   = sigAt + sigLen + 1
	)
	ok := isTimestamp(b[:tsLen]) && b[hashAt-1] == ':' &&
		isLowerHex(b[hashAt:hashAt+hashLen]) && b[sigAt-1] == ':' &&
		isBase64URL(b[sigAt:sigAt+sigLen-2]) && string(b[sigAt+sigLen-2:sigAt+sigLen]) == "==" && b[fpAt-1] == ':' &&
		isLowerHex(b[fpAt:fpAt+fingerprintLen])
	if !ok {
		return nil, nil, false
	}
	l := &Line{
		Timestamp:   string(b[:tsLen]),
		Hash:        string(b[hashAt : hashAt+hashLen]),
		Signature:   string(b[sigAt : sigAt+sigLen]),
		Fingerprint: string(b[fpAt : fpAt+fingerprintLen]),
	}
	return l, b[fieldsLen:], true
}

// isProvenance matches v1's "provider@user": two non-empty runs of
// [A-Za-z0-9_-] around one '@'.
func isProvenance(b []byte) bool {
	at := bytes.IndexByte(b, '@')
	return at > 0 && at < len(b)-1 && isBase64URL(b[:at]) && isBase64URL(b[at+1:])
}

// isPlaceholder matches the reference's placeholder:
// <ts>:placeholder:unsigned:unsigned.
func isPlaceholder(body []byte) bool {
	return len(body) == tsLen+len(placeholderTail) && isTimestamp(body[:tsLen]) && string(body[tsLen:]) == placeholderTail
}

// versionOf returns the digits of a leading "v<digits>:" ("" when there is
// none).
func versionOf(body []byte) string {
	if len(body) < 3 || body[0] != 'v' {
		return ""
	}
	n := 1
	for n < len(body) && '0' <= body[n] && body[n] <= '9' {
		n++
	}
	if n == 1 || n == len(body) || body[n] != ':' {
		return ""
	}
	return string(body[1:n])
}

// lineKind is what a line at the top of a file looks like.
type lineKind int

const (
	notSignature lineKind = iota
	signatureLike
	legacyLike
)

// classify says whether a line looks like a signature line: a comment
// opener, optional blanks, then "rye:signed:" (or the legacy
// "rye:validated:"). Looking like one is enough to be judged by the
// grammar: a misspaced envelope is malformed, not unsigned.
func classify(line []byte, ext string) (lineKind, []byte) {
	prefix, _, ok := item.Envelope(ext)
	if !ok {
		return notSignature, nil
	}
	opener := bytes.TrimRight([]byte(prefix), " ")
	if !bytes.HasPrefix(line, opener) {
		return notSignature, nil
	}
	rest := bytes.TrimLeft(line[len(opener):], " \t")
	switch {
	case bytes.HasPrefix(rest, []byte("rye:signed:")):
		return signatureLike, rest
	case bytes.HasPrefix(rest, []byte("rye:validated:")):
		return legacyLike, rest
	}
	return notSignature, nil
}

// Find looks at the signature position of a file (spec 2.1) and parses the
// line there.
func Find(src []byte, ext string) Found {
	start, end := item.SignatureSlot(src, ext)
	line := trimEOL(src[start:end])
	kind, _ := classify(line, ext)
	switch kind {
	case notSignature:
		return Found{Status: Unsigned, Start: start, End: start}
	case legacyLike:
		return Found{Status: Unsigned, Start: start, End: end, Placeholder: true}
	}
	f := Found{Start: start, End: end}
	l, placeholder, reason := parseLine(line, ext)
	switch {
	case placeholder:
		f.Status, f.Placeholder = Unsigned, true
		return f
	case l == nil:
		f.Status, f.Reason = Malformed, reason
		return f
	}
	f.Status, f.Line = Signed, l
	if followedBySignature(src, end, ext) {
		f.Status = Duplicate
		f.Reason = "a second signature line follows the first; remove it and sign again"
	}
	return f
}

// parseLine applies the grammar of spec 2.2/2.3 to a line that looks like a
// signature line.
func parseLine(line []byte, ext string) (l *Line, placeholder bool, reason string) {
	prefix, suffix, _ := item.Envelope(ext)
	if !bytes.HasPrefix(line, []byte(prefix+"rye:signed:")) {
		return nil, false, fmt.Sprintf("the line must start with %q followed by rye:signed: (exactly one space)", prefix)
	}
	body := line[len(prefix+"rye:signed:"):]
	if suffix != "" {
		if !bytes.HasSuffix(body, []byte(suffix)) {
			return nil, false, fmt.Sprintf("the line must end with %q", suffix)
		}
		body = body[:len(body)-len(suffix)]
	}
	if isPlaceholder(body) {
		return nil, true, ""
	}
	if v := versionOf(body); v != "" && v != "2" {
		return nil, false, fmt.Sprintf("unsupported signature version v%s (rye reads v1 and v2)", v)
	}
	if rest, isV2 := bytes.CutPrefix(body, []byte("v2:")); isV2 {
		if l, tail, ok := parseFields(rest); ok && len(tail) == 0 {
			l.Format = V2
			return l, false, ""
		}
		return nil, false, "the v2 line does not match rye:signed:v2:<YYYY-MM-DDTHH:MM:SSZ>:<64 hex hash>:<88-character base64url signature>:<16 hex fingerprint>"
	}
	if l, tail, ok := parseFields(body); ok {
		if len(tail) == 0 || tail[0] == '|' && isProvenance(tail[1:]) {
			l.Format = V1
			if len(tail) > 0 {
				l.Provenance = string(tail[1:])
			}
			return l, false, ""
		}
	}
	return nil, false, "the line does not match rye:signed:<YYYY-MM-DDTHH:MM:SSZ>:<64 hex hash>:<88-character base64url signature>:<16 hex fingerprint>"
}

// followedBySignature reports whether the line starting at off looks like
// a signature line too.
func followedBySignature(src []byte, off int, ext string) bool {
	k, _ := classify(trimEOL(src[off:lineEndAt(src, off)]), ext)
	return k != notSignature
}

// trimEOL drops a line's '\n' and a '\r' before it.
func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

func lineEndAt(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}
