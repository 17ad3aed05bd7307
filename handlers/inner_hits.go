package handlers

import (
	"bytes"
	"strconv"

	"github.com/quarry-search/quarry/searchcore"
)

// writeInnerHits renders a hit's "inner_hits" member (with its leading
// comma): {name: {"hits": {total, max_score, hits}}}.
func writeInnerHits(b *bytes.Buffer, list []searchcore.InnerHits, totalAsInt bool) {
	b.WriteString(`,"inner_hits":{`)
	for i, ih := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, ih.Name)
		b.WriteString(`:{"hits":{"total":`)
		if totalAsInt {
			b.WriteString(strconv.FormatInt(ih.Total, 10))
		} else {
			b.WriteString(`{"value":`)
			b.WriteString(strconv.FormatInt(ih.Total, 10))
			b.WriteString(`,"relation":"eq"}`)
		}
		b.WriteString(`,"max_score":`)
		writeFloat(b, ih.MaxScore)
		b.WriteString(`,"hits":[`)
		for j := range ih.Hits {
			if j > 0 {
				b.WriteByte(',')
			}
			writeHit(b, &ih.Hits[j].Hit, ih.Request, totalAsInt, ih.Hits[j].Nested)
		}
		b.WriteString(`]}}`)
	}
	b.WriteByte('}')
}
