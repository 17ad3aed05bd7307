package searchcore

import (
	"strconv"
	"strings"

	"github.com/blugelabs/bluge/search"
)

// Explanation is a score explanation as Elasticsearch renders it in
// _explanation: the value, what computed it, and the values it came from.
type Explanation struct {
	Value       float64
	Description string
	Details     []*Explanation
}

// newExplanation converts bluge's explanation of the hit numbered doc
// (the term weights name the document like Lucene's "in <doc>").
func newExplanation(e *search.Explanation, doc uint64) *Explanation {
	if e == nil {
		return nil
	}
	out := &Explanation{Value: e.Value, Description: strings.ReplaceAll(e.Message, explainDocMarker, strconv.FormatUint(doc, 10))}
	for _, c := range e.Children {
		if d := newExplanation(c, doc); d != nil {
			out.Details = append(out.Details, d)
		}
	}
	// A sum over one clause is that clause: Lucene rewrites a one-clause
	// boolean query to the clause, so ES never shows such a level.
	if out.Description == "sum of:" && len(out.Details) == 1 && out.Details[0].Value == out.Value {
		return out.Details[0]
	}
	return out
}

// shardName is a hit's _shard: "[<index>][<shard number>]".
func shardName(index string, num int) string {
	return "[" + index + "][" + strconv.Itoa(num) + "]"
}
