package content

import (
	"reflect"
	"testing"
)

// TestAutomatonAsFirstBuilt: the automaton built with a table of trie edges
// is the one the map-based build made (same states, transitions, classes
// and outputs), for rye's needles.
func TestAutomatonAsFirstBuilt(t *testing.T) {
	ns := buildNeedles()
	got, want := buildAutomaton(ns), mapAutomaton(ns)
	if got.class != want.class || !reflect.DeepEqual(got.next, want.next) || !reflect.DeepEqual(got.out, want.out) {
		t.Fatalf("automata differ: %d/%d transitions, %d/%d states", len(got.next), len(want.next), len(got.out), len(want.out))
	}
}

// BenchmarkBuildAutomaton is what the first content check of a process
// pays to build the scanner.
func BenchmarkBuildAutomaton(b *testing.B) {
	ns := buildNeedles()
	for b.Loop() {
		buildAutomaton(ns)
	}
}

// mapAutomaton is buildAutomaton as first written, with a map of
// children per trie node: the reference the table-based build is compared
// with.
func mapAutomaton(ns []needle) *automaton {
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
			if t, ok := nodes[s].child[lc]; ok {
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
