package doccheck

import (
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
)

// root is the repository, seen from this package's folder.
const root = "../.."

// specDir holds the specification that citations name.
const specDir = "docs/spec"

// files lists the repository's files (slash-separated, relative to the
// root) whose names end in one of exts. It walks the tree as a clone has
// it: hidden folders (.git, a project's .ai/) and test data (testdata/,
// and copies of the specification's vectors such as testdata-ryeos02/,
// whose README must stay byte for byte the specification's) are not
// documentation, and a nested module's files are the repository's too.
func files(t *testing.T, exts ...string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "testdata")) {
				return filepath.SkipDir
			}
			return nil
		}
		if slices.Contains(exts, path.Ext(d.Name())) {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no %v files under %s", exts, root)
	}
	return out
}

func read(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// lineOf is the 1-based line of byte offset i.
func lineOf(s string, i int) int { return strings.Count(s[:i], "\n") + 1 }

// doc is a Markdown file as far as links and headings go.
type doc struct {
	// prose is the text with fenced code blocks and code spans blanked
	// (newlines kept, so offsets give the same lines): links are found
	// here, never in an example.
	prose string
	// anchors are the GitHub anchors of the file's headings.
	anchors map[string]bool
	// headings are the headings' texts, in order.
	headings []string
}

// fence opens a fenced code block: three or more backticks or tildes.
var fence = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^ *(`{3,}|~{3,})") })

// heading is an ATX heading.
var heading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`) })

func parse(text string) doc {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	d := doc{anchors: map[string]bool{}}
	seen := map[string]int{}
	open := "" // the fence that opened the current code block
	for _, l := range lines {
		body := strings.TrimRight(l, "\r\n")
		if open != "" {
			if m := fence().FindStringSubmatch(body); m != nil && m[1][0] == open[0] && len(m[1]) >= len(open) && strings.TrimSpace(body[len(m[0]):]) == "" {
				open = ""
			}
			b.WriteString(blank(l))
			continue
		}
		if m := fence().FindStringSubmatch(body); m != nil && !(m[1][0] == '`' && strings.Contains(body[len(m[0]):], "`")) {
			open = m[1]
			b.WriteString(blank(l))
			continue
		}
		if m := heading().FindStringSubmatch(body); m != nil {
			d.headings = append(d.headings, m[1])
			slug := slugify(m[1])
			if n := seen[slug]; n > 0 {
				d.anchors[slug+"-"+itoa(n)] = true
			} else {
				d.anchors[slug] = true
			}
			seen[slug]++
		}
		b.WriteString(l)
	}
	d.prose = blankCodeSpans(b.String())
	return d
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + itoa(n%10)
}

// blank is s with everything but line ends made spaces.
func blank(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return r
		}
		return ' '
	}, s)
}

// blankCodeSpans blanks the code spans of s: a run of n backticks up to
// the next run of exactly n. A run without a partner is literal.
func blankCodeSpans(s string) string {
	b := []byte(s)
	run := func(i int) int {
		j := i
		for j < len(b) && b[j] == '`' {
			j++
		}
		return j - i
	}
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := run(i)
		end := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			m := run(j)
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 {
			i += n
			continue
		}
		for k := i; k < end; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
		i = end
	}
	return string(b)
}

// slugify is GitHub's anchor for a heading: the rendered text, lower-case,
// with every character but letters, digits, marks, "_", "-" and spaces
// removed and each space made "-".
func slugify(h string) string {
	h = inlineLink().ReplaceAllString(h, "$1")
	h = htmlTag().ReplaceAllString(h, "")
	h = strings.NewReplacer("`", "", "*", "").Replace(h)
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	inlineLink = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`!?\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	})
	refDef  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:[ \t]*<?(\S+?)>?(?:[ \t]|$)`) })
	htmlRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(?:href|src)\s*=\s*"([^"]*)"`) })
	htmlTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*>`) })
	scheme  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`) })
)

// link is a link target and where it is written.
type link struct {
	target string
	line   int
}

func (d doc) links() []link {
	var out []link
	for _, re := range []*regexp.Regexp{inlineLink(), refDef(), htmlRef()} {
		for _, m := range re.FindAllStringSubmatchIndex(d.prose, -1) {
			g := 2 // the target's group
			if re != inlineLink() {
				g = 1
			}
			out = append(out, link{d.prose[m[2*g]:m[2*g+1]], lineOf(d.prose, m[0])})
		}
	}
	return out
}

