package search

import (
	"crypto/sha256"
	"errors"
	"path"
	"slices"

	"github.com/ryekit/rye/internal/cachedir"
	"github.com/ryekit/rye/internal/par"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// Request is one search: rye search and the MCP server's search tool build
// one, and Run is the pipeline both run.
type Request struct {
	Spaces *space.Spaces
	// Scope is a kind with an optional namespace, as parseScope reads it.
	Scope string
	Query string
	// Tier is the space searched: "project", "user", "system" or "all"
	// ("" is all).
	Tier string
	// Limit is the most results returned (<= 0: all); Results.Total counts
	// them all.
	Limit int
	// CacheDir holds the index cache ("" disables it), authenticated with
	// Secret (internal/cachedir.Secret; nil disables the cache).
	CacheDir string
	Secret   []byte
	// Extractors supply the field weights per kind (Spaces.Extractors).
	Extractors map[item.Kind]*item.Extractor
	// Trust, when set, gives every result returned its verdict: the file
	// as it is now, checked under Policy. A result that does not verify
	// keeps its kind, id, space and path but no words of its own (name,
	// title, description, category), which are text an agent would read
	// from bytes that nobody vouches for, and is matched on its id and
	// path only (see Run).
	Trust  *verify.TrustStore
	Policy verify.Policy
}

// Over is the request over the items of ss that rye search and the MCP
// search tool both start from: the field weights of the extractor files
// ss resolves, and, when cache is set, the index cache in rye's folder of
// the user's cache directory with its secret. Without that folder or the
// secret the request has no cache: a cache only saves time, so a search
// without one runs all the same. The caller adds the scope, query, tier,
// limit and trust.
func Over(ss *space.Spaces, cache bool) (Request, error) {
	extractors, err := ss.Extractors()
	if err != nil {
		return Request{}, err
	}
	req := Request{Spaces: ss, Extractors: extractors}
	if cache {
		if dir, secret, err := cachedir.Keyed(); err == nil {
			req.CacheDir, req.Secret = dir, secret
		}
	}
	return req, nil
}

// results are the ranked results of a Request.
type results struct {
	Scope   scope
	Total   int // results in scope before the limit
	Results []Result
}

// Field names of a RequestError.
const (
	fieldScope = "scope"
	fieldTier  = "space"
)

// RequestError is a request whose scope or tier does not parse.
type RequestError struct {
	Field string
	Err   error
}

func (e *RequestError) Error() string { return e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

// Run opens the index of the request's spaces (Open) and ranks what is in
// scope. Errors: *RequestError, or the index cannot be built.
//
// With a trust store, every result is verified as its file is now, and
// nothing of an item that does not verify reaches the caller but its
// kind, id, space, path and verdict: it is matched on its id and path
// only (ranking it on its body would tell what the body says), with a
// score of 0, and has no name, title, description or category. A result
// that verifies shows the words read from the bytes that verified, and
// only those a signature covers (verify.CoveredFields), never the index's: the
// index is a cache, and a file can change between its indexing and now.
func Run(req Request) (*results, error) {
	sc, err := parseScope(req.Scope)
	if err != nil {
		return nil, &RequestError{Field: fieldScope, Err: err}
	}
	spaces, err := req.Spaces.Named(req.Tier)
	if err != nil {
		return nil, &RequestError{Field: fieldTier, Err: err}
	}
	ix, err := open(spaces, options{CacheDir: req.CacheDir, Secret: req.Secret, Extractors: req.Extractors})
	if err != nil {
		return nil, err
	}
	if req.Trust == nil {
		hits, total := ix.hits(sc, req.Query, req.Limit)
		out := &results{Scope: sc, Total: total, Results: make([]Result, len(hits))}
		for i, h := range hits {
			out.Results[i] = h.doc.result(h.score)
		}
		return out, nil
	}
	bySpace := map[string]*space.Space{}
	for _, sp := range spaces {
		bySpace[sp.Label] = sp
	}
	check := func(d *Doc) checked { return verifyDoc(bySpace[d.Space], d, req.Trust, req.Policy) }
	var hits []hit
	var verdicts map[*Doc]checked
	if qs := ix.parseQuery(req.Query); len(qs) == 0 {
		// Everything in scope, by id: no text is matched, so a result's
		// verdict decides only what it shows, and only those returned are
		// verified.
		hits, _ = ix.hits(sc, req.Query, 0)
	} else {
		// Every candidate is verified before it is ranked: one whose
		// words match, and one whose id or path does.
		ranked, _ := ix.hits(sc, req.Query, 0)
		score := map[*Doc]float64{}
		var cands []*Doc
		for _, h := range ranked {
			score[h.doc] = h.score
			cands = append(cands, h.doc)
		}
		for _, d := range ix.Docs {
			if _, ok := score[d]; !ok && sc.Contains(d.Kind, d.ID) && matchesIDOrPath(d, qs) {
				cands = append(cands, d)
			}
		}
		verdicts = make(map[*Doc]checked, len(cands))
		results := make([]checked, len(cands))
		par.For(len(cands), par.CPU(), func(i int) { results[i] = check(cands[i]) })
		for i, d := range cands {
			c := results[i]
			verdicts[d] = c
			s, ranked := score[d]
			switch {
			case c.result.Verdict == verify.Verified && c.sum == d.sum && ranked:
				hits = append(hits, hit{doc: d, score: s})
			case matchesIDOrPath(d, qs):
				// Unverified, or verified but not the bytes indexed:
				// matched on its id and path only.
				hits = append(hits, hit{doc: d})
			}
		}
		slices.SortFunc(hits, compareHits)
	}
	out := &results{Scope: sc, Total: len(hits)}
	if req.Limit > 0 && len(hits) > req.Limit {
		hits = hits[:req.Limit]
	}
	out.Results = make([]Result, len(hits))
	par.For(len(hits), par.CPU(), func(i int) {
		d := hits[i].doc
		c, ok := verdicts[d]
		if !ok {
			c = check(d)
		}
		r := Result{Kind: d.Kind, ID: d.ID, Space: d.Space, Path: d.Path, Score: hits[i].score, Verdict: c.result.Verdict, Reason: c.result.Reason}
		if c.result.Verdict == verify.Verified {
			r.Name, r.Title, r.Description, r.Category = c.fields.Name, c.fields.Title, c.fields.Description, c.fields.Category
		}
		out.Results[i] = r
	})
	return out, nil
}

// checked is a document's file as it is now: its verdict, the SHA-256 of
// its bytes, and (when it verified) the words of a result, read from
// those bytes.
type checked struct {
	result verify.Result
	sum    [32]byte
	fields fields
}

// verifyDoc reads and verifies the file of an indexed document as it is
// now. The words of a verified item are read from the same bytes, and a
// field whose text a legacy signature does not cover (v1 leaves a
// knowledge entry's front matter out) is left empty; the name and the
// category then fall back to the id's, which the signature's location
// check vouches for.
func verifyDoc(sp *space.Space, d *Doc, ts *verify.TrustStore, p verify.Policy) checked {
	in := verify.Input{Kind: d.Kind, ID: d.ID, Space: d.Space, Path: d.Path}
	if sp == nil {
		in.ReadErr = errUnknownSpace
	} else {
		in.Embedded = sp.Embedded()
		in.Data, in.ReadErr = sp.ReadFile(d.rel)
	}
	c := checked{result: verify.Check(in, ts, p), sum: sha256.Sum256(in.Data)}
	if c.result.Verdict != verify.Verified {
		return c
	}
	it := &item.Item{Kind: d.Kind, ID: d.ID, Path: d.Path, Bytes: in.Data}
	md, err := it.Metadata()
	if err != nil {
		md = nil
	}
	if md != nil && !in.Embedded {
		md = verify.CoveredFields(d.Kind, path.Ext(d.rel), in.Data, md)
	}
	c.fields = FieldsOf(it, md)
	return c
}

// matchesIDOrPath reports whether a query word matches a word of the
// document's id or path, as it matches indexed words (matchWeight).
func matchesIDOrPath(d *Doc, qs []queryTerm) bool {
	words := tokenize(tokenize(nil, string(d.ID)), d.Path)
	for _, q := range qs {
		for _, w := range words {
			if matchWeight(q, w, stem(w)) > 0 {
				return true
			}
		}
	}
	return false
}

// errUnknownSpace cannot happen: every document comes from one of the
// spaces searched. It fails closed all the same.
var errUnknownSpace = errors.New("the space of this result is not among those searched")
