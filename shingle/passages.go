package shingle

import (
	"cmp"
	"slices"
)

// Passage is a run of consecutive words shared by two texts: words
// a[A:A+Words] equal words b[B:B+Words] (see [Passages]).
type Passage struct {
	A, B  int // index of the first word in a and in b
	Words int // number of words, at least 1
}

// Passages returns the longest passages shared by the word sequences a and
// b (word hashes, such as the Hash fields of [Tokenizer.AppendWords]),
// longest first, then in the order of a, then of b; at most n of them (all
// when n < 0). b must have fewer than 2^30 words.
//
// Every passage is maximal: it cannot be extended by a word on either
// side, because the words before it in a and in b differ (or one of them
// starts its text), and so do the words after it. Each word of a ends at
// most one passage: the longest run of words of a ending there that b
// holds, at the first place b holds it, reported when the next word of a
// does not extend it. So a run of a that b holds twice is reported once,
// and a run that a holds twice is reported twice.
//
// Cost: O(len(a) + len(b)) expected time (a suffix automaton of b, which a
// is run through, so that texts with many repeats cost no more) plus
// O(k log k) to sort the k <= len(a) passages found; O(len(b)) memory,
// about 200 bytes a word of b, and 24 bytes a passage found.
func Passages(a, b []uint64, n int) []Passage {
	if n == 0 || len(a) == 0 || len(b) == 0 {
		return nil
	}
	s := newSuffixAutomaton(b)
	var out []Passage
	v, l := int32(0), 0   // the state and length of the match ending at a[i]
	prev, prevEnd := 0, 0 // the length of the match ending at a[i-1], and its end in b
	for i, h := range a {
		c, ok := s.sym[h]
		if !ok {
			v, l = 0, 0
		} else {
			for v != 0 && s.next(v, c) < 0 {
				v = s.link[v]
				l = int(s.len[v])
			}
			if u := s.next(v, c); u >= 0 {
				v, l = u, l+1
			} else {
				v, l = 0, 0
			}
		}
		// The match ending at a[i-1] is maximal unless this one extends
		// it (l is at most prev+1).
		if prev > 0 && l <= prev {
			out = append(out, Passage{A: i - prev, B: prevEnd - prev + 1, Words: prev})
		}
		prev = l
		if l > 0 {
			prevEnd = int(s.first[v])
		}
	}
	if prev > 0 {
		out = append(out, Passage{A: len(a) - prev, B: prevEnd - prev + 1, Words: prev})
	}
	slices.SortFunc(out, func(x, y Passage) int {
		if c := cmp.Compare(y.Words, x.Words); c != 0 {
			return c
		}
		if c := cmp.Compare(x.A, y.A); c != 0 {
			return c
		}
		return cmp.Compare(x.B, y.B)
	})
	if n >= 0 && len(out) > n {
		out = slices.Clip(out[:n])
	}
	return out
}

// suffixAutomaton is the suffix automaton of a word sequence: the smallest
// automaton that accepts its substrings, with at most 2n states and 3n
// transitions for n words. Words are numbered densely in sym; transitions
// are found through one hash map and listed per state for cloning.
type suffixAutomaton struct {
	sym   map[uint64]int32 // the number of each distinct word
	len   []int32          // the longest string of each state
	link  []int32          // suffix link, -1 for the root
	first []int32          // where the state's strings first end in the text
	head  []int32          // each state's last transition added, -1 for none
	edges []samEdge
	trans map[uint64]int32 // state<<32 | word number -> edge
}

type samEdge struct {
	sym, to, next int32
}

// newSuffixAutomaton builds the automaton of b in O(len(b)) expected time
// (Blumer et al.'s online construction).
func newSuffixAutomaton(b []uint64) *suffixAutomaton {
	s := &suffixAutomaton{
		sym:   make(map[uint64]int32),
		trans: make(map[uint64]int32, len(b)),
	}
	s.add(0, -1, -1)
	last := int32(0)
	for i, h := range b {
		c, ok := s.sym[h]
		if !ok {
			c = int32(len(s.sym))
			s.sym[h] = c
		}
		cur := s.add(s.len[last]+1, 0, int32(i))
		p := last
		for p >= 0 && s.next(p, c) < 0 {
			s.set(p, c, cur)
			p = s.link[p]
		}
		if p >= 0 {
			q := s.next(p, c)
			if s.len[p]+1 == s.len[q] {
				s.link[cur] = q
			} else {
				clone := s.add(s.len[p]+1, s.link[q], s.first[q])
				for e := s.head[q]; e >= 0; e = s.edges[e].next {
					s.set(clone, s.edges[e].sym, s.edges[e].to)
				}
				for p >= 0 && s.next(p, c) == q {
					s.set(p, c, clone)
					p = s.link[p]
				}
				s.link[q], s.link[cur] = clone, clone
			}
		}
		last = cur
	}
	return s
}

func (s *suffixAutomaton) add(length, link, first int32) int32 {
	s.len = append(s.len, length)
	s.link = append(s.link, link)
	s.first = append(s.first, first)
	s.head = append(s.head, -1)
	return int32(len(s.len) - 1)
}

func edgeKey(v, c int32) uint64 { return uint64(v)<<32 | uint64(uint32(c)) }

// next returns the state reached from v by word c, or -1.
func (s *suffixAutomaton) next(v, c int32) int32 {
	if e, ok := s.trans[edgeKey(v, c)]; ok {
		return s.edges[e].to
	}
	return -1
}

// set makes the transition from v by word c lead to to.
func (s *suffixAutomaton) set(v, c, to int32) {
	k := edgeKey(v, c)
	if e, ok := s.trans[k]; ok {
		s.edges[e].to = to
		return
	}
	s.edges = append(s.edges, samEdge{sym: c, to: to, next: s.head[v]})
	e := int32(len(s.edges) - 1)
	s.head[v] = e
	s.trans[k] = e
}
