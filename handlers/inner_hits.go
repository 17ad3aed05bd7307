package handlers

import (
	"bytes"
	"encoding/json"
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
		for j, h := range ih.Hits {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"_index":`)
			writeString(b, h.Index)
			b.WriteString(`,"_type":"_doc","_id":`)
			writeString(b, h.ID)
			b.WriteString(`,"_nested":`)
			b.Write(h.Nested)
			b.WriteString(`,"_score":`)
			writeFloat(b, h.Score)
			if h.Source != nil {
				b.WriteString(`,"_source":`)
				b.Write(h.Source)
			}
			if h.Highlight != nil {
				b.WriteString(`,"highlight":`)
				b.Write(marshalUnescaped(h.Highlight))
			}
			if ih.HasSortValues {
				sb, _ := json.Marshal(h.Sort)
				b.WriteString(`,"sort":`)
				b.Write(sb)
			}
			b.WriteByte('}')
		}
		b.WriteString(`]}}`)
	}
	b.WriteByte('}')
}
