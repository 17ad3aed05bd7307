package query

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// maxCodePoint is Character.MAX_CODE_POINT, the top of the alphabet a
// complement is taken over.
const maxCodePoint = utf8.MaxRune

// rtrans is a transition on the code points lo..hi (inclusive).
type rtrans struct {
	lo, hi rune
	to     int
}

// astate is one state of an automaton over code points; eps are its
// transitions that consume nothing.
type astate struct {
	accept bool
	eps    []int
	trans  []rtrans
}

// automaton is a (possibly nondeterministic) finite automaton over Unicode
// code points, the way Lucene's RegExp builds its automata: Thompson
// fragments for concatenation, union and repetition, determinization by
// subset construction for complement and intersection.
type automaton struct {
	states []astate
	start  int
}

// fragment is a piece of an automaton under construction: from start, its
// language leads to end (never accepting while embedded).
type fragment struct{ start, end int }

// abuilder grows one automaton out of fragments.
type abuilder struct {
	states []astate
}

func (b *abuilder) newState() int {
	b.states = append(b.states, astate{})
	return len(b.states) - 1
}

func (b *abuilder) eps(from, to int) {
	b.states[from].eps = append(b.states[from].eps, to)
}

// ranges is the fragment accepting one code point of the given ranges.
func (b *abuilder) ranges(rs ...[2]rune) fragment {
	s, e := b.newState(), b.newState()
	for _, r := range rs {
		b.states[s].trans = append(b.states[s].trans, rtrans{lo: r[0], hi: r[1], to: e})
	}
	return fragment{s, e}
}

// emptyString is the fragment accepting only "".
func (b *abuilder) emptyString() fragment {
	s, e := b.newState(), b.newState()
	b.eps(s, e)
	return fragment{s, e}
}

// emptyLang is the fragment accepting nothing.
func (b *abuilder) emptyLang() fragment {
	return fragment{b.newState(), b.newState()}
}

func (b *abuilder) concat(x, y fragment) fragment {
	b.eps(x.end, y.start)
	return fragment{x.start, y.end}
}

func (b *abuilder) union(fs ...fragment) fragment {
	s, e := b.newState(), b.newState()
	for _, f := range fs {
		b.eps(s, f.start)
		b.eps(f.end, e)
	}
	return fragment{s, e}
}

func (b *abuilder) optional(x fragment) fragment {
	return b.union(x, b.emptyString())
}

func (b *abuilder) star(x fragment) fragment {
	s, e := b.newState(), b.newState()
	b.eps(s, x.start)
	b.eps(s, e)
	b.eps(x.end, x.start)
	b.eps(x.end, e)
	return fragment{s, e}
}

// copyOf adds a fresh copy of fragment x (its states reachable from start).
func (b *abuilder) copyOf(x fragment) fragment {
	a := b.extract(x)
	return b.embed(a)
}

// extract makes fragment x a standalone automaton (end accepting).
func (b *abuilder) extract(x fragment) *automaton {
	idx := map[int]int{x.start: 0}
	order := []int{x.start}
	for i := 0; i < len(order); i++ {
		st := &b.states[order[i]]
		visit := func(t int) {
			if _, ok := idx[t]; !ok {
				idx[t] = len(order)
				order = append(order, t)
			}
		}
		for _, t := range st.eps {
			visit(t)
		}
		for _, t := range st.trans {
			visit(t.to)
		}
	}
	a := &automaton{states: make([]astate, len(order))}
	for i, old := range order {
		st := &b.states[old]
		ns := astate{accept: old == x.end}
		for _, t := range st.eps {
			ns.eps = append(ns.eps, idx[t])
		}
		for _, t := range st.trans {
			ns.trans = append(ns.trans, rtrans{lo: t.lo, hi: t.hi, to: idx[t.to]})
		}
		a.states[i] = ns
	}
	return a
}

// embed adds a copy of automaton a as a fragment: its accepting states lead
// to the fragment's end.
func (b *abuilder) embed(a *automaton) fragment {
	base := len(b.states)
	for _, st := range a.states {
		ns := astate{}
		for _, t := range st.eps {
			ns.eps = append(ns.eps, base+t)
		}
		for _, t := range st.trans {
			ns.trans = append(ns.trans, rtrans{lo: t.lo, hi: t.hi, to: base + t.to})
		}
		b.states = append(b.states, ns)
	}
	end := b.newState()
	for i, st := range a.states {
		if st.accept {
			b.eps(base+i, end)
		}
	}
	return fragment{base + a.start, end}
}

// tooComplex is Lucene's TooComplexToDeterminizeException.
func tooComplex(a *automaton, maxStates int) error {
	trans := 0
	for _, st := range a.states {
		trans += len(st.trans) + len(st.eps)
	}
	return searchcore.Errorf(searchcore.Invalid, "too_complex_to_determinize_exception",
		"Determinizing automaton with %d states and %d transitions would result in more than %d states.",
		len(a.states), trans, maxStates)
}

