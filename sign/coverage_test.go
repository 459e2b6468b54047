package sign

import (
	"bytes"
	"crypto/ed25519"
	"path"
	"testing"
	"time"

	"github.com/ryekit/rye/item"
)

// CoverageOf agrees with the hashes: a letter changed in an uncovered span
// leaves the content hash as it was, and a letter changed anywhere else
// changes it, for every format and kind.
func TestCoverageMatchesTheHash(t *testing.T) {
	key := NewKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, 32)))
	files := map[string]string{
		"x/d.md":   "# Title, not covered by v1\n\nSome words.\n\n```xml\n<directive name=\"d\" version=\"1.0.0\">\n  <metadata><description>covered</description><category>x</category></metadata>\n</directive>\n```\n\nThe body: instructions.\n",
		"x/k.md":   "---\nid: k\ntitle: front matter\ncategory: x\n---\n\nThe body of the entry.\n",
		"x/f.md":   "```yaml\nid: f\ntitle: fenced\ncategory: x\n```\n\nThe body.\n",
		"x/t.py":   "#!/usr/bin/env python3\n__version__ = \"1.0.0\"\nprint('hello')\n",
		"x/s.sh":   "#!/usr/bin/env bash\r\necho hello\r\n",
		"x/y.yaml": "version: \"1.0.0\"\ndescription: words\n",
	}
	kinds := map[string]item.Kind{"x/d.md": item.Directive, "x/k.md": item.Knowledge, "x/f.md": item.Knowledge}
	for _, f := range []Format{V1, V2} {
		for name, content := range files {
			k, ok := kinds[name]
			if !ok {
				k = item.Tool
			}
			ext := path.Ext(name)
			id := item.ID(name[:len(name)-len(ext)])
			signed, err := Sign(key, f, k, id, ext, []byte(content), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatalf("%v %s: %v", f, name, err)
			}
			found := Find(signed, ext)
			want, _ := ContentHash(found, k, signed)
			cov := CoverageOf(found, k, signed)
			if f == V2 && len(cov.Uncovered) != 0 {
				t.Errorf("v2 %s: uncovered %v", name, cov.Uncovered)
			}
			for i, c := range signed {
				if i >= found.Start && i < found.End || c < 'a' || c > 'z' {
					continue
				}
				edited := bytes.Clone(signed)
				edited[i] = 'a' + (c-'a'+1)%26
				got, _ := ContentHash(Find(edited, ext), k, edited)
				uncovered := cov.FirstUncovered(signed, i, i+1) == i
				if (got == want) != uncovered {
					t.Errorf("%v %s: byte %d (%q): hash unchanged %v, uncovered %v", f, name, i, signed[max(0, i-10):min(len(signed), i+10)], got == want, uncovered)
				}
			}
		}
	}
}
