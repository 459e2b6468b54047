package python

import "github.com/ryekit/rye/item/syntax"

// Tokens of the whole file, for analyzers that look at what a tool's code
// does (lint's sandbox analyzer: the modules it imports, the functions it
// calls), with the same tokenizer that reads the metadata, so that text in
// a string or a comment is never mistaken for code.

// TokenKind is the kind of a Token.
type TokenKind uint8

const (
	Newline TokenKind = iota + 1 // the end of a logical line
	Name                         // an identifier or keyword
	Number
	String // a whole string literal, prefix and quotes included
	Op     // an operator or delimiter
)

// Token is one token of a Python file.
type Token struct {
	Kind TokenKind
	Text string // the source text (for a string: prefix and quotes included)
	Pos  syntax.Pos
	// Level is the indentation depth of the token's logical line: 0 at
	// module level.
	Level int
}

// Tokens tokenizes the whole of src (a BOM, a #! line and a signature line
// as Read takes them). The error is Read's: a file CPython could not
// tokenize either.
func Tokens(src []byte) ([]Token, error) {
	start := 0
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		start = 3
	}
	lines := syntax.NewLineIndex(src)
	sc := newPyScanner(src, start, lines)
	var out []Token
	for {
		tok, err := sc.next()
		if err != nil {
			return nil, err
		}
		kind := TokenKind(0)
		switch tok.kind {
		case pyEOF:
			return out, nil
		case pyNewline:
			kind = Newline
		case pyName:
			kind = Name
		case pyNumber:
			kind = Number
		case pyString:
			kind = String
		case pyOp:
			kind = Op
		}
		out = append(out, Token{Kind: kind, Text: string(src[tok.start:tok.end]), Pos: lines.Pos(tok.start), Level: sc.level()})
	}
}
