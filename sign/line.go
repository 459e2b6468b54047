package sign

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/ryekit/rye/item"
)

// Format is a signature format: rye's own v1 and v2 (spec 2), and the
// eras RYE OS wrote over 2026 (spec 6), which rye verifies; of those it
// writes RyeOS's ryeos and r1 (spec 7.6), never v1u.
type Format int

const (
	V1    Format = 1 // the Python reference's format (spec 2.2)
	V2    Format = 2 // rye's format: binds content, kind, id, time and key (spec 2.3)
	V1U   Format = 3 // v1 with an unpadded base64url signature (RYE OS from 2026-03-30)
	R1    Format = 4 // RYE OS's Rust engine, 2026-04-12 to 05-07: rye:signed:, standard base64, 64-hex key fingerprint
	RyeOS Format = 5 // RyeOS 0.2 and later: ryeos:signed:, otherwise as R1
)

// String is the format's name in verdicts and reports: v1, v2, v1u, r1,
// ryeos.
func (f Format) String() string {
	switch f {
	case V1U:
		return "v1u"
	case R1:
		return "r1"
	case RyeOS:
		return "ryeos"
	}
	return fmt.Sprintf("v%d", int(f))
}

// Legacy reports whether the format is anything but v2: the formats that
// --require v2 and min_signature_version: 2 refuse.
func (f Format) Legacy() bool { return f != V2 }

// rustFamily reports the RYE OS Rust engine's formats (spec 6.3): the hash
// covers the bytes after the line, a 64-hex fingerprint, standard base64.
func (f Format) rustFamily() bool { return f == R1 || f == RyeOS }

// Uncovered says what a format's signature leaves unsigned in an item of
// kind k with extension ext ("" for v2, which covers everything).
func (f Format) Uncovered(k item.Kind, ext string) string {
	common := "the timestamp is unsigned and nothing binds the item to its location"
	switch {
	case f == V2:
		return ""
	case f.rustFamily():
		if ext == ".py" {
			return "a #! line before the signature line is not covered, " + common
		}
		return common
	case k == item.Directive:
		return "the preamble, the fences and the body after the XML block are not covered, " + common
	case k == item.Knowledge:
		return "--- front matter is not covered, " + common
	case ext == ".py" || ext == ".sh" || ext == ".js" || ext == ".ts" || ext == ".mjs" || ext == ".cjs":
		return "the #! line is not covered, " + common
	}
	return common
}

// ParseFormat reads the name of a format rye signs with: v1, v2, and
// RyeOS's ryeos and r1 (spec 7.6).
func ParseFormat(s string) (Format, error) {
	switch s {
	case "v1", "1":
		return V1, nil
	case "v2", "2":
		return V2, nil
	case "ryeos":
		return RyeOS, nil
	case "r1":
		return R1, nil
	case "v1u":
		return 0, fmt.Errorf("rye verifies v1u signatures but does not write them: use v2, v1 for the Python reference, or ryeos for RyeOS 0.2+")
	}
	return 0, fmt.Errorf("unknown signature format %q: use v1, v2, ryeos or r1", s)
}

// TimeLayout is the timestamp format of both versions (UTC, seconds).
const TimeLayout = "2006-01-02T15:04:05Z"

// line is a parsed signature line.
type line struct {
	Format      Format
	Timestamp   string // as written: YYYY-MM-DDTHH:MM:SSZ
	Hash        string // 64 lowercase hex
	Signature   string // as written: base64url (v1, v2, v1u unpadded) or standard base64 (r1, ryeos)
	Fingerprint string // 16 lowercase hex (v1, v1u, v2) or 64 (r1, ryeos)
	// Provenance is the v1 "provider@user" suffix, not covered by the
	// signature ("" when absent).
	Provenance string
}

// Time returns the timestamp as a time.
func (l *line) Time() (time.Time, error) { return time.Parse(TimeLayout, l.Timestamp) }

