package search

import (
	"errors"

	"github.com/ryekit/rye/internal/par"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// Request is one search: rye search and the MCP server's search tool build
// one, and Run is the pipeline both run.
type Request struct {
	Spaces *space.Spaces
	// Scope is a kind with an optional namespace, as ParseScope reads it.
	Scope string
	Query string
	// Tier is the space searched: "project", "user", "system" or "all"
	// ("" is all).
	Tier string
	// Limit is the most results returned (<= 0: all); Results.Total counts
	// them all.
	Limit int
	// CacheDir holds the index cache ("" disables it).
	CacheDir string
	// Extractors supply the field weights per kind (Spaces.Extractors).
	Extractors map[item.Kind]*item.Extractor
	// Trust, when set, gives every result returned its verdict: the file
	// as it is now, checked under Policy. A result that does not verify
	// keeps its id and path but not its title and description, which are
	// text an agent would read from bytes that nobody vouches for.
	Trust  *verify.TrustStore
	Policy verify.Policy
}

// Results are the ranked results of a Request.
type Results struct {
	Scope   Scope
	Total   int // results in scope before the limit
	Results []Result
}

// Field names of a RequestError.
const (
	FieldScope = "scope"
	FieldTier  = "space"
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
func Run(req Request) (*Results, error) {
	sc, err := ParseScope(req.Scope)
	if err != nil {
		return nil, &RequestError{Field: FieldScope, Err: err}
	}
	spaces, err := req.Spaces.Named(req.Tier)
	if err != nil {
		return nil, &RequestError{Field: FieldTier, Err: err}
	}
	ix, err := Open(spaces, Options{CacheDir: req.CacheDir, Extractors: req.Extractors})
	if err != nil {
		return nil, err
	}
	hits, total := ix.hits(sc, req.Query, req.Limit)
	out := &Results{Scope: sc, Total: total, Results: make([]Result, len(hits))}
	bySpace := map[string]*space.Space{}
	for _, sp := range spaces {
		bySpace[sp.Label] = sp
	}
	par.For(len(hits), par.CPU(), func(i int) {
		d := hits[i].doc
		r := d.result(hits[i].score)
		if req.Trust != nil {
			r.Verdict, r.Reason = verdictOf(bySpace[d.Space], d, req.Trust, req.Policy)
			if r.Verdict.Failed() {
				r.Title, r.Description = "", ""
			}
		}
		out.Results[i] = r
	})
	return out, nil
}

// verdictOf verifies the file of an indexed document as it is now.
func verdictOf(sp *space.Space, d *Doc, ts *verify.TrustStore, p verify.Policy) (verify.Verdict, string) {
	in := verify.Input{Kind: d.Kind, ID: d.ID, Space: d.Space, Path: d.Path}
	if sp == nil {
		in.ReadErr = errUnknownSpace
	} else {
		in.Embedded = sp.Embedded()
		in.Data, in.ReadErr = sp.ReadFile(d.rel)
	}
	r := verify.Check(in, ts, p)
	return r.Verdict, r.Reason
}

// errUnknownSpace cannot happen: every document comes from one of the
// spaces searched. It fails closed all the same.
var errUnknownSpace = errors.New("the space of this result is not among those searched")
