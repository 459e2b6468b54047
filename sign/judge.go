package sign

import (
	"crypto/ed25519"
	"path/filepath"

	"github.com/ryekit/rye/item"
)

// Signature is a valid signature an item already carries by a key the
// trust store holds (Request.Signed): whose it is decides what rye sign
// does with the item. Another signer's is kept unless the caller asks to
// replace it (Request.ReplaceOthers); the MCP server never does.
type Signature struct {
	Format      Format
	Fingerprint string
	Owner       string
	Public      ed25519.PublicKey
}

// Who names the signer: "bob <bob@example.com> (0123456789abcdef)", or the
// key alone.
func (s *Signature) Who() string {
	if s.Owner == "" {
		return "key " + s.Fingerprint
	}
	return s.Owner + " (" + s.Fingerprint + ")"
}

// state is what an item needs once it is judged.
type state int

const (
	needsSigning state = iota
	settled            // its Result is final: unchanged, kept or failed
	// undecided: validly signed by a trusted key that may be the signer's
	// own, whose public half could not be had without a passphrase; the
	// key, once loaded, decides.
	undecided
)

// judge reads target t and decides what signing it means, without the
// private key: pub is the signer's public half (nil when it cannot be had
// without a passphrase). An item already validly signed by pub in format
// is unchanged (unless Force); one validly signed by another trusted key
// is kept (unless ReplaceOthers); everything else needs signing, and the
// Batch then checks and signs it.
func (req *Request) judge(t Target, pub ed25519.PublicKey, format Format) (Result, *Signature, state) {
	r := Result{Target: t, Outcome: OutcomeFailed}
	if err := t.resolve(); err != nil {
		r.Err = err
		return r, nil, settled
	}
	src, err := readItem(t)
	if err != nil {
		r.Err = err
		return r, nil, settled
	}
	if pub != nil && !req.Force && ownLine(publicOnly(pub), format, t.Kind, t.ID, src, Find(src, filepath.Ext(t.Rel))) {
		r.Outcome = OutcomeUnchanged
		return r, nil, settled
	}
	if req.Signed == nil {
		return r, nil, needsSigning
	}
	s := req.Signed(t, src)
	if s == nil {
		return r, nil, needsSigning
	}
	if pub == nil {
		return r, s, undecided
	}
	return req.decide(r, s, pub, format)
}

// decide settles an item validly signed by s once the signer's public key
// pub is known.
func (req *Request) decide(r Result, s *Signature, pub ed25519.PublicKey, format Format) (Result, *Signature, state) {
	switch {
	case s.Public.Equal(pub) && s.Format == format && !req.Force:
		r.Outcome = OutcomeUnchanged
		return r, s, settled
	case s.Public.Equal(pub):
		return r, s, needsSigning // the signer's own, in another format or --force
	case req.ReplaceOthers:
		r.Target.replace = true
		return r, s, needsSigning
	}
	r.Outcome, r.Signer = OutcomeKept, s
	return r, s, settled
}

// ownLine reports whether src carries a valid signature in format f by
// key: rye's formats name the key by its 16-hex fingerprint, RyeOS's by
// the 64-hex one.
func ownLine(key *Key, f Format, kind item.Kind, id item.ID, src []byte, found Found) bool {
	if !f.rustFamily() {
		return signedBy(key, f, kind, id, src, found)
	}
	if found.Status != Signed || found.Line.Format != f || found.Line.Fingerprint != key.Fingerprint64() {
		return false
	}
	hash, err := ContentHash(found, kind, src)
	return err == nil && hash == found.Line.Hash && VerifySignature(key.Public, found.Line, kind, id)
}

// publicOnly is a Key that can be compared, never sign.
func publicOnly(pub ed25519.PublicKey) *Key {
	return &Key{Public: pub, Fingerprint: Fingerprint(pub)}
}

// tally is a signing run's results counted by outcome, with the kept
// items grouped by signer (Who) in the order first met: what a report of
// the run shows.
type tally struct {
	Counts  map[outcome]int
	Signers []string
	Kept    map[string][]Result
}

// Count tallies results.
func Count(results []Result) *tally {
	t := &tally{Counts: map[outcome]int{}, Kept: map[string][]Result{}}
	for _, r := range results {
		t.Counts[r.Outcome]++
		if r.Outcome == OutcomeKept {
			who := r.Signer.Who()
			if t.Kept[who] == nil {
				t.Signers = append(t.Signers, who)
			}
			t.Kept[who] = append(t.Kept[who], r)
		}
	}
	return t
}
