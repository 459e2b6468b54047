package python

// Tokens for readers other than the metadata reader: the content
// analyzers judge a tool's code (what it fetches and runs) on the same
// tokens, so that a string, a comment or a bracket means the same thing to
// every reader of the file, and no reader is fooled by a "#" inside a
// string or a quote inside a comment.

// tokenKind is the kind of a Token.
type tokenKind uint8

const (
	Newline tokenKind = iota + 1 // the end of a logical line
	Name                         // an identifier or keyword
	number
	String  // a whole string literal, prefix and quotes included; an f-string is one token
	Op      // an operator or delimiter
	Comment // from "#" to the end of its line
)

// Token is one token of a Python file: its kind and the bytes [Start, End)
// of the file it spans.
type Token struct {
	Kind   tokenKind
	prefix uint8 // beside Kind, so that a Token is 32 bytes, not 40
	Start  int
	End    int
	// Level is the indentation depth of the token's logical line: 0 at
	// module level.
	Level int
}

// FString reports whether a String token is an f-string or a t-string,
// whose value is only known when it runs.
func (t Token) FString() bool { return t.prefix&(pyFormat|pyTemplate) != 0 }

// Bytes reports whether a String token is a bytes literal.
func (t Token) Bytes() bool { return t.prefix&pyBytes != 0 }

// Tokens splits src into tokens, comments included, in order; blank lines
// and indentation produce nothing. The error is the tokenizer's (an
// unterminated string, unbalanced brackets, inconsistent indentation: what
// CPython's tokenizer rejects), with its position.
func Tokens(src []byte) ([]Token, error) {
	start := 0
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		start = 3
	}
	// Room for a token every 6 bytes: typical code (a token every 6 to 10
	// bytes) fits, dense code grows the slice once, and a file of comments
	// and docstrings does not allocate and zero ten times its size, as room
	// for one every 4 bytes did.
	out := make([]Token, 0, len(src)/6+16)
	sc := newPyScanner(src, start, nil) // the line table only if an error needs it
	sc.comment = func(s, e int) { out = append(out, Token{Kind: Comment, Start: s, End: e}) }
	for {
		t, err := sc.next()
		if err != nil {
			return nil, err
		}
		if t.kind == pyEOF {
			return out, nil
		}
		out = append(out, Token{Kind: tokenKinds[t.kind], Start: t.start, End: t.end, Level: sc.level(), prefix: t.flags})
	}
}

var tokenKinds = [...]tokenKind{pyNewline: Newline, pyName: Name, pyNumber: number, pyString: String, pyOp: Op}

// StringValue decodes a String token of src (not an f-string): escapes
// applied, in the file's encoding (its coding cookie), bytes literals as
// their bytes. ok is false when it cannot be decoded.
func StringValue(src []byte, t Token) (value string, ok bool) {
	if t.Kind != String || t.FString() || t.End > len(src) || t.Start < 0 || t.Start >= t.End {
		return "", false
	}
	body := src
	if len(body) >= 3 && body[0] == 0xEF && body[1] == 0xBB && body[2] == 0xBF {
		body = body[3:]
	}
	r := &pyReader{src: src, enc: pyEncoding(body)}
	v, why := r.decodeString(string(src[t.Start:t.End]), t.prefix)
	return v, why == ""
}
