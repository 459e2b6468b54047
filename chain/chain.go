package chain

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/space"
)

// maxLength is the longest chain allowed (spec 3.2).
const maxLength = 10

// primitives are the chain roots the executor implements.
var primitives = map[item.ID]bool{
	"rye/core/primitives/subprocess":  true,
	"rye/core/primitives/http_client": true,
}

// isPrimitive reports whether id is a chain root the executor implements.
func isPrimitive(id item.ID) bool { return primitives[id] }

// Element is one link of a chain: a tool, a runtime or the primitive.
type Element struct {
	Loc  *space.Located
	Item *item.Item // the bytes, read once
	Meta *item.Metadata
}

// ID is the element's item id.
func (e *Element) ID() item.ID { return e.Loc.ID }

// Space is the tier the element was found in.
func (e *Element) Space() space.Name { return e.Loc.Space.Name }

// ToolType is tool_type ("" when absent).
func (e *Element) ToolType() string { return e.Meta.Str("tool_type") }

// Executor is executor_id, or "" when it is null or absent.
func (e *Element) Executor() string { return e.Meta.Str("executor_id") }

// Version is the element's version ("" when absent).
func (e *Element) Version() string { return e.Meta.Str("version") }

// Chain is a built chain, the requested tool first and the primitive last.
type Chain struct {
	Elements []*Element
}

// Tool is the chain's first element.
func (c *Chain) Tool() *Element { return c.Elements[0] }

// Root is the chain's last element (the primitive, when the chain is valid).
func (c *Chain) Root() *Element { return c.Elements[len(c.Elements)-1] }

// IDs lists the element ids.
func (c *Chain) IDs() []item.ID {
	ids := make([]item.ID, len(c.Elements))
	for i, e := range c.Elements {
		ids[i] = e.ID()
	}
	return ids
}

// Error is a chain that cannot be built. It shows the whole path so
// far: `my/tool → my/runtime → ?: executor "my/nope" not found (searched
// user, system)`; a tool that is not found is the message alone.
type Error struct {
	Path []item.ID
	Msg  string
	// At is the element whose link failed (nil when the tool itself was not
	// found) and Node the value to point at (its executor_id).
	At   *Element
	Node *syntax.Node
	Err  error
}

func (e *Error) Error() string {
	if len(e.Path) == 0 {
		return e.Msg // the tool itself: there is no path to show
	}
	parts := make([]string, len(e.Path))
	for i, id := range e.Path {
		parts[i] = string(id)
	}
	return strings.Join(append(parts, "?"), " → ") + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Loader reads a located element. The executor passes one that also
// verifies; lint reads plainly.
type Loader func(*space.Located) (*item.Item, error)

// ElementCache remembers read and parsed elements by file, for callers that
// build many chains over the same runtimes (lint). Safe for concurrent use.
type ElementCache struct {
	mu       sync.Mutex
	m        map[string]*Element
	resolved map[string]resolution
}

type resolution struct {
	loc *space.Located
	err error
}

// resolve is Spaces.Resolve, remembered per (spaces searched, id).
func (c *ElementCache) resolve(ss *space.Spaces, id item.ID, from *space.Space) (*space.Located, error) {
	if c == nil {
		return ss.Resolve(item.Tool, id, ss.From(from))
	}
	key := from.Label + "\x00" + string(id)
	c.mu.Lock()
	r, ok := c.resolved[key]
	c.mu.Unlock()
	if ok {
		return r.loc, r.err
	}
	loc, err := ss.Resolve(item.Tool, id, ss.From(from))
	c.mu.Lock()
	if c.resolved == nil {
		c.resolved = map[string]resolution{}
	}
	c.resolved[key] = resolution{loc, err}
	c.mu.Unlock()
	return loc, err
}

// Build resolves the chain of tool id: the tool is found in any space
// (project → user → system); each link's executor_id is resolved starting
// from the space where the link itself was found (project: all three;
// user: user then system; system: system only). Each element is read once,
// by load (nil: read from the space), and parsed once per cache (nil: no
// cache).
func Build(ss *space.Spaces, id item.ID, load Loader, cache *ElementCache) (*Chain, error) {
	loc, err := ss.Resolve(item.Tool, id, nil)
	if err != nil {
		return nil, &Error{Msg: err.Error(), Err: err}
	}
	return BuildFrom(ss, loc, load, cache)
}

// BuildFrom builds the chain of the tool at loc (lint knows which file it
// is looking at; Build resolves the id first).
func BuildFrom(ss *space.Spaces, loc *space.Located, load Loader, cache *ElementCache) (*Chain, error) {
	if load == nil {
		load = func(l *space.Located) (*item.Item, error) { return l.Load() }
	}
	c := &Chain{}
	seen := map[item.ID]bool{}
	for {
		// The tool itself is not remembered (unless it is also another
		// chain's executor): a run over a whole tree keeps only the
		// runtimes and primitives its chains share.
		el, err := cache.element(loc, load, len(c.Elements) > 0)
		if err != nil {
			return c, &Error{Path: append(c.IDs(), loc.ID), Msg: err.Error(), Err: err}
		}
		c.Elements = append(c.Elements, el)
		seen[el.ID()] = true
		next := el.Executor()
		if next == "" {
			if n := el.Meta.Get("executor_id"); n != nil && !n.IsNull() {
				return c, &Error{Path: c.IDs(), At: el, Node: n, Msg: "executor_id must be a tool id or null, found " + n.Raw}
			}
			return c, nil
		}
		node := el.Meta.Get("executor_id")
		nextID, err := item.ParseID(next)
		if err != nil {
			return c, &Error{Path: c.IDs(), At: el, Node: node, Msg: "executor_id: " + err.Error(), Err: err}
		}
		if seen[nextID] {
			return c, &Error{Path: c.IDs(), At: el, Node: node, Msg: fmt.Sprintf("cycle: %s is already in the chain", nextID)}
		}
		if len(c.Elements) == maxLength {
			return c, &Error{Path: c.IDs(), At: el, Node: node, Msg: fmt.Sprintf("the chain is longer than %d elements", maxLength)}
		}
		loc, err = cache.resolve(ss, nextID, loc.Space)
		var nf *space.NotFoundError
		if errors.As(err, &nf) {
			return c, &Error{Path: c.IDs(), At: el, Node: node, Err: err,
				Msg: fmt.Sprintf("executor %q not found (searched %s)", nextID, strings.Join(nf.Searched, ", "))}
		}
		if err != nil {
			return c, &Error{Path: c.IDs(), At: el, Node: node, Msg: err.Error(), Err: err}
		}
	}
}

// element is the element at loc: the cached one, or read (and cached when
// keep).
func (c *ElementCache) element(loc *space.Located, load Loader, keep bool) (*Element, error) {
	if c == nil {
		return readElement(loc, load)
	}
	key := loc.Space.Label + "\x00" + loc.Rel
	c.mu.Lock()
	el, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return el, nil
	}
	el, err := readElement(loc, load)
	if err != nil || !keep {
		return el, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*Element{}
	}
	c.m[key] = el
	c.mu.Unlock()
	return el, nil
}

func readElement(loc *space.Located, load Loader) (*Element, error) {
	it, err := load(loc)
	if err != nil {
		return nil, err
	}
	md, err := it.Metadata()
	if err != nil {
		return nil, fmt.Errorf("its metadata does not parse: %v", err)
	}
	return &Element{Loc: loc, Item: it, Meta: md}, nil
}
