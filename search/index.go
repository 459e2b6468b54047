// Package search ranks items for `rye search` and the MCP server's search
// tool: BM25F over an item's name, title, description, category and body,
// each field weighted as the extractor rule files say (search_fields). The
// tokenised index is cached on disk and refreshed item by item, so that a
// search over ten thousand items reads only what changed since the last
// one. Run, the pipeline both callers share, can give each result its
// verdict (package verify).
package search

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ryekit/rye/internal/filestat"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/verify"
)

// The indexed fields, in the order of the weights and of the cache format.
const (
	fieldName = iota
	fieldTitle
	fieldDescription
	fieldCategory
	fieldContent
	numFields
)

var fieldNames = [numFields]string{"name", "title", "description", "category", "content"}

// weights are per-field weights, indexed like fieldNames.
type weights [numFields]float64

// defaultWeights are the shipped extractors' search_fields.
var defaultWeights = weights{3, 3, 2, 1.5, 1}

// weightsFrom reads weights from an extractor's search_fields; fields it
// does not name keep their default.
func weightsFrom(x *item.Extractor) weights {
	w := defaultWeights
	if x == nil {
		return w
	}
	for _, sf := range x.SearchFields {
		for i, name := range fieldNames {
			if sf.Name == name {
				w[i] = sf.Weight
			}
		}
	}
	return w
}

// posting is one term of a document field with its frequency.
type posting struct {
	term uint32
	tf   uint32
}

// Doc is one item as the index sees it.
type Doc struct {
	Kind        item.Kind
	ID          item.ID
	Space       string
	Path        string // as shown: derived on every Open, never cached
	Name        string
	Title       string
	Description string
	Category    string

	lengths  [numFields]uint32
	postings [numFields][]posting

	// Cache key: where the file was and what it looked like (its stat
	// data, zero when they changed too close to the read to be trusted),
	// and the SHA-256 of the bytes indexed, which Run compares with the
	// bytes it verifies.
	rel  string
	stat filestat.Stat
	sum  [32]byte
}

// index is a set of documents over one term dictionary.
type index struct {
	terms   []string
	stems   []string // stem of each term, filled by termStems
	termIDs map[string]uint32
	Docs    []*Doc
	Weights map[item.Kind]weights
}

// newIndex returns an empty index.
func newIndex() *index {
	return &index{termIDs: map[string]uint32{}, Weights: map[item.Kind]weights{}}
}

func (ix *index) termID(t string) uint32 {
	if id, ok := ix.termIDs[t]; ok {
		return id
	}
	id := uint32(len(ix.terms))
	ix.terms = append(ix.terms, t)
	ix.termIDs[t] = id
	return id
}

// fields is the text of an item that search indexes.
type fields struct {
	Name, Title, Description, Category, Content string
}

// FieldsOf picks an item's searchable text from its metadata.
func FieldsOf(it *item.Item, md *item.Metadata) fields {
	f := fields{Name: it.ID.Name(), Category: it.ID.Dir()}
	if md == nil {
		return f
	}
	if n := md.Str("name"); n != "" {
		f.Name = n
	}
	f.Title = md.Str("title")
	f.Description = md.Str("description")
	if c := md.Str("category"); c != "" {
		f.Category = c
	}
	f.Content = md.Body
	if f.Content == "" {
		f.Content = md.Str("docstring")
	}
	if tags := md.Get("tags"); tags != nil {
		for _, t := range tags.Items {
			f.Content += " " + t.String()
		}
	}
	return f
}

// Add indexes a document.
func (ix *index) Add(d *Doc, f fields) {
	texts := [numFields]string{f.Name, f.Title, f.Description, f.Category, f.Content}
	d.Name, d.Title, d.Description, d.Category = f.Name, f.Title, f.Description, f.Category
	var words []string
	counts := map[uint32]uint32{}
	for i, text := range texts {
		words = tokenize(words[:0], text)
		clear(counts)
		for _, w := range words {
			counts[ix.termID(w)]++
		}
		ps := make([]posting, 0, len(counts))
		for t, n := range counts {
			ps = append(ps, posting{t, n})
		}
		sort.Slice(ps, func(a, b int) bool { return ps[a].term < ps[b].term })
		d.postings[i] = ps
		d.lengths[i] = uint32(len(words))
	}
	ix.Docs = append(ix.Docs, d)
}

// Result is one ranked item.
type Result struct {
	Kind        item.Kind `json:"kind"`
	ID          item.ID   `json:"id"`
	Space       string    `json:"space"`
	Path        string    `json:"path"`
	Name        string    `json:"name,omitempty"`
	Title       string    `json:"title,omitempty"`
	Description string    `json:"description,omitempty"`
	Category    string    `json:"category,omitempty"`
	Score       float64   `json:"score"`
	// Verdict and Reason are set by Run when it verifies (see
	// Request.Trust).
	Verdict verify.Verdict `json:"verdict,omitempty"`
	Reason  string         `json:"reason,omitempty"`
}

// BM25 parameters: the usual values.
const (
	k1 = 1.2
	b  = 0.75
)

// queryTerm is one word of the query, its stem, and the dictionary terms
// it matches with their weights (matchWeight).
type queryTerm struct {
	word   string
	stem   string
	prefix bool // written with a final *
	terms  map[uint32]float64
}

// Search ranks the documents in scope for query (BM25F); limit <= 0 means
// no limit. An empty query, or "*", lists everything in scope by id.
// Results are ordered by score, then kind, then id, so equal scores come out
// in the same order every time.
func (ix *index) Search(sc scope, query string, limit int) (results []Result, total int) {
	hits, total := ix.hits(sc, query, limit)
	results = make([]Result, len(hits))
	for i, h := range hits {
		results[i] = h.doc.result(h.score)
	}
	return results, total
}

