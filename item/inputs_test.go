package item

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func placeholdersText[S ~string | ~[]byte](s S) string {
	var out []string
	for p := range InputPlaceholders(s) {
		m := ""
		if p.Modifier != 0 {
			m = string(p.Modifier)
		}
		out = append(out, fmt.Sprintf("%d-%d %s%s%s", p.Start, p.End, p.Name, m, p.Default))
	}
	return strings.Join(out, "; ")
}

func TestInputPlaceholders(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"no placeholder", ""},
		{"{input:name}", "0-12 name"},
		{"a {input:_x9}b", "2-13 _x9"},
		{"{input:name?}", "0-13 name?"},
		{"{input:name:}", "0-13 name:"},
		{"{input:name:the default}", "0-24 name:the default"},
		{"{input:name|a:b|c}", "0-18 name|a:b|c"},
		{"{input:n:line\nline}", "0-19 n:line\nline"},
		{"{input:n:\xff\xfe}", "0-12 n:\xff\xfe"},
		{"{input:a}{input:b?}", "0-9 a; 9-19 b?"},
		// Not placeholders.
		{"{input:}", ""},
		{"{input:9a}", ""},
		{"{input:-a}", ""},
		{"{input:a b}", ""},
		{"{input:a?x}", ""},
		{"{input:a?", ""},
		{"{input:a??}", ""},
		{"{input:a", ""},
		{"{input:a:no end", ""},
		{"{Input:a}", ""},
		{"{ input:a}", ""},
		{"{input:é}", ""},
		// A default ends at the first }, and may hold what looks like a
		// placeholder; after text that is not one, the search goes on
		// from the byte after its {.
		{"{input:a:{input:b}}", "0-18 a:{input:b"},
		{"{input:{input:x}", "7-16 x"},
		{"{input:a?{input:b}", "9-18 b"},
		{"{{input:a}}", "1-10 a"},
		{"{input:a b}{input:c}", "11-20 c"},
		{"{input:a:x", ""},
	} {
		if got := placeholdersText(c.in); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
		if got := placeholdersText([]byte(c.in)); got != c.want {
			t.Errorf("%q as bytes: got %q, want %q", c.in, got, c.want)
		}
	}
}

// Stopping early stops the scan.
func TestInputPlaceholdersStop(t *testing.T) {
	n := 0
	for range InputPlaceholders("{input:a}{input:b}{input:c}") {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("%d placeholders", n)
	}
}

// oldInputPattern is the regular expression lint and the executor each
// compiled before InputPlaceholders: the scanner must find exactly what it
// found.
const oldInputPattern = `\{input:([A-Za-z_][A-Za-z0-9_]*)(\?|[:|][^}]*)?\}`

// sameAsPattern reports how the scanner and the old pattern disagree on s
// ("" when they agree).
func sameAsPattern(re *regexp.Regexp, s string) string {
	var want []inputPlaceholder
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		p := inputPlaceholder{Start: m[0], End: m[1], Name: s[m[2]:m[3]]}
		if m[4] >= 0 && m[5] > m[4] {
			p.Modifier, p.Default = s[m[4]], s[m[4]+1:m[5]]
		}
		want = append(want, p)
	}
	got := slices.Collect(InputPlaceholders(s))
	if !slices.Equal(got, want) {
		return fmt.Sprintf("%q: scanner %+v, pattern %+v", s, got, want)
	}
	if b := slices.Collect(InputPlaceholders([]byte(s))); !slices.Equal(b, got) {
		return fmt.Sprintf("%q: as bytes %+v, as a string %+v", s, b, got)
	}
	return ""
}

// Every placeholder-like text built from the pieces that matter, up to
// four pieces long, is read as the old pattern read it.
func TestInputPlaceholdersAgreeWithPattern(t *testing.T) {
	re := regexp.MustCompile(oldInputPattern)
	pieces := []string{"{input:", "a", "9", "?", ":", "|", "}", "{", " ", "\n", "\xff", "é"}
	var build func(prefix string, depth int)
	n := 0
	build = func(prefix string, depth int) {
		if msg := sameAsPattern(re, prefix); msg != "" {
			t.Fatal(msg)
		}
		n++
		if depth == 0 {
			return
		}
		for _, p := range pieces {
			build(prefix+p, depth-1)
		}
	}
	build("", 4)
	if n < 20000 {
		t.Fatalf("only %d texts tried", n)
	}
}

func FuzzInputPlaceholders(f *testing.F) {
	re := regexp.MustCompile(oldInputPattern)
	for _, s := range []string{"{input:a}", "x {input:b?} {input:c:d} {input:e|f}", "{input:a:{input:b}}", "{input:{input:x}", "{input:a?x}{input:_1}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if msg := sameAsPattern(re, s); msg != "" {
			t.Fatal(msg)
		}
	})
}

// A text made to make a scanner go back over itself is read in linear
// time: a benchmark, not a timed assertion (compare -benchmem ns/op of
// the sizes).
func BenchmarkInputPlaceholdersHostile(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 14} {
		s := strings.Repeat("{input:a:", n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				for range InputPlaceholders(s) {
				}
			}
		})
	}
}

// A directive of about 2 KiB with a few placeholders, the size lint and
// the executor read.
func BenchmarkInputPlaceholders(b *testing.B) {
	s := strings.Repeat("Deploy {input:service} to {input:env:staging}; notes: {input:notes?}.\nSome text with {braces} and no placeholder, of a reasonable length.\n", 15)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		for range InputPlaceholders(s) {
		}
	}
}
