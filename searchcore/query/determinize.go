package query

import (
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	searchcore "github.com/quarry-search/quarry/searchcore/eserr"
)

// defaultMaxDeterminizedStates is Lucene's Operations.DEFAULT_MAX_DETERMINIZED_STATES,
// the default of the regexp query's max_determinized_states.
const defaultMaxDeterminizedStates = 10000

// checkDeterminize mirrors Lucene's guard against regular expressions whose
// deterministic automaton explodes: it runs the subset construction over
// the compiled pattern (RE2 syntax) and fails with Lucene's
// TooComplexToDeterminizeException text once more than maxStates states
// would be needed. The state and transition counts in the message are
// those of this construction's NFA, not Lucene's.
func checkDeterminize(pattern string, maxStates int) error {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil // reported by the query itself
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil
	}
	// alphabet classes: the boundaries of every rune range in the program
	cuts := []rune{0, 0x110000}
	consumes := func(i *syntax.Inst) bool {
		switch i.Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			return true
		}
		return false
	}
	nfaStates, nfaTransitions := 0, 0
	for i := range prog.Inst {
		in := &prog.Inst[i]
		switch in.Op {
		case syntax.InstRune:
			nfaStates++
			for j := 0; j+1 < len(in.Rune); j += 2 {
				cuts = append(cuts, in.Rune[j], in.Rune[j+1]+1)
				nfaTransitions++
			}
			if len(in.Rune) == 1 {
				cuts = append(cuts, in.Rune[0], in.Rune[0]+1)
				nfaTransitions++
			}
		case syntax.InstRune1:
			nfaStates++
			nfaTransitions++
			cuts = append(cuts, in.Rune[0], in.Rune[0]+1)
		case syntax.InstRuneAnyNotNL:
			nfaStates++
			nfaTransitions += 2
			cuts = append(cuts, '\n', '\n'+1)
		case syntax.InstRuneAny:
			nfaStates++
			nfaTransitions++
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	classes := cuts[:len(cuts)-1] // a representative rune per class

	// closure adds pc and everything reachable without consuming input
	var closure func(set map[uint32]bool, pc uint32)
	closure = func(set map[uint32]bool, pc uint32) {
		if set[pc] {
			return
		}
		set[pc] = true
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			closure(set, in.Out)
			closure(set, in.Arg)
		case syntax.InstCapture, syntax.InstEmptyWidth, syntax.InstNop:
			closure(set, in.Out)
		}
	}
	key := func(set map[uint32]bool) (string, []uint32) {
		var pcs []uint32
		for pc := range set {
			if in := &prog.Inst[pc]; consumes(in) || in.Op == syntax.InstMatch {
				pcs = append(pcs, pc)
			}
		}
		slices.Sort(pcs)
		var b strings.Builder
		for _, pc := range pcs {
			b.WriteString(strconv.Itoa(int(pc)))
			b.WriteByte(',')
		}
		return b.String(), pcs
	}
	start := map[uint32]bool{}
	closure(start, uint32(prog.Start))
	k, pcs := key(start)
	seen := map[string]bool{k: true}
	queue := [][]uint32{pcs}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, r := range classes {
			next := map[uint32]bool{}
			for _, pc := range cur {
				if in := &prog.Inst[pc]; consumes(in) && in.MatchRune(r) {
					closure(next, in.Out)
				}
			}
			if len(next) == 0 {
				continue
			}
			k, npcs := key(next)
			if seen[k] {
				continue
			}
			seen[k] = true
			if len(seen) > maxStates {
				return searchcore.Errorf(searchcore.Invalid, "too_complex_to_determinize_exception",
					"Determinizing automaton with %d states and %d transitions would result in more than %d states.",
					nfaStates, nfaTransitions, maxStates)
			}
			queue = append(queue, npcs)
		}
	}
	return nil
}
