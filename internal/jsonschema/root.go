package jsonschema

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// A root is one document: the schema given to Compile, or a meta-schema a
// reference names.
type root struct {
	url       string
	doc       any
	resources map[string]*resource // by JSON pointer: the schemas that set a base URI ($id), and the document
	processed map[string]bool      // the subschemas whose resources and anchors are collected
}

// A resource is a schema with its own base URI: the document itself or a
// schema with an $id. Its anchors are the names its subschemas define.
type resource struct {
	ptr            string
	id             string // absolute URL, no fragment
	draft          *draft
	anchors        map[string]string // anchor -> JSON pointer
	dynamicAnchors []string
}

func newResource(ptr, id string, d *draft) *resource {
	return &resource{ptr: ptr, id: id, draft: d, anchors: map[string]string{}}
}

// resource is the resource a place belongs to: the nearest enclosing one.
func (r *root) resource(ptr string) *resource {
	for {
		if res, ok := r.resources[ptr]; ok {
			return res
		}
		slash := strings.LastIndexByte(ptr, '/')
		if slash < 0 {
			return r.resources[""]
		}
		ptr = ptr[:slash]
	}
}

// byID is the resource whose base URI is id, or nil.
func (r *root) byID(id string) *resource {
	for _, res := range r.resources {
		if res.id == id {
			return res
		}
	}
	return nil
}

// clone copies what collecting changes, so that a failed collection
// leaves the root as it was.
func (r *root) clone() *root {
	c := &root{url: r.url, doc: r.doc, resources: make(map[string]*resource, len(r.resources)), processed: maps.Clone(r.processed)}
	for k, res := range r.resources {
		cr := *res
		cr.anchors = maps.Clone(res.anchors)
		cr.dynamicAnchors = slices.Clone(res.dynamicAnchors)
		c.resources[k] = &cr
	}
	return c
}

// collect walks the subschema at ptr (value v, base URI base, draft
// fallback unless its "$schema" says otherwise where it sets an $id) and
// the subschemas at the places its draft has them, recording resources
// and anchors.
func (c *compiler) collect(r *root, v any, base, ptr string, fallback *draft) error {
	if r.processed[ptr] {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if ptr == "" {
			r.resources[""] = newResource("", base, fallback)
		}
		r.processed[ptr] = true
		return nil
	}

	d, version := fallback, fallback.version
	s, hasSchema := obj["$schema"].(string)
	unsupported := false
	if hasSchema {
		var err error
		if d, version, unsupported, err = c.schemaDraft(r, ptr, s, fallback); err != nil {
			return err
		}
	}
	id := getID(obj, version)
	if id == "" && ptr != "" {
		// "$schema" counts only where a resource starts.
		d, version, hasSchema, unsupported = fallback, fallback.version, false, false
		id = getID(obj, version)
	}
	var res *resource
	if id != "" {
		u, _, err := join(c.bases, base, id)
		if err != nil {
			return err
		}
		base = u
		res = newResource(ptr, base, fallback)
	} else if ptr == "" {
		res = newResource(ptr, base, fallback)
	}
	if res != nil {
		if unsupported {
			return &UnsupportedDraftError{Schema: s, URL: location(r.url, ptr)}
		}
		if other := r.byID(base); other != nil {
			if other.ptr != ptr {
				return &DuplicateIDError{ID: base, URL: r.url, Ptr1: ptr, Ptr2: other.ptr}
			}
		} else {
			if hasSchema {
				res.draft = d
			}
			r.resources[ptr] = res
		}
	}
	baseRes := r.byID(base)
	if baseRes == nil { // cannot happen: the document is a resource
		baseRes = r.resource(ptr)
	}
	if err := collectAnchors(r, obj, ptr, baseRes); err != nil {
		return err
	}
	var kw keywords
	kw.read(obj)
	for _, p := range d.subschemas {
		val, ok := kw.get(p.kw)
		if !ok {
			continue
		}
		name := keywordNames[p.kw]
		switch p.shape {
		case single:
			if err := c.collect(r, val, base, ptr+"/"+name, baseRes.draft); err != nil {
				return err
			}
		case inMap:
			m, ok := val.(map[string]any)
			if !ok {
				continue
			}
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if err := c.collect(r, m[k], base, ptr+"/"+name+"/"+escape(k), baseRes.draft); err != nil {
					return err
				}
			}
		case inList:
			l, ok := val.([]any)
			if !ok {
				continue
			}
			for i, it := range l {
				if err := c.collect(r, it, base, ptr+"/"+name+"/"+strconv.Itoa(i), baseRes.draft); err != nil {
					return err
				}
			}
		}
	}
	r.processed[ptr] = true
	return nil
}

// schemaDraft reads the "$schema" of the object at ptr: the draft it
// names, the version whose $id keyword applies, and whether it names a
// document rye cannot use as a meta-schema (a draft it does not support,
// a vocabulary's meta-schema, the schema itself). A "$schema" that names
// no document rye has is an error even where it does not count, as
// before.
func (c *compiler) schemaDraft(r *root, ptr, s string, fallback *draft) (*draft, int, bool, error) {
	if d, version := draftOf(s); d != nil {
		return d, version, false, nil
	} else if version != 0 {
		return fallback, version, true, nil
	}
	u, _ := split(s)
	if _, err := url.Parse(u); err != nil {
		return nil, 0, false, &ParseURLError{URL: s, Err: err}
	}
	if ptr == "" && u == r.url {
		return nil, 0, false, &UnsupportedDraftError{Schema: s, URL: location(r.url, ptr)}
	}
	if u != r.url && c.roots[u] == nil && metaFile(u) == "" {
		return nil, 0, false, &NotLoadedError{URL: u}
	}
	// A vocabulary's meta-schema (or this document): its own "$schema"
	// decides the $id keyword; every embedded one is 2019-09 or 2020-12.
	return fallback, fallback.version, true, nil
}

// collectAnchors records the anchors the object at ptr defines in res.
func collectAnchors(r *root, obj map[string]any, ptr string, res *resource) error {
	add := func(name string) error {
		if p, ok := res.anchors[name]; ok {
			if p == ptr {
				return nil
			}
			return &DuplicateAnchorError{Anchor: name, URL: r.url, Ptr1: p, Ptr2: ptr}
		}
		res.anchors[name] = ptr
		return nil
	}
	if res.draft.version < 2019 {
		if _, ok := obj["$ref"]; ok {
			return nil // the other keywords are ignored
		}
		if id, ok := obj["$id"].(string); ok {
			_, frag, err := splitFragment(id)
			if err != nil {
				return err
			}
			if !isPointer(frag) {
				if err := add(frag); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if s, ok := obj["$anchor"].(string); ok {
		if err := add(s); err != nil {
			return err
		}
	}
	if res.draft.version >= 2020 {
		if s, ok := obj["$dynamicAnchor"].(string); ok {
			if err := add(s); err != nil {
				return err
			}
			res.dynamicAnchors = append(res.dynamicAnchors, s)
		}
	}
	return nil
}