// hits ranks the documents in scope and keeps the first limit of them.
func (ix *index) hits(sc scope, query string, limit int) (hits []hit, total int) {
	var inScope []*Doc
	for _, d := range ix.Docs {
		if sc.Contains(d.Kind, d.ID) {
			inScope = append(inScope, d)
		}
	}
	if qs := ix.parseQuery(query); len(qs) == 0 {
		hits = make([]hit, len(inScope))
		for i, d := range inScope {
			hits[i] = hit{doc: d}
		}
	} else {
		hits = ix.rank(inScope, qs)
	}
	slices.SortFunc(hits, compareHits)
	total = len(hits)
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, total
}

// hit is a document with its score.
type hit struct {
	doc   *Doc
	score float64
}

// compareHits orders by score (descending), then kind, then id: a total
// order, so equal scores always come out the same way.
func compareHits(x, y hit) int {
	switch {
	case x.score != y.score:
		return cmp.Compare(y.score, x.score)
	case x.doc.Kind != y.doc.Kind:
		return cmp.Compare(x.doc.Kind, y.doc.Kind)
	}
	return cmp.Compare(x.doc.ID, y.doc.ID)
}

// maxQueryWords bounds a query (the ranking keeps one bit per word).
const maxQueryWords = 64

func (ix *index) parseQuery(query string) []queryTerm {
	var qs []queryTerm
	for _, raw := range strings.Fields(query) {
		prefix := strings.HasSuffix(raw, "*")
		for _, w := range tokenize(nil, raw) {
			qs = append(qs, queryTerm{word: w, stem: stem(w), prefix: prefix, terms: map[uint32]float64{}})
		}
	}
	if len(qs) > maxQueryWords {
		qs = qs[:maxQueryWords]
	}
	if len(qs) == 0 {
		return nil
	}
	stems := ix.termStems()
	for id, t := range ix.terms {
		for i := range qs {
			if w := matchWeight(qs[i], t, stems[id]); w > 0 {
				qs[i].terms[uint32(id)] = w
			}
		}
	}
	return qs
}

// termStems are the stems of the dictionary's terms, by term id, computed
// as terms are first searched.
func (ix *index) termStems() []string {
	for len(ix.stems) < len(ix.terms) {
		ix.stems = append(ix.stems, stem(ix.terms[len(ix.stems)]))
	}
	return ix.stems
}

// rank scores docs with BM25F: per query term, the field frequencies are
// weighted and length-normalised per field, then saturated once.
func (ix *index) rank(docs []*Doc, qs []queryTerm) []hit {
	n := float64(len(docs))
	var avg [numFields]float64
	for _, d := range docs {
		for f := range avg {
			avg[f] += float64(d.lengths[f])
		}
	}
	for f := range avg {
		avg[f] = math.Max(avg[f]/math.Max(n, 1), 1)
	}
	// The dictionary terms the query matches, sorted, each with the query
	// words it answers. Postings are sorted by term, so a document is
	// scored by binary search for these few terms instead of a pass over
	// all its postings.
	var matched []termMatch
	for q := range qs {
		for t, w := range qs[q].terms {
			matched = append(matched, termMatch{term: t, q: q, weight: w})
		}
	}
	sort.Slice(matched, func(i, j int) bool {
		return matched[i].term < matched[j].term || matched[i].term == matched[j].term && matched[i].q < matched[j].q
	})
	// tfs[i*len(qs)+q] is the weighted, normalised frequency of query word
	// q in doc i.
	nq := len(qs)
	tfs := make([]float64, len(docs)*nq)
	df := make([]int, nq)
	for i, d := range docs {
		w := ix.weights(d.Kind)
		row := tfs[i*nq : (i+1)*nq]
		for f := 0; f < numFields; f++ {
			ps := d.postings[f]
			if len(ps) == 0 || w[f] == 0 {
				continue
			}
			norm := 1 - b + b*float64(d.lengths[f])/avg[f]
			var tf uint32
			for k, tm := range matched {
				if k == 0 || matched[k-1].term != tm.term {
					tf = findTF(ps, tm.term) // once per term, whatever words it answers
				}
				if tf > 0 {
					row[tm.q] += tm.weight * w[f] * float64(tf) / norm
				}
			}
		}
		for q, v := range row {
			if v > 0 {
				df[q]++
			}
		}
	}
	idf := make([]float64, nq)
	for q := range idf {
		idf[q] = math.Log(1 + (n-float64(df[q])+0.5)/(float64(df[q])+0.5))
	}
	var out []hit
	for i, d := range docs {
		score := 0.0
		for q, tf := range tfs[i*nq : (i+1)*nq] {
			if tf > 0 {
				score += idf[q] * tf / (k1 + tf)
			}
		}
		if score > 0 {
			out = append(out, hit{doc: d, score: math.Round(score*1e4) / 1e4})
		}
	}
	return out
}

func (ix *index) weights(k item.Kind) weights {
	if w, ok := ix.Weights[k]; ok {
		return w
	}
	return defaultWeights
}

func (d *Doc) result(score float64) Result {
	return Result{Kind: d.Kind, ID: d.ID, Space: d.Space, Path: d.Path, Name: d.Name, Title: d.Title,
		Description: d.Description, Category: d.Category, Score: score}
}

// termMatch is a dictionary term, a query word it answers and how much it
// counts for it.
type termMatch struct {
	term   uint32
	q      int
	weight float64
}

// findTF returns the frequency of term in postings sorted by term, or 0.
func findTF(ps []posting, term uint32) uint32 {
	lo, hi := 0, len(ps)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if ps[mid].term < term {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(ps) && ps[lo].term == term {
		return ps[lo].tf
	}
	return 0
}