// Fields is the part of the line inside the envelope, after "rye:signed:".
func (l *line) fields() string {
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
// with its envelope and ending '\n'. rye writes v1 and v2 only.
func (l *line) Encode(ext string) (string, error) {
	prefix, suffix, ok := item.Envelope(ext)
	if !ok {
		return "", fmt.Errorf("%s files cannot carry a signature line", ext)
	}
	if l.Format != V1 && l.Format != V2 {
		return "", fmt.Errorf("rye does not write %s signature lines", l.Format)
	}
	return prefix + "rye:signed:" + l.fields() + suffix + "\n", nil
}

// status is what sits at the signature position of a file.
type status int

const (
	Unsigned  status = iota // no line, a placeholder, or a legacy rye:validated: line
	Signed                  // a line that parses
	Malformed               // a line that starts like a signature but does not parse
	Duplicate               // a signature line followed by another one
)

func (s status) String() string {
	return [...]string{"unsigned", "signed", "malformed-signature", "duplicate-signature"}[s]
}

// Found is the result of looking for the signature line of a file.
type Found struct {
	Status status
	Line   *line // Signed (and Duplicate: the first line)
	// Start and End delimit the line at the signature position, including
	// its '\n' (and a '\r' before it), when there is a line that looks like
	// a signature or placeholder; otherwise Start == End is where a line
	// would be inserted.
	Start, End int
	// Placeholder is true for an Unsigned file whose line is a placeholder
	// or legacy line that the signer replaces.
	Placeholder bool
	// Reason explains Malformed and Duplicate, and an Unsigned file whose
	// line is where its format does not allow it (after a byte-order mark,
	// on a second line the format does not allow).
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
func parseFields(b []byte) (*line, []byte, bool) {
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
	l := &line{
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
	case bytes.HasPrefix(rest, []byte("rye:signed:")), bytes.HasPrefix(rest, []byte("ryeos:signed:")):
		return signatureLike, rest
	case bytes.HasPrefix(rest, []byte("rye:validated:")):
		return legacyLike, rest
	}
	return notSignature, nil
}

// Find looks at the signature position of a file (spec 2.1) and parses the
// line there, in whichever format it is written (spec 6.1), then applies
// that format's own rules on where the line may be: the RYE OS formats are
// hidden by a byte-order mark, and the Rust engine's only allow a second
// line after a #! line in Python files.
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
	if _, err := decodeSignature(l); err != nil {
		f.Status, f.Reason = Malformed, err.Error()+" (its unused low bits must be zero)"
		return f
	}
	if why := misplaced(l.Format, src, start, ext); why != "" {
		return Found{Status: Unsigned, Start: start, End: start, Reason: why}
	}
	if why := hiddenBreak(l.Format, src, start); why != "" {
		f.Status, f.Reason = Malformed, why
		return f
	}
	f.Status, f.Line = Signed, l
	// The Rust engine's hash covers every byte after the line, a second
	// signature-looking line included: it is body, not a duplicate.
	if !l.Format.rustFamily() && followedBySignature(src, end, ext) {
		f.Status = Duplicate
		f.Reason = "a second signature line follows the first; remove it and sign again"
	}
	return f
}

// misplaced says why a parsed line of format f, at start, is not where f
// allows it ("" when it is).
func misplaced(f Format, src []byte, start int, ext string) string {
	bom := bytes.HasPrefix(src, []byte(item.BOM))
	second := start > 0 && !(bom && start == len(item.BOM))
	switch {
	case f == V2:
		return ""
	case bom:
		return fmt.Sprintf("a byte-order mark before the %s signature line hides it (the reference reads no signature there); remove the mark and sign again", f)
	case f.rustFamily() && second && ext != ".py":
		return fmt.Sprintf("a %s signature line may follow a #! line only in a Python file; here it is on line 2, where the engine looks for none", f)
	}
	return ""
}

// hiddenBreak says why a #! line before a signature line of format f, at
// start, hides code ("" when it does not, or when there is no such line).
func hiddenBreak(f Format, src []byte, start int) string {
	from := 0
	if bytes.HasPrefix(src, []byte(item.BOM)) {
		from = len(item.BOM)
	}
	if start <= from || !bytes.HasPrefix(src[from:], []byte("#!")) {
		return ""
	}
	if r, ok := hiddenBreakIn(f, bytes.TrimSuffix(src[from:start], []byte("\n"))); ok {
		return fmt.Sprintf("the #! line before the %s signature line holds a line break (U+%04X) that Python or Node ends a line at, and the signature does not cover the #! line: code after the break would run unsigned; remove it and sign again", f, r)
	}
	return ""
}

// hiddenBreakIn finds in a #! line (without its '\n') that a signature of
// format f leaves out of its hash a character that ends a line for an
// interpreter of tools but not for the signature slot, which ends lines
// at '\n' only: Python ends one at a lone '\r', Node at '\r', U+2028 and
// U+2029. Code after it would run under the signature. v2 covers the
// line; v1 and v1u hash it after turning '\r' into '\n', so there only
// the separators hide code; r1 and ryeos hash the bytes after the line.
// A final '\r' (a CRLF line end) is no break.
func hiddenBreakIn(f Format, line []byte) (rune, bool) {
	if f == V2 {
		return 0, false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	for _, r := range string(line) {
		if r == '\u2028' || r == '\u2029' || (r == '\r' && f.rustFamily()) {
			return r, true
		}
	}
	return 0, false
}

// parseLine applies the grammar of a line's format (spec 2.2, 2.3, 6.1 to
// 6.3) to a line that looks like a signature line. The marker and the last
// field tell the format: ryeos:signed: is the RyeOS engine's; rye:signed:v2:
// rye's own; rye:signed: ending in a 16-hex fingerprint the v1 family (v1,
// or v1u with an unpadded signature); any other rye:signed: line the r1
// engine's. rye's formats want exactly one space after the opener and the
// exact closer; the Rust engine's allow any blanks there.
func parseLine(line []byte, ext string) (l *line, placeholder bool, reason string) {
	prefix, suffix, _ := item.Envelope(ext)
	opener := bytes.TrimRight([]byte(prefix), " ")
	rest := bytes.TrimLeft(line[len(opener):], " \t")
	exact := bytes.HasPrefix(line, []byte(prefix+"rye:signed:"))
	if body, ok := bytes.CutPrefix(rest, []byte("ryeos:signed:")); ok {
		return parseRust(body, suffix, RyeOS)
	}
	body := rest[len("rye:signed:"):]
	switch v := versionOf(body); {
	case isPlaceholderLine(body, suffix):
		return nil, true, ""
	case v != "" && v != "2":
		return nil, false, fmt.Sprintf("unsupported signature version v%s (rye reads v1, v2 and the RYE OS eras v1u, r1 and ryeos)", v)
	case v == "" && !isV1Family(body, suffix):
		return parseRust(body, suffix, R1)
	case !exact:
		return nil, false, fmt.Sprintf("the line must start with %q followed by rye:signed: (exactly one space)", prefix)
	}
	if suffix != "" {
		if !bytes.HasSuffix(body, []byte(suffix)) {
			return nil, false, fmt.Sprintf("the line must end with %q", suffix)
		}
		body = body[:len(body)-len(suffix)]
	}
	if rest, isV2 := bytes.CutPrefix(body, []byte("v2:")); isV2 {
		if l, tail, ok := parseFields(rest); ok && len(tail) == 0 {
			l.Format = V2
			return l, false, ""
		}
		return nil, false, "the v2 line does not match rye:signed:v2:<YYYY-MM-DDTHH:MM:SSZ>:<64 hex hash>:<88-character base64url signature>:<16 hex fingerprint>"
	}
	if l, tail, ok := parseV1Family(body); ok {
		if len(tail) == 0 || tail[0] == '|' && isProvenance(tail[1:]) {
			if len(tail) > 0 {
				l.Provenance = string(tail[1:])
			}
			return l, false, ""
		}
	}
	return nil, false, "the line does not match rye:signed:<YYYY-MM-DDTHH:MM:SSZ>:<64 hex hash>:<base64url signature: 88 characters ending in ==, or 86 without (v1u)>:<16 hex fingerprint>[|provider@user]"
}

// isPlaceholderLine matches a placeholder body, with or without the
// envelope's closer.
func isPlaceholderLine(body []byte, suffix string) bool {
	body = bytes.TrimSuffix(bytes.TrimRight(body, " \t"), []byte(strings.TrimSpace(suffix)))
	return isPlaceholder(bytes.TrimRight(body, " \t"))
}

// isV1Family reports whether a rye:signed: body (closer included) ends in a
// 16-hex fingerprint, with an optional |provider@user after it: the v1
// family's last field (spec 6.1, rule 2).
func isV1Family(body []byte, suffix string) bool {
	body = bytes.TrimSuffix(body, []byte(suffix))
	if i := bytes.LastIndexByte(body, '|'); i >= 0 {
		body = body[:i]
	}
	i := bytes.LastIndexByte(body, ':')
	return i >= 0 && len(body)-i-1 == fingerprintLen && isLowerHex(body[i+1:])
}

// parseV1Family reads "<ts>:<hash>:<signature>:<fingerprint>" where the
// signature is 88 base64url characters ending in "==" (v1) or 86 without
// padding (v1u), and returns what follows.
func parseV1Family(b []byte) (*line, []byte, bool) {
	if l, tail, ok := parseFields(b); ok {
		l.Format = V1
		return l, tail, true
	}
	const unpadded = sigLen - 2
	if len(b) < fieldsLen-2 {
		return nil, nil, false
	}
	const (
		hashAt = tsLen + 1
		sigAt  = hashAt + hashLen + 1
		fpAt   = sigAt + unpadded + 1
	)
	ok := isTimestamp(b[:tsLen]) && b[hashAt-1] == ':' && isLowerHex(b[hashAt:hashAt+hashLen]) && b[sigAt-1] == ':' &&
		isBase64URL(b[sigAt:sigAt+unpadded]) && b[fpAt-1] == ':' && isLowerHex(b[fpAt:fpAt+fingerprintLen])
	if !ok {
		return nil, nil, false
	}
	return &line{
		Format:      V1U,
		Timestamp:   string(b[:tsLen]),
		Hash:        string(b[hashAt : hashAt+hashLen]),
		Signature:   string(b[sigAt : sigAt+unpadded]),
		Fingerprint: string(b[fpAt : fpAt+fingerprintLen]),
	}, b[fpAt+fingerprintLen:], true
}

// parseRust reads the Rust engine's fields (spec 6.3.1): split from the
// right at the last three colons into TS, HASH, SIG and FP, surrounding
// blanks trimmed, then every field's shape checked, which the engine does
// not do at parse time: TS as v1's, HASH and FP 64 lowercase hex, SIG 88
// characters of standard base64 ending in "==". A Markdown line must end
// with " -->".
func parseRust(body []byte, suffix string, f Format) (*line, bool, string) {
	body = bytes.TrimRight(body, " \t")
	if closer := strings.TrimSpace(suffix); closer != "" {
		var ok bool
		if body, ok = bytes.CutSuffix(body, []byte(" "+closer)); !ok {
			return nil, false, fmt.Sprintf("Markdown signature line without %q at its end", " "+closer)
		}
		body = bytes.TrimRight(body, " \t")
	}
	parts := bytes.Split(body, []byte(":"))
	if len(parts) < 4 {
		return nil, false, fmt.Sprintf("the %s line does not have the four fields <timestamp>:<hash>:<signature>:<fingerprint>", f)
	}
	n := len(parts)
	ts := bytes.TrimSpace(bytes.Join(parts[:n-3], []byte(":")))
	hash, sig, fp := parts[n-3], parts[n-2], parts[n-1]
	switch {
	case f == RyeOS && len(fp) == fingerprintLen && isLowerHex(fp):
		return nil, false, "v1 fields under the ryeos marker (a 16-hex fingerprint): the marker was renamed without signing again; re-sign"
	case len(fp) != 64 || !isLowerHex(fp):
		return nil, false, fmt.Sprintf("the %s key fingerprint must be 64 lowercase hex (SHA-256 of the raw key), not %d characters", f, len(fp))
	case !isTimestamp(ts):
		return nil, false, fmt.Sprintf("the %s timestamp must be YYYY-MM-DDTHH:MM:SSZ", f)
	case len(hash) != hashLen || !isLowerHex(hash):
		return nil, false, fmt.Sprintf("the %s content hash must be 64 lowercase hex", f)
	case !isStdBase64Sig(sig):
		return nil, false, fmt.Sprintf("the %s signature must be 88 characters of standard base64 ending in == (the engine decodes nothing else)", f)
	}
	return &line{Format: f, Timestamp: string(ts), Hash: string(hash), Signature: string(sig), Fingerprint: string(fp)}, false, ""
}

// isStdBase64Sig matches an Ed25519 signature in padded standard base64: 86
// characters of [A-Za-z0-9+/] then "==".
func isStdBase64Sig(b []byte) bool {
	if len(b) != sigLen || string(b[sigLen-2:]) != "==" {
		return false
	}
	for _, c := range b[:sigLen-2] {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/') {
			return false
		}
	}
	return true
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
