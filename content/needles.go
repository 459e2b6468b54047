package content

import "sync"

// Every file rye lints is read by these rules, so the words they start
// from are found in one pass over its bytes: an Aho-Corasick automaton
// over all of them (phrase anchors, role tags, credential prefixes),
// compiled on first use into a table with one transition per byte, ASCII
// letters folded. A file costs one table lookup per byte, however many
// words there are; the rules then look closer only where one was found.

// needleKind says what a found word starts.
type needleKind uint8

const (
	needlePhrase  needleKind = iota // the first word of a phrase family (arg: the family)
	needleRoleTag                   // a chat-format role marker
	needleSecret                    // a credential's prefix (arg: the index in secretRules)
	needleAWS                       // "secret": an AWS secret key's name may be near
	needleStyle                     // "style" or "hidden": an HTML element may be hidden
	needlePySink                    // a name Python code runs code or commands with (exec, subprocess, ...)
	needleControl                   // a control byte
)

// needle is one word the automaton finds, lower case.
type needle struct {
	text string
	kind needleKind
	arg  int
}

// needles lists every word (built on first use, with the automaton).
func buildNeedles() []needle {
	var out []needle
	for fam, words := range [...][]string{
		famOverride:    {"ignore", "disregard", "forget", "override", "bypass", "you", "enter", "entering", "activate", "jailbreak"},
		famConcealment: {"do", "don't", "dont", "never", "without", "hide", "conceal", "keep", "user", "users", "human", "humans", "reviewer", "reviewers"},
		famExfil:       {"send", "upload", "post", "forward", "transmit", "exfiltrate", "email", "leak"},
	} {
		for _, w := range words {
			out = append(out, needle{text: w, kind: needlePhrase, arg: fam})
		}
	}
	for _, t := range roleTags {
		out = append(out, needle{text: t, kind: needleRoleTag})
	}
	for k, r := range secretRules {
		for _, p := range r.prefix {
			out = append(out, needle{text: lowerString(p), kind: needleSecret, arg: k})
		}
	}
	out = append(out, needle{text: "secret", kind: needleAWS}, needle{text: "style", kind: needleStyle}, needle{text: "hidden", kind: needleStyle})
	for _, w := range pySinks {
		out = append(out, needle{text: lowerString(w), kind: needlePySink})
	}
	for c := 0; c < 0x20; c++ {
		if c != '\n' && c != '\t' {
			out = append(out, needle{text: string(rune(c)), kind: needleControl})
		}
	}
	return append(out, needle{text: "\x7f", kind: needleControl})
}

func lowerString(s string) string { return string(lowerASCII([]byte(s))) }

// automaton is the compiled scanner.
type automaton struct {
	needles []needle
	// class maps a byte to its class: bytes that no needle holds share
	// class 0, and 'A'-'Z' share the classes of 'a'-'z'; a small table
	// stays in the cache.
	class [256]uint8
	// next is state × class → state (index state*classes + class); a
	// state where needles end has outBit set in the transitions that lead
	// to it.
	next []uint16
	out  [][]uint16 // state → the needles that end there
}

const outBit = 1 << 15

// classBits bounds the byte classes of the automaton (1<<classBits).
const classBits = 6

var scanner struct {
	once sync.Once
	a    *automaton
}

// theAutomaton builds the scanner once, when a rule first needs it.
func theAutomaton() *automaton {
	scanner.once.Do(func() { scanner.a = buildAutomaton(buildNeedles()) })
	return scanner.a
}