// docs reads every Markdown file of the repository once.
func docs(t *testing.T) map[string]doc {
	t.Helper()
	out := map[string]doc{}
	for _, f := range files(t, ".md") {
		out[f] = parse(read(t, f))
	}
	return out
}

// Nothing in the repository's documents leads outside it: a user who
// clones the repository has nothing beside it.
func TestNothingPointsOutsideTheRepository(t *testing.T) {
	all := docs(t)
	for _, f := range slices.Sorted(func(yield func(string) bool) {
		for k := range all {
			if !yield(k) {
				return
			}
		}
	}) {
		text := read(t, f)
		for i := 0; ; {
			j := strings.Index(text[i:], "../shared")
			if j < 0 {
				break
			}
			i += j
			t.Errorf("%s:%d: mentions ../shared, which a clone of the repository does not have: point at docs/spec/, ARCHITECTURE.md or the repository's copy instead", f, lineOf(text, i))
			i++
		}
		for _, l := range all[f].links() {
			target := l.target
			switch {
			case strings.HasPrefix(target, "file:"), strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "//"):
				t.Errorf("%s:%d: links to %s, an absolute path on someone's disk: link relative to the file", f, l.line, target)
			case scheme().MatchString(target), strings.HasPrefix(target, "//"), strings.HasPrefix(target, "#"):
			default:
				p := path.Join(path.Dir(f), strings.SplitN(strings.SplitN(target, "#", 2)[0], "?", 2)[0])
				if p == ".." || strings.HasPrefix(p, "../") {
					t.Errorf("%s:%d: links to %s, outside the repository", f, l.line, target)
				}
			}
		}
	}
}

