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
	return append(out, needle{text: "secret", kind: needleAWS}, needle{text: "style", kind: needleStyle}, needle{text: "hidden", kind: needleStyle})
}

func lowerString(s string) string { return string(lowerASCII([]byte(s))) }

// automaton is the compiled scanner.
type automaton struct {
	needles []needle
	// next is state × byte → state; a state where needles end has
	// outBit set in the transitions that lead to it.
	next [][256]uint16
	out  [][]uint16 // state → the needles that end there
}

const outBit = 1 << 15

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
		child map[byte]int
		fail  int
		out   []uint16
	}
	nodes := []node{{child: map[byte]int{}}}
	for i, n := range ns {
		s := 0
		for k := 0; k < len(n.text); k++ {
			c := n.text[k]
			t, ok := nodes[s].child[c]
			if !ok {
				nodes = append(nodes, node{child: map[byte]int{}})
				t = len(nodes) - 1
				nodes[s].child[c] = t
			}
			s = t
		}
		nodes[s].out = append(nodes[s].out, uint16(i))
	}
	a.next = make([][256]uint16, len(nodes))
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
			if t, ok := nodes[s].child[lc]; ok {
				a.next[s][c] = uint16(t)
				if byte(c) == lc { // once per child, not for its capital too
					f := 0
					if s != 0 {
						f = int(a.next[nodes[s].fail][c])
					}
					nodes[t].fail = f
					nodes[t].out = append(nodes[t].out, nodes[f].out...)
					queue = append(queue, t)
				}
			} else if s != 0 {
				a.next[s][c] = a.next[nodes[s].fail][c]
			}
		}
		a.out[s] = nodes[s].out
	}
	if len(nodes) >= outBit {
		panic("content: too many needle states")
	}
	for s := range a.next {
		for c, t := range a.next[s] {
			if len(nodes[t].out) > 0 {
				a.next[s][c] = t | outBit
			}
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
// line feed or at the end).
func (a *automaton) scan(src []byte) (out []hit, control bool) {
	s := uint16(0)
	for i, b := range src {
		s = a.next[s&^outBit][b]
		if b < 0x20 && b != '\n' && b != '\t' || b == 0x7F {
			control = control || b != '\r' || i+1 < len(src) && src[i+1] != '\n'
		}
		if s&outBit == 0 {
			continue
		}
		for _, n := range a.out[s&^outBit] {
			nd := &a.needles[n]
			out = append(out, hit{needle: nd, start: i + 1 - len(nd.text), end: i + 1})
		}
	}
	return out, control
}

// hits are the needles of the file, found once for every rule.
func (p *parsed) hits() []hit {
	p.hitsOnce.Do(func() { p.found, p.hasControl = theAutomaton().scan(p.src) })
	return p.found
}