// buildAutomaton compiles the needles (lower case) into a DFA in which
// 'A'-'Z' move as 'a'-'z' do.
func buildAutomaton(ns []needle) *automaton {
	a := &automaton{needles: ns}
	type node struct {
		fail int
		out  []uint16
	}
	// The trie's edges in a table (child[s][c], 0 for none: the root is
	// no one's child), not a map per node: every rye process that checks
	// content builds this once, and the 256 lookups per state in maps
	// took 5 ms of a process that signs one item.
	size := 1
	for _, n := range ns {
		size += len(n.text)
	}
	nodes := make([]node, 1, size)
	child := make([][256]uint16, 1, size)
	for i, n := range ns {
		s := 0
		for k := 0; k < len(n.text); k++ {
			c := n.text[k]
			t := int(child[s][c])
			if t == 0 {
				nodes, child = append(nodes, node{}), append(child, [256]uint16{})
				t = len(nodes) - 1
				child[s][c] = uint16(t)
			}
			s = t
		}
		nodes[s].out = append(nodes[s].out, uint16(i))
	}
	next := make([][256]uint16, len(nodes))
	a.out = make([][]uint16, len(nodes))
	// Breadth first: a state's failure is known before its children's.
	queue := []int{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for c := 0; c < 256; c++ {
			lc := byte(c)
			if 'A' <= lc && lc <= 'Z' {
				lc += 'a' - 'A'
			}
			if t := int(child[s][lc]); t != 0 {
				next[s][c] = uint16(t)
				if byte(c) == lc { // once per child, not for its capital too
					f := 0
					if s != 0 {
						f = int(next[nodes[s].fail][c])
					}
					nodes[t].fail = f
					nodes[t].out = append(nodes[t].out, nodes[f].out...)
					queue = append(queue, t)
				}
			} else if s != 0 {
				next[s][c] = next[nodes[s].fail][c]
			}
		}
		a.out[s] = nodes[s].out
	}
	if len(nodes) >= outBit {
		panic("content: too many needle states")
	}
	for _, n := range ns {
		if len(n.text) > maxNeedle {
			panic("content: needle longer than maxNeedle: " + n.text)
		}
	}
	// Byte classes: one per byte a needle holds (folded), 0 for the rest;
	// the control bytes other than CR, which only say "a control byte is
	// here", share one. At most 1<<classBits classes, so that a state's
	// row is found with a shift.
	n := 1
	control := uint8(0)
	for _, nd := range ns {
		for k := 0; k < len(nd.text); k++ {
			c := nd.text[k]
			switch {
			case a.class[c] != 0:
			case nd.kind == needleControl && c != '\r' && control != 0:
				a.class[c] = control
			default:
				a.class[c] = uint8(n)
				if nd.kind == needleControl && c != '\r' {
					control = uint8(n)
				}
				n++
			}
		}
	}
	if n > 1<<classBits {
		panic("content: too many needle byte classes")
	}
	for c := 'A'; c <= 'Z'; c++ {
		a.class[c] = a.class[c+'a'-'A']
	}
	a.next = make([]uint16, len(nodes)<<classBits)
	for s := range next {
		for c, t := range next[s] {
			if len(nodes[t].out) > 0 {
				t |= outBit
			}
			a.next[s<<classBits|int(a.class[c])] = t
		}
	}
	return a
}

// hit is a needle found at [start, end) of a file.
type hit struct {
	needle     *needle
	start, end int
}

// scan finds every needle in src, and whether src holds a control
// character (other than tab, line feed, and a carriage return before a
// line feed or at the end). A DFA waits on each step's table lookup, so
// the two halves of a file are scanned side by side (the second from a
// little before the middle, so that no needle across it is missed; it
// reports only the needles that end past the middle): twice the work in
// flight.
func (a *automaton) scan(src []byte) (out []hit, control bool) {
	mid := len(src) / 2
	from := max(0, mid-maxNeedle)
	if mid < 4*maxNeedle {
		return a.scanRange(src, 0, len(src), 0, out, false)
	}
	next, class := a.next, &a.class
	var s1, s2 uint16
	n := mid
	if len(src)-from < n {
		n = len(src) - from
	}
	i := 0
	for ; i < n; i++ {
		s1 = next[int(s1&^outBit)<<classBits|int(class[src[i]])]
		s2 = next[int(s2&^outBit)<<classBits|int(class[src[from+i]])]
		if (s1|s2)&outBit == 0 {
			continue
		}
		if s1&outBit != 0 {
			out, control = a.emit(src, i, s1, out, control, 0)
		}
		if s2&outBit != 0 {
			out, control = a.emit(src, from+i, s2, out, control, mid)
		}
	}
	// What each stream has left: the first half's end, the second's tail.
	for k := i; k < mid; k++ {
		s1 = next[int(s1&^outBit)<<classBits|int(class[src[k]])]
		if s1&outBit != 0 {
			out, control = a.emit(src, k, s1, out, control, 0)
		}
	}
	for k := from + i; k < len(src); k++ {
		s2 = next[int(s2&^outBit)<<classBits|int(class[src[k]])]
		if s2&outBit != 0 {
			out, control = a.emit(src, k, s2, out, control, mid)
		}
	}
	sortHits(out)
	return out, control
}