// determinizeWork bounds the work of one subset construction (NFA states
// visited while computing the subsets): automata whose subsets are huge
// would otherwise take minutes to reach maxStates.
const determinizeWork = 1 << 22

// determinize is the subset construction (Operations.determinize): the
// result has no epsilon transitions and, per state, disjoint sorted
// transition ranges. It fails once more than maxStates states would be
// needed, or once the construction has visited determinizeWork NFA states.
func (a *automaton) determinize(maxStates int) (*automaton, error) {
	mark := make([]int, len(a.states)) // closure generation per NFA state
	gen := 0
	work := 0
	var stack []int
	// closure is the sorted epsilon closure of the states of set
	closure := func(set []int) []int {
		gen++
		var out []int
		stack = append(stack[:0], set...)
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if mark[s] == gen {
				continue
			}
			mark[s] = gen
			out = append(out, s)
			stack = append(stack, a.states[s].eps...)
		}
		work += len(out)
		slices.Sort(out)
		return out
	}
	key := func(set []int) string {
		b := make([]byte, 0, 4*len(set))
		for _, s := range set {
			b = append(b, byte(s), byte(s>>8), byte(s>>16), byte(s>>24))
		}
		return string(b)
	}
	d := &automaton{}
	ids := map[string]int{}
	var sets [][]int
	add := func(set []int) (int, error) {
		k := key(set)
		if id, ok := ids[k]; ok {
			return id, nil
		}
		if len(sets) >= maxStates || work > determinizeWork {
			return 0, tooComplex(a, maxStates)
		}
		id := len(sets)
		ids[k] = id
		sets = append(sets, set)
		acc := false
		for _, s := range set {
			acc = acc || a.states[s].accept
		}
		d.states = append(d.states, astate{accept: acc})
		return id, nil
	}
	if _, err := add(closure([]int{a.start})); err != nil {
		return nil, err
	}
	var trans, active []rtrans
	var cuts []rune
	for i := 0; i < len(sets); i++ {
		// the boundaries of every range leaving this set split the alphabet
		// into segments with one target set each; a sweep over the ranges
		// sorted by their start keeps those covering the segment
		trans, cuts = trans[:0], cuts[:0]
		for _, s := range sets[i] {
			for _, t := range a.states[s].trans {
				trans = append(trans, t)
				cuts = append(cuts, t.lo, t.hi+1)
			}
		}
		work += len(trans)
		slices.SortFunc(trans, func(x, y rtrans) int { return int(x.lo) - int(y.lo) })
		slices.Sort(cuts)
		cuts = slices.Compact(cuts)
		var out []rtrans
		active = active[:0]
		next := 0
		for c := 0; c+1 < len(cuts); c++ {
			lo, hi := cuts[c], cuts[c+1]-1
			kept := active[:0]
			for _, t := range active {
				if t.hi >= lo {
					kept = append(kept, t)
				}
			}
			active = kept
			for next < len(trans) && trans[next].lo <= lo {
				if trans[next].hi >= lo {
					active = append(active, trans[next])
				}
				next++
			}
			if len(active) == 0 {
				continue
			}
			targets := make([]int, len(active))
			for j, t := range active {
				targets[j] = t.to
			}
			to, err := add(closure(targets))
			if err != nil {
				return nil, err
			}
			if n := len(out); n > 0 && out[n-1].to == to && out[n-1].hi+1 == lo {
				out[n-1].hi = hi
				continue
			}
			out = append(out, rtrans{lo: lo, hi: hi, to: to})
		}
		d.states[i].trans = out
	}
	return d, nil
}

// complement is Operations.complement: the determinized automaton made
// total over the whole code point alphabet, with accepting and rejecting
// states swapped.
func (a *automaton) complement(maxStates int) (*automaton, error) {
	d, err := a.determinize(maxStates)
	if err != nil {
		return nil, err
	}
	dead := len(d.states)
	d.states = append(d.states, astate{trans: []rtrans{{lo: 0, hi: maxCodePoint, to: dead}}})
	for i := 0; i < dead; i++ {
		st := &d.states[i]
		var full []rtrans
		next := rune(0)
		for _, t := range st.trans {
			if t.lo > next {
				full = append(full, rtrans{lo: next, hi: t.lo - 1, to: dead})
			}
			full = append(full, t)
			next = t.hi + 1
		}
		if next <= maxCodePoint {
			full = append(full, rtrans{lo: next, hi: maxCodePoint, to: dead})
		}
		st.trans = full
	}
	for i := range d.states {
		d.states[i].accept = !d.states[i].accept
	}
	return d, nil
}

