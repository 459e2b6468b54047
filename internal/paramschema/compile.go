package paramschema

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/ryekit/rye/internal/jsonschema"
)

// BaseURL is where a schema is placed for the compiler; nothing is ever
// loaded from it (or from anywhere).
const BaseURL = "mem://rye/param-schema.json"

// MaxCached bounds the compiled schemas kept (lint's bound; the executor's
// former cache kept 256, and the two now share one cache).
const MaxCached = 512

// A PanicError is a panic of the validator, caught: bad input must never
// crash rye (the fuzz tests fail on any).
type PanicError struct{ Value any }

func (e *PanicError) Error() string { return fmt.Sprintf("the validator failed (%v)", e.Value) }

// Compiled is what compiling one schema gave. It is shared by every caller
// that compiles the same JSON and safe for concurrent use.
type Compiled struct {
	Schema *jsonschema.Schema // nil when Err is set
	// Err is why the schema does not compile: a jsonschema error
	// (*jsonschema.SchemaValidationError for a schema that fails
	// meta-validation, ...) or a *PanicError.
	Err error

	mu   sync.Mutex
	doc  *jsonschema.Document
	subs map[string]subschema
}

type subschema struct {
	sch *jsonschema.Schema
	err error
}

// cache is made on first use (nothing happens at package init).
var cache struct {
	sync.Mutex
	m map[string]*Compiled
}

// Compile compiles a schema given as Doc made it (draft 2020-12 unless its
// "$schema" says otherwise), once per canonical JSON text: the same schema
// written as YAML, TOML or Python is compiled once.
func Compile(doc any) *Compiled {
	key, err := json.Marshal(doc)
	if err != nil { // cannot happen for a value Doc made
		return &Compiled{Err: err}
	}
	cache.Lock()
	c := cache.m[string(key)]
	cache.Unlock()
	if c != nil {
		return c
	}
	c = compile(doc)
	cache.Lock()
	if cache.m == nil {
		cache.m = map[string]*Compiled{}
	}
	if len(cache.m) >= MaxCached {
		for k := range cache.m { // drop one, any one
			delete(cache.m, k)
			break
		}
	}
	cache.m[string(key)] = c
	cache.Unlock()
	return c
}

// ResetCache forgets every compiled schema (for tests and benchmarks).
func ResetCache() {
	cache.Lock()
	clear(cache.m)
	cache.Unlock()
}

// CacheLen is the number of compiled schemas kept (for tests).
func CacheLen() int {
	cache.Lock()
	defer cache.Unlock()
	return len(cache.m)
}

func compile(doc any) (out *Compiled) {
	defer func() {
		if r := recover(); r != nil {
			out = &Compiled{Err: &PanicError{r}}
		}
	}()
	d, err := jsonschema.Compile(BaseURL, doc, jsonschema.Draft2020)
	if err != nil {
		return &Compiled{Err: err}
	}
	return &Compiled{Schema: d.Schema(), doc: d, subs: map[string]subschema{}}
}

// At is the compiled subschema at a JSON pointer (tokens) of the schema.
func (c *Compiled) At(ptr []string) (sch *jsonschema.Schema, err error) {
	if c.Err != nil {
		return nil, c.Err
	}
	key := JSONPointer(ptr)
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.subs[key]; ok {
		return s.sch, s.err
	}
	defer func() {
		if r := recover(); r != nil {
			sch, err = nil, &PanicError{r}
			c.subs[key] = subschema{err: err}
		}
	}()
	sch, err = c.doc.Subschema(ptr)
	c.subs[key] = subschema{sch, err}
	return sch, err
}

// Validate validates a plain value (map[string]any, []any, string,
// json.Number, int64, float64, bool, nil) against a compiled schema. A
// value that fails comes back as *jsonschema.ValidationError (Explain
// words it).
func Validate(sch *jsonschema.Schema, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{r}
		}
	}()
	return sch.Validate(v)
}

// StripBase takes BaseURL out of a validator message: the schema's own URL
// becomes "the schema", the URL of a place in it its fragment.
func StripBase(s string) string {
	s = strings.ReplaceAll(s, `"`+BaseURL+`#"`, "the schema")
	return strings.ReplaceAll(s, BaseURL, "")
}
