package jsonschema

// The meta-schema documents under metaschemas/ are the JSON Schema
// specification's own (draft-07, 2019-09 and 2020-12, as published at
// json-schema.org), embedded unchanged so that a schema can be checked
// against its draft's meta-schema without loading anything. They are
// Copyright (c) 2022 JSON Schema Specification Authors and distributed
// under the BSD 3-Clause licence, whose text is metaschemas/LICENSE.
//
// Nothing is read or compiled at package initialisation: a document is
// parsed when a schema first needs it, and the meta-schema a draft's
// schemas are checked against is compiled once per process, on first
// use.

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
)

//go:embed metaschemas
var metaFS embed.FS

// metaFile is the embedded file of a meta-schema URL (without fragment),
// or "".
func metaFile(u string) string {
	rest, ok := strings.CutPrefix(u, "https://json-schema.org/")
	if !ok {
		rest, ok = strings.CutPrefix(u, "http://json-schema.org/")
	}
	if !ok {
		return ""
	}
	if rest == "schema" {
		rest = "draft/2020-12/schema"
	}
	name := "metaschemas/" + rest
	if !fs.ValidPath(name) || rest == "LICENSE" {
		return ""
	}
	if st, err := fs.Stat(metaFS, name); err != nil || st.IsDir() {
		return ""
	}
	return name
}

// isMetaURL says whether a document is one of json-schema.org's, which
// are not themselves checked against a meta-schema.
func isMetaURL(u string) bool {
	return strings.HasPrefix(u, "https://json-schema.org/") || strings.HasPrefix(u, "http://json-schema.org/")
}

// loadMeta parses the embedded meta-schema at a URL (without fragment);
// ok is false for a URL that names none.
func loadMeta(u string) (doc any, ok bool, err error) {
	name := metaFile(u)
	if name == "" {
		return nil, false, nil
	}
	b, err := metaFS.ReadFile(name)
	if err != nil {
		return nil, false, err
	}
	doc, err = unmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, false, fmt.Errorf("the embedded meta-schema %s: %w", name, err)
	}
	return doc, true, nil
}

// unmarshalJSON reads one JSON value with its numbers as json.Number, as
// the validator takes them (5 is an integer, 5.0 too, 5.5 is not).
func unmarshalJSON(r io.Reader) (any, error) {
	d := json.NewDecoder(r)
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// metaReg holds the meta-schemas schemas are checked against, compiled
// on first use with format assertions on (a "$ref" or "pattern" that is
// not a URI reference or a regular expression is an invalid schema in
// every draft). Its zero value is ready: nothing happens at init.
var metaReg struct {
	mu      sync.Mutex
	c       *compiler
	schemas map[*draft]*Schema
}

// metaSchema is the compiled meta-schema of a draft.
func metaSchema(d *draft) (*Schema, error) {
	metaReg.mu.Lock()
	defer metaReg.mu.Unlock()
	if s := metaReg.schemas[d]; s != nil {
		return s, nil
	}
	if metaReg.c == nil {
		metaReg.c = newCompiler(true)
		metaReg.c.registry = true
		metaReg.schemas = map[*draft]*Schema{}
	}
	u, _ := split(d.url)
	s, err := metaReg.c.compile(u, "")
	if err != nil {
		return nil, fmt.Errorf("the %s meta-schema does not compile: %w", d.url, err)
	}
	metaReg.schemas[d] = s
	return s, nil
}
