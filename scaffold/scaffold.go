// Package scaffold writes a new item from a template (rye new): a tool in
// Python, shell or JavaScript for Node, a directive or a knowledge entry.
// Each template is a small working item that shows the contract of its
// kind (docs/tools.md for tools: how the parameters arrive, what the tool
// prints): once signed, it lints clean and runs. The templates are data
// embedded in the binary, parsed on first use.
package scaffold

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/template"
	"unicode"

	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

//go:embed templates/*.tmpl
var files embed.FS

// langs are the languages of tool templates, the first the default, each
// with its file extension.
var langs = []struct{ Name, Ext string }{{"python", ".py"}, {"shell", ".sh"}, {"node", ".js"}}

// LangNames are the names of Langs.
func LangNames() []string {
	out := make([]string, len(langs))
	for i, l := range langs {
		out[i] = l.Name
	}
	return out
}

// Options say what to write.
type Options struct {
	Lang        string // tools: a name of Langs ("": python)
	Description string // one line; "" for the template's
	Author      string // directives and knowledge ("": the template leaves it out where it may)
	Force       bool   // replace an existing file of the same id
	// NoSandbox leaves a tool's sandbox block out: on a system that cannot
	// confine (not Linux, no Landlock), rye execute refuses a tool that
	// declares one.
	NoSandbox bool
}

// parsed are the templates, parsed on first use.
var parsed = sync.OnceValues(func() (*template.Template, error) {
	return template.New("").Funcs(template.FuncMap{
		"json": func(s string) (string, error) {
			b, err := json.Marshal(s)
			return string(b), err
		},
		"xmltext": func(s string) string {
			return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
		},
	}).ParseFS(files, "templates/*.tmpl")
})

// data is what a template fills in.
type data struct {
	ID, Name, Category, Title, Description, Author string
	Sandbox                                        bool // a tool declares its sandbox block
}

// render is the file of a new item of kind k and id: its extension and
// its bytes.
func render(k item.Kind, id item.ID, o Options) (string, []byte, error) {
	name := id.Name()
	if strings.ContainsAny(o.Description, "\r\n") {
		return "", nil, errors.New("the description is one line")
	}
	d := data{ID: string(id), Name: name, Category: id.Dir(), Title: title(name), Description: o.Description, Author: o.Author, Sandbox: !o.NoSandbox}
	var tmpl, ext string
	switch k {
	case item.Tool:
		lang := o.Lang
		if lang == "" {
			lang = langs[0].Name
		}
		i := slices.IndexFunc(langs, func(l struct{ Name, Ext string }) bool { return l.Name == lang })
		if i < 0 {
			return "", nil, fmt.Errorf("no tool template for %q: the languages are %s", lang, strings.Join(LangNames(), ", "))
		}
		ext = langs[i].Ext
		tmpl = "tool" + ext + ".tmpl"
		if d.Description == "" {
			d.Description = "Greet someone by name"
		}
	case item.Directive:
		if !snakeCase(name) {
			return "", nil, fmt.Errorf("a directive's name is snake_case (lower-case letters, digits and _, starting with a letter): %s is not", name)
		}
		ext, tmpl = ".md", "directive.md.tmpl"
		if d.Description == "" {
			d.Description = "Greet a person by name"
		}
		if d.Author == "" {
			return "", nil, errors.New("a directive names its author: none is known")
		}
	case item.Knowledge:
		ext, tmpl = ".md", "knowledge.md.tmpl"
		if d.Description == "" {
			d.Description = "What to know about " + d.Title
		}
	default:
		return "", nil, fmt.Errorf("no template for kind %q", k)
	}
	t, err := parsed()
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, tmpl, d); err != nil {
		return "", nil, err
	}
	return ext, []byte(b.String()), nil
}

// Write renders the item and writes it into space sp, atomically and never
// through a symbolic link; it returns the file's path as shown. An item
// of that kind and id already in sp (in any of its file forms) is
// refused unless o.Force, and even then only the same form is replaced.
func Write(sp *space.Space, k item.Kind, id item.ID, o Options) (string, error) {
	if sp == nil || sp.Embedded() {
		return "", errors.New("no project to write into (rye init makes one)")
	}
	ext, src, err := render(k, id, o)
	if err != nil {
		return "", err
	}
	rel := space.Rel(k, id, ext)
	switch have, err := sp.Find(k, id); {
	case err == nil && (have != rel || !o.Force):
		what := "it exists already: " + sp.DisplayPath(have)
		if have == rel {
			what += " (--force replaces it)"
		}
		return "", fmt.Errorf("%s %s: %s", k, id, what)
	case err != nil && !errors.Is(err, space.ErrNotFound):
		return "", err
	}
	if _, err := space.MkdirNoSymlinks(sp.AI(), path.Dir(rel)); err != nil {
		return "", err
	}
	target := filepath.Join(sp.AI(), filepath.FromSlash(rel))
	if info, err := os.Lstat(target); err == nil && !info.Mode().IsRegular() {
		return "", &space.PathError{Path: sp.DisplayPath(rel), Err: space.ErrNotFile}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	perm := os.FileMode(0o644)
	if k == item.Tool {
		perm = 0o755 // a script, as its #! line says
	}
	if err := atomicfile.WriteFile(target, src, perm); err != nil {
		return "", err
	}
	return sp.DisplayPath(rel), nil
}

// title is a name as a title: "deploy_app" → "Deploy app".
func title(name string) string {
	t := strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(name)
	r := []rune(t)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}

// snakeCase is the directive name rule (format: snake_case).
func snakeCase(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || i > 0 && (r == '_' || r >= '0' && r <= '9')) {
			return false
		}
	}
	return s != ""
}
