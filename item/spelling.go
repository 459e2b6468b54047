package item

import (
	"strconv"
	"strings"
)

// Spelling returns how a field is written in a file form, so that messages
// use the author's words: a Python tool's "version" is __version__, a
// directive's "category" is the <category> element.
func Spelling(form Form, field string) string {
	if form == formPython {
		for _, w := range pythonFields {
			if w.field == field {
				return w.py
			}
		}
	}
	return field
}

// assignment shows how to write field = value in a file form, for fixes:
// `__version__ = "1.0.0"`, `version: "1.0.0"`, `<category>demo</category>`.
func assignment(form Form, field, value string) string {
	q := strconv.Quote(value)
	switch form {
	case formPython:
		return Spelling(form, field) + " = " + q
	case FormDirectiveXML:
		if field == "name" || field == "version" {
			return field + "=" + q + " on <directive>"
		}
		if !strings.Contains(field, ".") {
			return "<" + field + ">" + value + "</" + field + "> in <metadata>"
		}
	case formTOMLFile:
		return field + " = " + q
	}
	return field + ": " + q
}