// intersection is Operations.intersection, the product construction over
// the determinized operands; the product may not have more than maxStates
// states either.
func intersection(x, y *automaton, maxStates int) (*automaton, error) {
	dx, err := x.determinize(maxStates)
	if err != nil {
		return nil, err
	}
	dy, err := y.determinize(maxStates)
	if err != nil {
		return nil, err
	}
	out := &automaton{}
	ids := map[[2]int]int{}
	var pairs [][2]int
	add := func(p [2]int) int {
		if id, ok := ids[p]; ok {
			return id
		}
		if len(pairs) > maxStates {
			return -1
		}
		ids[p] = len(pairs)
		pairs = append(pairs, p)
		out.states = append(out.states, astate{accept: dx.states[p[0]].accept && dy.states[p[1]].accept})
		return len(pairs) - 1
	}
	add([2]int{dx.start, dy.start})
	for i := 0; i < len(pairs); i++ {
		tx, ty := dx.states[pairs[i][0]].trans, dy.states[pairs[i][1]].trans
		var trans []rtrans
		for j, k := 0, 0; j < len(tx) && k < len(ty); {
			lo, hi := max(tx[j].lo, ty[k].lo), min(tx[j].hi, ty[k].hi)
			if lo <= hi {
				to := add([2]int{tx[j].to, ty[k].to})
				if to < 0 {
					return nil, tooComplex(out, maxStates)
				}
				trans = append(trans, rtrans{lo: lo, hi: hi, to: to})
			}
			if tx[j].hi < ty[k].hi {
				j++
			} else {
				k++
			}
		}
		out.states[i].trans = trans
	}
	return out, nil
}

// runDFA is a determinized automaton ready to match terms: the live states
// (from which an accepting state is reachable) and the literal prefix every
// accepted term starts with.
type runDFA struct {
	states []astate
	start  int
	live   []bool
	prefix string
}

func newRunDFA(d *automaton) *runDFA {
	r := &runDFA{states: d.states, start: d.start, live: make([]bool, len(d.states))}
	// reverse reachability from the accepting states
	rev := make([][]int, len(d.states))
	var stack []int
	for i, st := range d.states {
		for _, t := range st.trans {
			rev[t.to] = append(rev[t.to], i)
		}
		if st.accept {
			r.live[i] = true
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range rev[s] {
			if !r.live[p] {
				r.live[p] = true
				stack = append(stack, p)
			}
		}
	}
	var sb strings.Builder
	for s, seen := d.start, map[int]bool{}; !seen[s] && !d.states[s].accept; {
		seen[s] = true
		var only *rtrans
		n := 0
		for i, t := range d.states[s].trans {
			if r.live[t.to] {
				n++
				only = &d.states[s].trans[i]
			}
		}
		if n != 1 || only.lo != only.hi {
			break
		}
		sb.WriteRune(only.lo)
		s = only.to
	}
	r.prefix = sb.String()
	return r
}

// step is the state after code point c from state q, or -1.
func (r *runDFA) step(q int, c rune) int {
	ts := r.states[q].trans
	i := sort.Search(len(ts), func(i int) bool { return ts[i].hi >= c })
	if i < len(ts) && ts[i].lo <= c {
		return ts[i].to
	}
	return -1
}

// The byte automaton over UTF-8 terms (segment.Automaton) encodes a state
// as (code point state + 1) << 32 | pending byte count << 24 | the pending
// bytes of a code point still being read; 0 is the dead state.

func packState(q, n int, pend uint32) int { return (q+1)<<32 | n<<24 | int(pend) }

// Start implements segment.Automaton.
func (r *runDFA) Start() int { return packState(r.start, 0, 0) }

// IsMatch implements segment.Automaton.
func (r *runDFA) IsMatch(s int) bool {
	return s != 0 && (s>>24)&0xff == 0 && r.states[s>>32-1].accept
}

// CanMatch implements segment.Automaton.
func (r *runDFA) CanMatch(s int) bool { return s != 0 && r.live[s>>32-1] }

// WillAlwaysMatch implements segment.Automaton.
func (r *runDFA) WillAlwaysMatch(int) bool { return false }

// Accept implements segment.Automaton: UTF-8 bytes are gathered until they
// make a code point, which steps the code point automaton.
func (r *runDFA) Accept(s int, b byte) int {
	if s == 0 {
		return 0
	}
	q, n, pend := s>>32-1, (s>>24)&0xff, uint32(s&0xffffff)
	var buf [4]byte
	for i := 0; i < n; i++ {
		buf[i] = byte(pend >> (8 * (2 - i)))
	}
	buf[n] = b
	need := 1
	switch lead := buf[0]; {
	case lead < 0x80:
	case lead >= 0xc2 && lead <= 0xdf:
		need = 2
	case lead >= 0xe0 && lead <= 0xef:
		need = 3
	case lead >= 0xf0 && lead <= 0xf4:
		need = 4
	default:
		return 0
	}
	if n > 0 && (b < 0x80 || b > 0xbf) {
		return 0
	}
	if n+1 < need {
		pend |= uint32(b) << (8 * (2 - n))
		return packState(q, n+1, pend)
	}
	c, size := utf8.DecodeRune(buf[:need])
	if c == utf8.RuneError && size <= 1 {
		return 0
	}
	if q = r.step(q, c); q < 0 {
		return 0
	}
	return packState(q, 0, 0)
}

// defaultMaxDeterminizedStates is Lucene's Operations.DEFAULT_MAX_DETERMINIZED_STATES,
// the default of max_determinized_states (regexp and query_string).
const defaultMaxDeterminizedStates = 10000
