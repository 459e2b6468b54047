package item

import (
	"bytes"
	"strings"
)

// This file knows where a signature line sits in each file form (spec 2.1).
// Parsing the line itself is the job of package sign; readers only need to
// know which line to step over.

// BOM is the UTF-8 byte-order mark. A file may start with one; the signature
// line then follows it, and the mark stays part of the signed content.
const BOM = "\xef\xbb\xbf"

// Envelope returns the comment opener (with its one space) and closer (with
// its one space, or "") that wrap a signature line in a file with extension
// ext, and false for an extension that cannot carry one. Besides the item
// forms, .json (a "#" line) and .mjs, .cjs ("//") are files of RYE OS tool
// packages that verify_deps checks (spec 6.2.1, 6.6); they are not items.
func Envelope(ext string) (prefix, suffix string, ok bool) {
	switch ext {
	case ".md":
		return "<!-- ", " -->", true
	case ".py", ".yaml", ".yml", ".sh", ".toml", ".json":
		return "# ", "", true
	case ".js", ".ts", ".mjs", ".cjs":
		return "// ", "", true
	}
	return "", "", false
}

// allowsShebang reports whether a file form is a script whose first line may
// be "#!...", pushing the signature line to the second line.
func allowsShebang(ext string) bool {
	switch ext {
	case ".py", ".sh", ".js", ".ts", ".mjs", ".cjs":
		return true
	}
	return false
}

// SignatureSlot returns the byte range [start, end) of the line where the
// signature line of a file with extension ext sits: the first line after an
// optional BOM, or the second when the first is a "#!" line in a script.
// end includes the line's '\n' when there is one. For an empty file, or a
// script that is only a shebang line, the range is empty and start is where
// a signature line would be inserted.
func SignatureSlot(src []byte, ext string) (start, end int) {
	if bytes.HasPrefix(src, []byte(BOM)) {
		start = len(BOM)
	}
	if allowsShebang(ext) && bytes.HasPrefix(src[start:], []byte("#!")) {
		start = lineEnd(src, start)
	}
	return start, lineEnd(src, start)
}

// HasSignatureLine reports whether the line at the signature slot looks like
// a signature or placeholder line of any format (the envelope's opener,
// blanks, then "rye:" or "ryeos:signed:"), so that readers can step over
// it. Whether it is a valid one is for package sign to decide.
func HasSignatureLine(src []byte, ext string) bool {
	start, end := SignatureSlot(src, ext)
	prefix, _, ok := Envelope(ext)
	if !ok {
		return false
	}
	line, ok := bytes.CutPrefix(src[start:end], bytes.TrimRight([]byte(prefix), " "))
	line = bytes.TrimLeft(line, " \t")
	// rye:signed:, rye:validated: and RyeOS's ryeos:signed: (spec 6).
	return ok && (bytes.HasPrefix(line, []byte("rye:")) || bytes.HasPrefix(line, []byte("ryeos:signed:")))
}

// RustSigned reports whether the line at the signature slot is one of
// RyeOS's Rust engine (the r1 and ryeos eras, spec 6.1): the ryeos:
// marker, or a rye:signed: line whose last field is a 64-hex fingerprint.
// Whether it is a valid one is for package sign to decide; readers use it
// to read such a file as RyeOS 0.2+ does.
func RustSigned(src []byte, ext string) bool {
	if !HasSignatureLine(src, ext) {
		return false
	}
	start, end := SignatureSlot(src, ext)
	line := bytes.TrimRight(src[start:end], " \t\r\n")
	if bytes.Contains(line, []byte("ryeos:signed:")) {
		return true
	}
	_, suffix, _ := Envelope(ext)
	line = bytes.TrimRight(bytes.TrimSuffix(line, []byte(strings.TrimSpace(suffix))), " \t")
	i := bytes.LastIndexByte(line, ':')
	if i < 0 || len(line)-i-1 != 64 || !bytes.Contains(line, []byte("rye:signed:")) {
		return false
	}
	for _, c := range line[i+1:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// afterSignature returns the offset where the content after the signature
// line begins: the end of that line when there is one, else the slot start.
func afterSignature(src []byte, ext string) int {
	start, end := SignatureSlot(src, ext)
	if HasSignatureLine(src, ext) {
		return end
	}
	return start
}

// lineEnd returns the offset just past the '\n' ending the line that starts
// at off, or len(src).
func lineEnd(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}