// Every relative link reaches a file or folder of the repository, and a
// link to a heading of a Markdown file reaches a heading that exists.
func TestLinksResolve(t *testing.T) {
	all := docs(t)
	n := 0
	for _, f := range slices.Sorted(func(yield func(string) bool) {
		for k := range all {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, l := range all[f].links() {
			if scheme().MatchString(l.target) || strings.HasPrefix(l.target, "//") || strings.HasPrefix(l.target, "/") {
				continue
			}
			n++
			file, anchor, _ := strings.Cut(l.target, "#")
			file, _, _ = strings.Cut(file, "?")
			if u, err := url.PathUnescape(file); err == nil {
				file = u
			}
			target := f
			if file != "" {
				target = path.Join(path.Dir(f), file)
				if target == ".." || strings.HasPrefix(target, "../") {
					continue // TestNothingPointsOutsideTheRepository reports it
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
					t.Errorf("%s:%d: links to %s, which does not exist (%s)", f, l.line, l.target, target)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			d, ok := all[target]
			if !ok {
				d = parse(read(t, target))
			}
			if !d.anchors[anchor] {
				t.Errorf("%s:%d: links to %s, but %s has no heading with the anchor #%s (GitHub's anchors: the heading in lower case, punctuation removed, spaces made -)", f, l.line, l.target, target, anchor)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d relative links found in the repository's Markdown: the link finder is broken", n)
	}
}

// The anchor rules are GitHub's, as the repository's links rely on them.
func TestSlugify(t *testing.T) {
	for h, want := range map[string]string{
		"rye execute directive|knowledge ID": "rye-execute-directiveknowledge-id",
		"Environment (spec 3.5)":             "environment-spec-35",
		"verify_deps: multi-file tools":      "verify_deps-multi-file-tools",
		"RyeOS 0.2+ items":                   "ryeos-02-items",
		"2.6 Verification verdicts":          "26-verification-verdicts",
		"6.2 The v1 family (`v1`, `v1u`)":    "62-the-v1-family-v1-v1u",
		"The threat model: what a change controls, and what rye takes from where": "the-threat-model-what-a-change-controls-and-what-rye-takes-from-where",
		"Keys: the forms rye reads, where it looks, SSH keys and ssh-agent":       "keys-the-forms-rye-reads-where-it-looks-ssh-keys-and-ssh-agent",
		"a [link](x.md) and **bold**":                                             "a-link-and-bold",
	} {
		if got := slugify(h); got != want {
			t.Errorf("slugify(%q) = %q, want %q", h, got, want)
		}
	}
	d := parse("# A\n\n```md\n# not a heading\n[x](nowhere.md)\n```\n\n## A\n\nsee `[y](nowhere.md)` and [z](z.md)\n")
	if !d.anchors["a"] || !d.anchors["a-1"] || d.anchors["not-a-heading"] {
		t.Errorf("anchors %v: want a and a-1, nothing from the code block", d.anchors)
	}
	if ls := d.links(); len(ls) != 1 || ls[0].target != "z.md" || ls[0].line != 10 {
		t.Errorf("links %v: want only z.md at line 10", ls)
	}
}

// citation finds "spec N", "spec N.M", "spec N.M.K" and the numbers that
// follow it in a list or range ("spec 2.2, 2.3", "spec 3.1-3.3", "spec 6.1
// to 6.3"), across a line break of a Go comment.
var citation = sync.OnceValue(func() *regexp.Regexp {
	const sep = `(?:\s|//)*`
	const num = `\d+(?:\.\d+)*`
	return regexp.MustCompile(`(?i)\bspec(?:ification)?(?:\s|//)+(?:section\s+)?(` + num + `(?:` + sep + `(?:,|\band\b|\bor\b|\bto\b|-|–)` + sep + num + `)*)`)
})

var number = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+(?:\.\d+)*`) })

// sections are the numbers of docs/spec's headings ("2", "2.6", "6.3.1").
func sections(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	lead := regexp.MustCompile(`^(\d+(?:\.\d+)*)\.?\s`)
	for _, f := range files(t, ".md") {
		if path.Dir(f) != specDir {
			continue
		}
		for _, h := range parse(read(t, f)).headings {
			if m := lead.FindStringSubmatch(h); m != nil {
				if prev, dup := out[m[1]]; dup {
					t.Errorf("section %s is numbered twice, in %s and %s", m[1], prev, f)
				}
				out[m[1]] = f
			}
		}
	}
	if len(out) < 50 {
		t.Fatalf("only %d numbered headings in %s: the specification is missing", len(out), specDir)
	}
	return out
}

// Every citation of the specification names a numbered heading of
// docs/spec/, in code comments and in documents alike.
func TestSpecCitationsResolve(t *testing.T) {
	secs := sections(t)
	n := 0
	for _, f := range files(t, ".go", ".md") {
		text := read(t, f)
		for _, m := range citation().FindAllStringSubmatchIndex(text, -1) {
			for _, num := range number().FindAllString(text[m[2]:m[3]], -1) {
				n++
				if _, ok := secs[num]; ok {
					continue
				}
				at := f + ":" + itoa(lineOf(text, m[0])) + ": spec " + num
				t.Errorf("%s: %s has no heading numbered %s: correct the number to the section meant, or add the section to the specification (a heading \"## %s Title\")", at, specDir, num, num)
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d citations found: the citation finder is broken", n)
	}
}

// The citation finder reads every form the repository writes.
func TestCitationForms(t *testing.T) {
	for text, want := range map[string][]string{
		"(spec 2.6)":                             {"2.6"},
		"spec 1.4-1.6):":                         {"1.4", "1.6"},
		"(spec 2.2, 2.3, 6.1 to\n// 6.3) to a":   {"2.2", "2.3", "6.1", "6.3"},
		"(spec\n// 6.6, spec 3.4 step 7)":        {"6.6", "3.4"},
		"Spec 6.3.2 says":                        {"6.3.2"},
		"spec 3.4 and 3.8.":                      {"3.4", "3.8"},
		"the format spec of a field":             nil,
		"inspect 3 things; specs 2":              nil,
		"(spec 6), and 12 more":                  {"6"},
		"the project's specification, section 6": nil,
		"specification section 4.3":              {"4.3"},
	} {
		var got []string
		for _, m := range citation().FindAllStringSubmatch(text, -1) {
			got = append(got, number().FindAllString(m[1], -1)...)
		}
		if !slices.Equal(got, want) {
			t.Errorf("citations in %q: %v, want %v", text, got, want)
		}
	}
}