// scanRange is scan in one stream over src[from:to].
func (a *automaton) scanRange(src []byte, from, to, after int, out []hit, control bool) ([]hit, bool) {
	next, class := a.next, &a.class
	s := uint16(0)
	for i := from; i < to; i++ {
		s = next[int(s&^outBit)<<classBits|int(class[src[i]])]
		if s&outBit != 0 {
			out, control = a.emit(src, i, s, out, control, after)
		}
	}
	return out, control
}

// emit adds the needles that end at src[i] (state s), those that end
// past after only.
func (a *automaton) emit(src []byte, i int, s uint16, out []hit, control bool, after int) ([]hit, bool) {
	if i < after {
		return out, control
	}
	for _, n := range a.out[s&^outBit] {
		nd := &a.needles[n]
		start, end := i+1-len(nd.text), i+1
		switch nd.kind {
		case needleControl:
			b := src[i]
			control = control || b != '\r' || i+1 < len(src) && src[i+1] != '\n'
			continue
		case needlePhrase, needlePySink:
			// Whole words only ("do" is not in "document").
			if start > 0 && wordByte(src[start-1]) || end < len(src) && letter(src[end]) {
				continue
			}
		case needleSecret:
			if start > 0 && wordByte(src[start-1]) && !a.inside(nd) {
				continue
			}
		}
		out = append(out, hit{needle: nd, start: start, end: end})
	}
	return out, control
}

// inside reports a credential prefix that need not start a word (a PEM
// header, a Slack webhook's host).
func (a *automaton) inside(nd *needle) bool {
	id := secretRules[nd.arg].id
	return id == "private-key" || id == "slack-webhook"
}

// maxNeedle bounds the length of a needle (the overlap of the halves).
const maxNeedle = 32

// sortHits orders hits by where they end (the halves interleave).
func sortHits(h []hit) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].end < h[j-1].end; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// hits are the needles of the file, found once for every rule.
func (p *parsed) hits() []hit {
	p.hitsOnce.Do(func() {
		p.ascii = isASCII(p.src)
		// The signature line is the format's (base64 and hex): nothing
		// there is a word of these rules, and it is an eighth of an item.
		a := theAutomaton()
		if p.sigEnd <= p.sigStart {
			p.found, p.hasControl = a.scan(p.src)
			return
		}
		head, c1 := a.scan(p.src[:p.sigStart]) // a #! line
		tail, c2 := a.scan(p.src[p.sigEnd:])
		for i := range tail {
			tail[i].start += p.sigEnd
			tail[i].end += p.sigEnd
		}
		p.found, p.hasControl = append(head, tail...), c1 || c2 || hasControlByte(p.src[p.sigStart:p.sigEnd])
	})
	return p.found
}

// hasControlByte reports a control byte in b (the signature line, which
// the needle scan steps over: a control there is still one).
func hasControlByte(b []byte) bool {
	for i, c := range b {
		if c < 0x20 && c != '\n' && c != '\t' && !(c == '\r' && (i+1 == len(b) || b[i+1] == '\n')) || c == 0x7F {
			return true
		}
	}
	return false
}
