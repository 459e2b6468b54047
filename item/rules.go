package item

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/ryekit/rye/item/syntax"
)

// Compiled on first use (sync.OnceValue): a process that checks no
// metadata (rye version, a signing run with nothing to sign) compiles
// neither.
var (
	semverRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
	})
	snakeCaseRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]*$`) })
)

// isSemver reports whether s is a semantic version (SemVer 2.0.0:
// MAJOR.MINOR.PATCH with optional pre-release and build parts).
func isSemver(s string) bool { return semverRE().MatchString(s) }

// Check applies the extractor's rules to an item's fields and returns one
// *Error per broken rule, in rule order. Fields that the reader could not
// read (md.Problems, which name fields as the file spells them) are not
// reported again as missing.
//
// The rules mean what they meant to the reference's validator
// (validate_field, spec 6.6), so that every item it accepted is accepted:
// an absent key is null; a null is valid unless the field is required and
// not nullable; a required field that is not nullable may not be an empty
// list; a required field without match_path may not be an empty string; an
// empty string in a field without match_path is not checked further. So a
// tool without executor_id is valid under `required: true, nullable: true`.
func (x *Extractor) Check(md *Metadata, id ID) []*syntax.Error {
	fields := x.Fields(md, id)
	c := &checker{id: id, form: md.Form, unreadable: unreadableFields(md)}
	c.fields(x.Rules, fields, "")
	return c.errs
}

// unreadableFields are the fields (as the file spells them) that the reader
// found but could not read.
func unreadableFields(md *Metadata) map[string]bool {
	unreadable := map[string]bool{}
	for _, p := range md.Problems {
		if p.Field != "" {
			unreadable[p.Field] = true
		}
	}
	return unreadable
}

// Refusals are the reader's problems that make an item invalid under the
// rules: a field the reader could not read counts as absent (the reference
// never saw a value it could not evaluate), so its problem refuses the item
// only when the field is required and not nullable. The other problems (a
// CONFIG_SCHEMA that is not a literal, an unknown permission) are doubts of
// rye's beyond the reference: lint reports them, signing does not refuse.
func (x *Extractor) Refusals(md *Metadata) []*syntax.Error {
	var out []*syntax.Error
	for _, p := range md.Problems {
		for _, r := range x.Rules {
			if r.Required && !r.Nullable && p.Field != "" && Spelling(md.Form, r.Field) == p.Field {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

type checker struct {
	id         ID
	form       Form
	unreadable map[string]bool
	errs       []*syntax.Error
}

func (c *checker) add(r *fieldRule, name string, v *syntax.Node, pos syntax.Pos, rule, msg, fix, want string) {
	c.errs = append(c.errs, &syntax.Error{Pos: pos, Field: Spelling(c.form, name), Msg: msg, Fix: fix, Rule: rule, Value: v, Want: want})
}

func (c *checker) fields(rules []*fieldRule, m *syntax.Node, prefix string) {
	for _, r := range rules {
		name := prefix + r.Field
		f := m.Field(r.Field)
		if f == nil {
			if r.Required && !r.Nullable && !c.unreadable[Spelling(c.form, name)] {
				c.add(r, name, nil, m.Pos, "required", "missing required field", c.missingFix(r, name), "")
			}
			continue
		}
		c.value(r, name, f.Value)
	}
}

func (c *checker) missingFix(r *fieldRule, name string) string {
	switch {
	case r.MatchFilename:
		return "add " + assignment(c.form, name, c.id.Name())
	case r.MatchPath:
		return "add " + assignment(c.form, name, c.id.Dir())
	case r.Type == "semver":
		return "add " + assignment(c.form, name, "1.0.0")
	}
	return ""
}

func (c *checker) value(r *fieldRule, name string, v *syntax.Node) {
	switch {
	case v.Kind == syntax.NullNode:
		if r.Required && !r.Nullable {
			c.add(r, name, v, v.Pos, "type", "found null, expected "+expectation(r), "", "")
		}
		return
	case r.Required && !r.Nullable && v.Kind == syntax.ListNode && len(v.Items) == 0:
		c.add(r, name, v, v.Pos, "required", "missing required field: found an empty list", "", "")
		return
	case v.Kind == syntax.StringNode && v.Str == "" && !r.MatchPath:
		if r.Required {
			c.add(r, name, v, v.Pos, "required", "missing required field: found an empty string", "", "")
		}
		return
	}
	if !c.typeOK(r, name, v) {
		return
	}
	if r.Format == "snake_case" && v.Kind == syntax.StringNode && !snakeCaseRE().MatchString(v.Str) {
		want := toSnakeCase(v.Str)
		c.add(r, name, v, v.Pos, "format", fmt.Sprintf("found %q, expected snake_case (lower-case letters, digits and '_', starting with a letter)", v.Str), "", want)
	}
	if r.MatchFilename && v.Kind == syntax.StringNode && v.Str != c.id.Name() {
		c.add(r, name, v, v.Pos, "match_filename", fmt.Sprintf("found %q, expected the file name %q", v.Str, c.id.Name()),
			"write "+assignment(c.form, name, c.id.Name())+", or rename the file", c.id.Name())
	}
	if r.MatchPath && v.Kind == syntax.StringNode && v.Str != c.id.Dir() {
		c.add(r, name, v, v.Pos, "match_path", fmt.Sprintf("found %q, expected the folder path %q", v.Str, c.id.Dir()),
			"write "+assignment(c.form, name, c.id.Dir())+", or move the file", c.id.Dir())
	}
	if n, ok := numberOf(v); ok {
		if r.Minimum != nil && n < *r.Minimum {
			c.add(r, name, v, v.Pos, "range", fmt.Sprintf("found %s, expected at least %s", scalarText(v), fmtNum(*r.Minimum)), "", "")
		}
		if r.Maximum != nil && n > *r.Maximum {
			c.add(r, name, v, v.Pos, "range", fmt.Sprintf("found %s, expected at most %s", scalarText(v), fmtNum(*r.Maximum)), "", "")
		}
	}
	if r.Type == "object" && len(r.Nested) > 0 {
		c.fields(r.Nested, v, name+".")
	}
	if r.Type == "array" {
		for i, it := range v.Items {
			itemName := fmt.Sprintf("%s[%d]", name, i)
			if r.ItemType != "" && !kindMatches(r.ItemType, it) {
				c.add(r, itemName, it, it.Pos, "item_type", fmt.Sprintf("found %s, expected %s", describeKind(it), article(r.ItemType)), "", "")
				continue
			}
			for _, req := range r.ItemRequired {
				// As the reference: a key whose value is empty (null, "",
				// 0, false, [], {}) is missing too.
				if it.Kind == syntax.MapNode && isEmptyValue(it.Get(req)) {
					c.add(r, itemName, it, it.Pos, "item_required", fmt.Sprintf("missing %q", req), "", "")
				}
			}
		}
	}
}

// isEmptyValue reports whether a value is absent or what Python counts as
// false: null, "", 0, false, an empty list or mapping.
func isEmptyValue(n *syntax.Node) bool {
	if n == nil {
		return true
	}
	switch n.Kind {
	case syntax.NullNode:
		return true
	case syntax.StringNode:
		return n.Str == ""
	case syntax.BoolNode:
		return !n.Bool
	case syntax.IntNode:
		return n.Int == 0
	case syntax.FloatNode:
		return n.Float == 0
	case syntax.ListNode:
		return len(n.Items) == 0
	case syntax.MapNode:
		return len(n.Fields) == 0
	}
	return false
}

// typeOK checks the rule's type and reports a mismatch.
func (c *checker) typeOK(r *fieldRule, name string, v *syntax.Node) bool {
	switch r.Type {
	case "":
		return true
	case "semver":
		if v.Kind == syntax.StringNode && isSemver(v.Str) {
			return true
		}
		fix, want := "", ""
		if v.Kind == syntax.IntNode || v.Kind == syntax.FloatNode {
			want = semverOf(v)
			fix = "quote it: " + assignment(c.form, name, want)
		}
		c.add(r, name, v, v.Pos, "type", "found "+describeKind(v)+", expected a semantic version string like \"1.0.0\"", fix, want)
		return false
	case "enum":
		s := scalarText(v)
		for _, want := range r.Values {
			if s == want {
				return true
			}
		}
		c.add(r, name, v, v.Pos, "enum", fmt.Sprintf("found %s, expected one of: %s", describeKind(v), strings.Join(r.Values, ", ")), "", "")
		return false
	}
	if kindMatches(r.Type, v) {
		return true
	}
	c.add(r, name, v, v.Pos, "type", "found "+describeKind(v)+", expected "+expectation(r), "", "")
	return false
}

func kindMatches(typ string, v *syntax.Node) bool {
	switch typ {
	case "string", "semver":
		return v.Kind == syntax.StringNode
	case "integer":
		return v.Kind == syntax.IntNode
	case "number":
		return v.Kind == syntax.IntNode || v.Kind == syntax.FloatNode
	case "boolean":
		return v.Kind == syntax.BoolNode
	case "object":
		return v.Kind == syntax.MapNode
	case "array":
		return v.Kind == syntax.ListNode
	}
	return true
}

func expectation(r *fieldRule) string {
	switch r.Type {
	case "semver":
		return "a semantic version string like \"1.0.0\""
	case "enum":
		return "one of: " + strings.Join(r.Values, ", ")
	case "":
		return "a value"
	}
	return article(r.Type)
}

func article(typ string) string {
	switch typ {
	case "integer", "object", "array":
		return "an " + typ
	case "boolean", "number", "string":
		return "a " + typ
	}
	return typ
}

// scalarText is a scalar's text as a user would write it.
func scalarText(v *syntax.Node) string {
	switch v.Kind {
	case syntax.StringNode:
		return v.Str
	case syntax.BoolNode:
		return strconv.FormatBool(v.Bool)
	case syntax.IntNode:
		return strconv.FormatInt(v.Int, 10)
	case syntax.FloatNode:
		if v.Raw != "" {
			return v.Raw
		}
		return strconv.FormatFloat(v.Float, 'g', -1, 64)
	case syntax.NullNode:
		return "null"
	}
	return describeKind(v)
}

// semverOf turns a number written as a version (1, 1.0, 1.2) into the
// version it was meant to be ("1.0.0", "1.0.0", "1.2.0").
func semverOf(v *syntax.Node) string {
	raw := v.Raw
	if raw == "" {
		raw = scalarText(v)
	}
	parts := strings.Split(raw, ".")
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	return strings.Join(parts, ".")
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// toSnakeCase suggests a snake_case spelling of a name ("Greet-User" →
// "greet_user").
func toSnakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			if i > 0 && b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			b.WriteRune(r + ('a' - 'A'))
		case (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '_':
			b.WriteRune(r)
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		}
	}
	return strings.Trim(b.String(), "_")
}
